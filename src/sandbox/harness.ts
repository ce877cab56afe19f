/**
 * Trusted JavaScript evaluated first in every QuickJS context, before any calcCode
 * (`harnessSource(true)`; a context that only compiles calcCode skips the lockdown).
 *
 * It removes what a calculation must not use (`eval`, `WeakRef`, `FinalizationRegistry`: an
 * indirect eval could declare lasting global bindings, and finalizers run code after a
 * calculation has ended), freezes every built-in object and global binding so that nothing a
 * calculation does can outlive it, and returns the functions the host drives the context with:
 *
 * - `run(calculate, inputsJson, contextJson, lookup, maxChars, maxCalls)`: a promise of a string,
 *   `'1' + JSON {value, metadata}` on success or `'0' + JSON {kind, message | error}`;
 * - `reset()`: deletes the globals a calculation created; false when that is impossible (the
 *   context must then be replaced);
 * - `verify(fn, source)`: true when `fn` is a function whose source text is exactly `source`
 *   (calcCode did not close the wrapper function early to run code of its own), and freezes it.
 *
 * Written as ES2020 without template literals: it is a string, not part of the host program.
 */
export const harnessSource = (lockdown: boolean) => HARNESS_SOURCE.replace('LOCKDOWN', String(lockdown));

const HARNESS_SOURCE = `(() => {
  'use strict';
  // Without lockdown (a throw-away context that only compiles calcCode) nothing is frozen.
  const lockdown = LOCKDOWN;
  const G = globalThis;
  const { freeze, getPrototypeOf, getOwnPropertyDescriptor, defineProperty, isExtensible } = Object;
  const { ownKeys, apply, deleteProperty } = Reflect;
  const { parse, stringify } = JSON;
  const { isFinite, isInteger } = Number;
  const { isArray } = Array;
  const functionSource = Function.prototype.toString;
  const promiseThen = Promise.prototype.then;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const globalProto = getPrototypeOf(G);

  delete G.eval;
  delete G.WeakRef;
  delete G.FinalizationRegistry;

  // Frozen prototypes would make "obj.name = x" fail when the prototype has that property
  // (the override mistake): these few become accessors that define an own property instead.
  const OVERRIDABLE = ['constructor', 'name', 'message', 'toString', 'toLocaleString', 'valueOf'];
  const enableOverride = (proto, key) => {
    const d = getOwnPropertyDescriptor(proto, key);
    if (!d || !('value' in d) || !d.writable || !d.configurable) return;
    const value = d.value;
    defineProperty(proto, key, {
      get() {
        return value;
      },
      set(v) {
        if (this === proto) {
          throw new TypeErrorCtor('Cannot assign to ' + StringCtor(key) + ' of a built-in prototype');
        }
        if (this === null || (typeof this !== 'object' && typeof this !== 'function')) return;
        defineProperty(this, key, { value: v, writable: true, enumerable: true, configurable: true });
      },
      enumerable: d.enumerable,
      configurable: false,
    });
  };
  for (const key of lockdown ? ownKeys(G) : []) {
    const ctor = getOwnPropertyDescriptor(G, key).value;
    if (typeof ctor !== 'function') continue;
    const proto = getOwnPropertyDescriptor(ctor, 'prototype');
    if (!proto || proto.value === null || (typeof proto.value !== 'object' && typeof proto.value !== 'function')) continue;
    for (const name of OVERRIDABLE) enableOverride(proto.value, name);
  }

  // Freeze everything reachable from the global object and from syntax (prototypes of
  // generators, async functions and iterators are not reachable through globals).
  const seen = new Set();
  const pending = [];
  const visit = (v) => {
    if (((typeof v === 'object' && v !== null) || typeof v === 'function') && !seen.has(v)) {
      seen.add(v);
      pending.push(v);
    }
  };
  if (lockdown) visit(G);
  const hidden = [
    () => async function () {},
    () => function* () {},
    () => async function* () {},
    () => (function* () {})(),
    () => (async function* () {})(),
    () => [][Symbol.iterator](),
    () => new Map()[Symbol.iterator](),
    () => new Set()[Symbol.iterator](),
    () => ''[Symbol.iterator](),
    () => /a/g[Symbol.matchAll]('a'),
    () => [].values().map((x) => x),
    () => Iterator.from({ next() { return { done: true, value: undefined }; } }),
  ];
  for (const make of lockdown ? hidden : []) {
    try {
      visit(getPrototypeOf(make()));
    } catch (e) {
      // this engine has no such intrinsic
    }
  }
  while (pending.length > 0) {
    const o = pending.pop();
    visit(getPrototypeOf(o));
    for (const key of ownKeys(o)) {
      const d = getOwnPropertyDescriptor(o, key);
      visit(d.value);
      visit(d.get);
      visit(d.set);
    }
    if (o !== G) freeze(o);
  }
  // The global object stays extensible (sloppy code may create globals; reset removes them),
  // but its own bindings can no longer be replaced.
  for (const key of lockdown ? ownKeys(G) : []) {
    const d = getOwnPropertyDescriptor(G, key);
    defineProperty(G, key, 'value' in d ? { writable: false, configurable: false } : { configurable: false });
  }
  const baseline = new Set(ownKeys(G));

  const reset = () => {
    if (!isExtensible(G) || getPrototypeOf(G) !== globalProto) return false;
    const keys = ownKeys(G);
    if (keys.length === baseline.size) return true;
    for (const key of keys) {
      if (!baseline.has(key) && !deleteProperty(G, key)) return false;
    }
    return true;
  };

  const verify = (fn, source) => {
    if (typeof fn !== 'function' || apply(functionSource, fn, []) !== source) return false;
    freeze(fn);
    return true;
  };

  const describe = (e) => {
    try {
      if (typeof e === 'object' && e !== null) {
        const name = e.name;
        const message = e.message;
        const stack = e.stack;
        if (typeof message === 'string') {
          return {
            name: typeof name === 'string' ? name : '',
            message,
            stack: typeof stack === 'string' ? stack : '',
          };
        }
        const json = stringify(e);
        return { name: '', message: typeof json === 'string' ? json : StringCtor(e), stack: '' };
      }
      return { name: '', message: StringCtor(e), stack: '' };
    } catch (inner) {
      return { name: '', message: 'a value that cannot be displayed was thrown', stack: '' };
    }
  };

  const kindOf = (v) => {
    if (typeof v === 'number') return StringCtor(v);
    if (v === null) return 'null';
    if (isArray(v)) return 'an array';
    if (typeof v === 'undefined') return 'undefined';
    return typeof v === 'object' ? 'an object' : 'a ' + typeof v;
  };

  const problem = (kind, message) => '0' + stringify({ kind, message });

  const finish = (result, maxChars) => {
    const wrapped = typeof result === 'object' && result !== null && !isArray(result);
    const value = wrapped ? result.value : result;
    let metadata = wrapped ? result.metadata : undefined;
    if (typeof value !== 'number' || !isFinite(value)) {
      return problem('result', (wrapped ? 'result.value' : 'result') + ' must be a finite number, got ' + kindOf(value));
    }
    if (metadata === undefined || metadata === null) metadata = {};
    else if (typeof metadata !== 'object' || isArray(metadata)) {
      return problem('metadata', 'result.metadata must be an object, got ' + kindOf(metadata));
    }
    let json;
    try {
      json = stringify({ value, metadata });
    } catch (e) {
      return problem('metadata', 'result.metadata cannot be converted to JSON: ' + describe(e).message);
    }
    // A toJSON method can turn the object into something else (a string, an array).
    const stored = parse(json).metadata;
    if (typeof stored !== 'object' || stored === null || isArray(stored)) {
      return problem('metadata', 'result.metadata must be an object once converted to JSON, got ' + kindOf(stored));
    }
    if (json.length > maxChars) {
      return problem('output', 'the result is ' + json.length + ' characters of JSON, more than the limit of ' + maxChars);
    }
    return '1' + json;
  };

  const fail = (e) => '0' + stringify({ kind: 'thrown', error: describe(e) });

  const run = (calculate, inputsJson, contextJson, lookup, maxChars, maxCalls) => {
    const inputs = parse(inputsJson);
    const given = parse(contextJson);
    let calls = 0;
    const coefficient = async (key, options) => {
      if (typeof key !== 'string' || key.length === 0 || key.length > 500 || key.indexOf('\\0') >= 0) {
        throw new TypeErrorCtor(
          'context.coefficient(key, options): key must be a non-empty string of at most 500 characters, without NUL',
        );
      }
      let datasetId = null;
      let year = null;
      // A bare integer is the year: context.coefficient('grid_uk', 2024).
      if (isInteger(options)) options = { year: options };
      if (options !== undefined && options !== null) {
        if (typeof options !== 'object') {
          throw new TypeErrorCtor(
            'context.coefficient(key, options): options must be an object {datasetId?, year?} or a year',
          );
        }
        const d = options.datasetId;
        const y = options.year;
        if (d !== undefined && d !== null) {
          if (typeof d !== 'string') throw new TypeErrorCtor('context.coefficient: options.datasetId must be a string');
          datasetId = d;
        }
        if (y !== undefined && y !== null) {
          // Years are stored as 4-byte integers: 1e300 or 2**53 would fail in the database.
          if (!isInteger(y) || y < 1 || y > 9999) {
            throw new TypeErrorCtor('context.coefficient: options.year must be an integer from 1 to 9999');
          }
          year = y;
        }
      }
      calls += 1;
      if (calls > maxCalls) {
        throw new ErrorCtor('context.coefficient may be called at most ' + maxCalls + ' times per calculation');
      }
      const found = await lookup(key, datasetId, year);
      return found === null ? null : parse(found);
    };
    const context = { year: given.year, periodUnit: given.periodUnit, site: given.site, coefficient };
    return apply(promiseThen, calculate(inputs, context), [(result) => finish(result, maxChars), fail]);
  };

  return { run, reset, verify };
})()`;

/** calcCode is the body of this function; the header is on calcCode's first line. */
export const CALC_HEADER = 'async function calculate(inputs, context) {';

/** The source text of the function calcCode is the body of. */
export function calcFunctionSource(calcCode: string): string {
  return `${CALC_HEADER}${calcCode}\n}`;
}

/** The file name QuickJS reports for calcCode in stack traces. */
export const CALC_FILE = 'calcCode';

/** Columns on calcCode's first line are shifted by `(` and the header. */
export const FIRST_LINE_SHIFT = 1 + CALC_HEADER.length;
