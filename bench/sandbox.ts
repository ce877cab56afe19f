// Calculations per second in the calcCode sandbox, for a trivial calcCode and a realistic one
// (a factor chosen by fuel type, a coefficient lookup, metadata checked against a schema):
// - in this thread: a fresh QuickJS runtime per calculation, a reused runtime with a fresh
//   context per calculation, and one reused context reset between calculations;
// - as the service runs them, in the sandbox worker: one call at a time, and 1,000 in flight.
// `npm run bench -- sandbox`
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createLocalCalcRunner } from '../src/sandbox/engine.ts';
import {
  type CalcDefinition,
  type CalculationContext,
  createCalcRunner,
  shutdownSandbox,
} from '../src/sandbox/index.ts';
import { median } from './lib.ts';

const RUNS = 5;
const context: CalculationContext = {
  year: 2025,
  periodUnit: 1,
  site: { id: 's1', name: 'Plant', metadata: {} },
};

const trivial: CalcDefinition = { calcCode: 'return inputs.a * 2' };
const realistic: CalcDefinition = {
  calcCode: `
    const factors = { diesel: 2.68, petrol: 2.31, lpg: 1.51 };
    const fallback = factors[inputs.fuel];
    if (fallback === undefined) throw new Error('unknown fuel ' + inputs.fuel);
    const found = await context.coefficient('fuel.' + inputs.fuel, { year: context.year });
    const factor = found ? found.value : fallback;
    return {
      value: inputs.litres * factor,
      metadata: { fuel: inputs.fuel, factor, unit: found ? found.unit : 'kgCO2e/L', source: found ? 'dataset' : 'default' },
    };`,
  metadataSchema: {
    type: 'object',
    required: ['fuel', 'factor'],
    properties: { fuel: { type: 'string' }, factor: { type: 'number' }, unit: { type: 'string' } },
  },
};
const coefficient = async (key: string) => (key === 'fuel.diesel' ? { value: 2.7, unit: 'kgCO2e/L' } : null);
const inputsOf = (i: number) => ({ a: i, litres: i % 500, fuel: ['diesel', 'petrol', 'lpg'][i % 3] });

/** Calculations per second over `n` calls of `calc`, median of RUNS runs. */
async function rate(n: number, calc: (i: number) => Promise<unknown>, inFlight = 1): Promise<number> {
  for (let i = 0; i < Math.min(n, 200); i++) await calc(i);
  const rates: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    for (let i = 0; i < n; i += inFlight) {
      await Promise.all(Array.from({ length: Math.min(inFlight, n - i) }, (_, k) => calc(i + k)));
    }
    rates.push(n / ((performance.now() - started) / 1000));
  }
  return median(rates);
}

async function measure(label: string, definition: CalcDefinition) {
  const rows: [string, number][] = [];
  rows.push([
    'fresh runtime per calculation (in thread)',
    await rate(300, async (i) => {
      const runner = await createLocalCalcRunner(definition);
      try {
        return await runner.calculate(inputsOf(i), context, { lookup: coefficient });
      } finally {
        runner.dispose();
      }
    }),
  ]);
  const fresh = await createLocalCalcRunner(definition, { freshContextPerCall: true });
  rows.push([
    'reused runtime, fresh context (in thread)',
    await rate(300, (i) => fresh.calculate(inputsOf(i), context, { lookup: coefficient })),
  ]);
  fresh.dispose();
  const reused = await createLocalCalcRunner(definition);
  rows.push([
    'reused context, reset between calls (in thread)',
    await rate(20_000, (i) => reused.calculate(inputsOf(i), context, { lookup: coefficient })),
  ]);
  reused.dispose();
  const worker = await createCalcRunner(definition, { coefficient });
  rows.push([
    'sandbox worker, one call at a time',
    await rate(5_000, (i) => worker.calculate(inputsOf(i), context)),
  ]);
  rows.push([
    'sandbox worker, 1,000 calls in flight',
    await rate(20_000, (i) => worker.calculate(inputsOf(i), context), 1_000),
  ]);
  worker.dispose();
  console.log(`\n${label}`);
  for (const [mode, perSecond] of rows) console.log(`  ${mode.padEnd(50)} ${Math.round(perSecond)} /s`);
}

console.log(
  `load average before: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
await measure('trivial: return inputs.a * 2', trivial);
await measure('realistic: factor by fuel, coefficient lookup, metadata + schema', realistic);
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
await shutdownSandbox();
