import { parentPort, workerData } from 'node:worker_threads';
import { CalculationError } from './calculation-error.ts';
import { checkSyntaxLocal, createLocalCalcRunner, type LocalCalcRunner } from './engine.ts';
import { DEFAULT_LIMITS } from './limits.ts';
import { type FromWorker, METER, type SerializedError, type ToWorker } from './protocol.ts';
import type { Coefficient, CoefficientLookup, SegmentMeter } from './session.ts';

/** The sandbox worker: runs calculations for the pool and reports its CPU use to the watchdog. */
if (!parentPort) throw new Error('the sandbox worker must run in a worker thread');
const port = parentPort;
const meterSlots = new BigInt64Array((workerData as { meter: SharedArrayBuffer }).meter);
const runners = new Map<number, Promise<LocalCalcRunner>>();
const lookups = new Map<
  number,
  { resolve: (found: Coefficient | null) => void; reject: (e: Error) => void }
>();
let nextLookupId = 1;

/** A lookup that failed in the service; the calculation fails with the service's own error. */
class HostLookupError extends Error {}

const post = (message: FromWorker) => port.postMessage(message);

function meterFor(requestId: number, budgetMs: number): SegmentMeter {
  return {
    start(cpuMs) {
      Atomics.store(meterSlots, METER.cpuMs, BigInt(Math.floor(cpuMs)));
      Atomics.store(meterSlots, METER.requestId, BigInt(requestId));
      Atomics.store(meterSlots, METER.budgetMs, BigInt(budgetMs));
      Atomics.store(meterSlots, METER.start, BigInt(Date.now()));
    },
    end() {
      Atomics.store(meterSlots, METER.start, 0n);
    },
  };
}

function remoteLookup(requestId: number): CoefficientLookup {
  return (key, options) =>
    new Promise((resolve, reject) => {
      const lookupId = nextLookupId++;
      lookups.set(lookupId, { resolve, reject });
      post({ type: 'lookup', requestId, lookupId, key, options });
    });
}

function serialize(error: unknown): SerializedError {
  if (error instanceof CalculationError) {
    return { kind: error.kind, message: error.message, line: error.line, column: error.column };
  }
  return { kind: 'host', message: error instanceof Error ? error.message : String(error) };
}

function reply(requestId: number, work: Promise<unknown>): void {
  work.then(
    (value) => post({ type: 'done', requestId, outcome: { ok: true, value } }),
    (error) => post({ type: 'done', requestId, outcome: { ok: false, error: serialize(error) } }),
  );
}

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'open': {
      const opening = createLocalCalcRunner(
        { calcCode: message.calcCode, metadataSchema: message.metadataSchema },
        {
          limits: message.limits,
          freshContextPerCall: message.freshContextPerCall,
          meter: meterFor(message.requestId, message.limits.cpuTimeMs),
        },
      );
      runners.set(message.runnerId, opening);
      reply(
        message.requestId,
        opening.then(() => null),
      );
      return;
    }
    case 'calculate': {
      const { requestId } = message;
      const opening = runners.get(message.runnerId);
      const work = opening
        ? opening.then((runner) =>
            runner.calculate(message.inputs, message.context, {
              lookup: remoteLookup(requestId),
              meter: meterFor(requestId, runner.limits.cpuTimeMs),
            }),
          )
        : Promise.reject(new Error('the calculation runner is not open'));
      reply(requestId, work);
      return;
    }
    case 'check':
      reply(
        message.requestId,
        checkSyntaxLocal(message.calcCode, meterFor(message.requestId, DEFAULT_LIMITS.cpuTimeMs)),
      );
      return;
    case 'close': {
      const opening = runners.get(message.runnerId);
      runners.delete(message.runnerId);
      opening?.then(
        (runner) => runner.dispose(),
        () => undefined,
      );
      return;
    }
    case 'lookup-result': {
      const waiting = lookups.get(message.lookupId);
      if (!waiting) return;
      lookups.delete(message.lookupId);
      const { outcome } = message;
      if (outcome.ok) waiting.resolve(outcome.value);
      else if (outcome.calculation) waiting.reject(new CalculationError('error', outcome.message));
      else waiting.reject(new HostLookupError(outcome.message));
      return;
    }
  }
});
