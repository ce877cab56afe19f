import type { Tx } from '../../db/client.ts';
import type { Caller } from '../../domain/caller.ts';
import { invalidField } from '../../domain/errors.ts';
import { presentUnit } from './units.present.ts';
import { unitsRepository as repo } from './units.repository.ts';

export async function listUnits(tx: Tx, caller: Caller) {
  return (await repo.list(tx, caller.organizationId)).map(presentUnit);
}

const isUniqueViolation = (error: unknown) => (error as { code?: string })?.code === '23505';

/** Adds a unit of the organization; its symbol may not repeat one it can already see. */
export async function createUnit(
  tx: Tx,
  caller: Caller,
  input: { symbol: string; name: string; dimension: string; factorToBase: number },
) {
  const clash = await repo.findBySymbol(tx, caller.organizationId, input.symbol);
  const taken = () =>
    invalidField(
      'symbol',
      clash.some((u) => u.organization_id === null)
        ? `symbol "${input.symbol}" is a catalog unit`
        : `symbol "${input.symbol}" is already a unit of this organization`,
    );
  if (clash.length > 0) throw taken();
  try {
    return presentUnit(await repo.insert(tx, caller.organizationId, input));
  } catch (error) {
    if (isUniqueViolation(error)) throw taken(); // added concurrently
    throw error;
  }
}
