import { expect } from 'vitest';
import {
  type CalcRunnerOptions,
  type CalculationContext,
  CalculationError,
  createCalcRunner,
} from '../../src/sandbox/index.ts';

export const context: CalculationContext = {
  year: 2025,
  periodUnit: 3,
  site: { id: 'site-1', name: 'Plant A', metadata: { region: 'north' } },
};

/** Runs calcCode once in a runner of its own. */
export async function run(calcCode: string, inputs: unknown = {}, options: CalcRunnerOptions = {}) {
  const runner = await createCalcRunner({ calcCode }, options);
  try {
    return await runner.calculate(inputs, context);
  } finally {
    runner.dispose();
  }
}

/** The CalculationError a calculation fails with (the test fails if it succeeds). */
export async function failure(calcCode: string, inputs: unknown = {}, options: CalcRunnerOptions = {}) {
  const error = await run(calcCode, inputs, options).then(
    (result) => new Error(`expected a failure, got ${JSON.stringify(result)}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CalculationError);
  return error as CalculationError;
}
