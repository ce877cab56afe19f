// The runtime of a custom activity form (issue 51), in a Worker that the sandboxed frame starts
// (frame.js). The frame builds the worker's script from this file and the definition's uiCode
// wrapped as `function component({ h, inputs, values, set, units, locale, t }) { … }`
// (SDCS_COMPONENT below). The component runs here, off the page's thread: a loop that never
// ends stops only this worker, which the frame ends. What it returns is sent to the frame as a
// plain tree (`{ tag, props, children }`, event handlers as numbers); the frame draws it.

export {};

declare const self: DedicatedWorkerGlobalScope;

/** A node of the component's tree, as `h` makes it. */
type Node = { tag: string; props: Record<string, unknown>; children: unknown[] };
/** What the component is given each time it runs. */
type Context = {
  inputs: unknown;
  values: unknown;
  set: (name: string, value: unknown) => void;
  units: unknown;
  locale: string;
  t: ReturnType<typeof formatter>;
};
type Handler = (event: object) => void;
/** The definition's uiCode, wrapped by the frame (frame.ts). */
declare const SDCS_COMPONENT: (context: Context & { h: typeof h }) => unknown;

const component = SDCS_COMPONENT;
const post = self.postMessage.bind(self);

let context: Context | null = null;
let handlers: Handler[] = [];

/** Hyperscript: a plain node; a function tag is a component of the component, called at once. */
function h(
  tag: string | ((props: object) => unknown),
  props: Record<string, unknown> | null,
  ...children: unknown[]
): unknown {
  if (typeof tag === 'function') return tag({ ...(props ?? {}), children });
  return { tag, props: props ?? {}, children };
}

const MAX_NODES = 2000;

/** `list.flat(Infinity)`, without the type that recursion gives. */
const flatten = (list: unknown[]): unknown[] => list.flatMap((n) => (Array.isArray(n) ? flatten(n) : [n]));

/** The tree as the frame gets it: strings, numbers and nodes; handlers become numbers. */
type Plain = string | { tag: string; props: Record<string, unknown>; children: Plain[] } | Plain[] | null;

function plain(node: unknown, count: { n: number }): Plain {
  if (node === null || node === undefined || node === false || node === true) return null;
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map((n) => plain(n, count)).filter((n) => n !== null);
  if (typeof node !== 'object' || typeof (node as Node).tag !== 'string') throw new Error('not a node');
  const tree = node as Node;
  if (++count.n > MAX_NODES) throw new Error('too many nodes');
  const props: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(tree.props)) {
    if (key === 'children') continue;
    if (typeof value === 'function') {
      if (/^on[A-Z]/.test(key)) props[key] = { handler: handlers.push(value as Handler) - 1 };
    } else if (value !== null && value !== undefined) {
      props[key] = typeof value === 'object' ? JSON.parse(JSON.stringify(value)) : value;
    }
  }
  const children = flatten(tree.children)
    .map((n) => plain(n, count))
    .filter((n) => n !== null);
  return { tag: tree.tag, props, children: flatten(children) as Plain[] };
}

const detail = (error: unknown) => String((error as Error | null)?.message ?? error).slice(0, 200);

function render() {
  if (!context) return;
  handlers = [];
  let tree: unknown;
  try {
    tree = component({ h, ...context });
  } catch (error) {
    return post({ type: 'failed', reason: 'threw', detail: detail(error) });
  }
  if (
    tree === null ||
    tree === undefined ||
    typeof tree !== 'object' ||
    typeof (tree as Node).tag !== 'string'
  )
    return post({ type: 'failed', reason: 'nothing' });
  try {
    post({ type: 'tree', tree: plain(tree, { n: 0 }) });
  } catch (error) {
    post({ type: 'failed', reason: 'unusable', detail: detail(error) });
  }
}

/** Numbers and dates in the person's locale. */
function formatter(locale: string) {
  return {
    number: (value: number, options?: Intl.NumberFormatOptions) =>
      new Intl.NumberFormat(locale, options).format(value),
    date: (value: string | number, options?: Intl.DateTimeFormatOptions) =>
      new Intl.DateTimeFormat(locale, { timeZone: 'UTC', ...options }).format(new Date(value)),
  };
}

self.onmessage = (event: MessageEvent) => {
  const message = event.data;
  if (message?.type === 'start') {
    const { inputs, values, units, locale } = message;
    const set = (name: string, value: unknown) => post({ type: 'set', name, value });
    context = { inputs, values, set, units, locale, t: formatter(locale) };
    render();
  } else if (message?.type === 'values' && context) {
    context = { ...context, values: message.values };
    render();
  } else if (message?.type === 'event' && context) {
    const handler = handlers[message.handler];
    if (!handler) return;
    const target = { ...message.target };
    try {
      handler({ type: message.event, target, currentTarget: target, key: message.key, preventDefault() {} });
    } catch (error) {
      post({ type: 'failed', reason: 'threw', detail: detail(error) });
    }
  }
};
post({ type: 'loaded' });
