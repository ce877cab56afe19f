import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { createExportWorld, type ExportWorld } from '../../../test/helpers/export-world.ts';
import { API_PREFIX } from '../../app.ts';

// The values export reads forms, elements, units and locks once, and reviews, evidence and people
// per page (not per row in its statement): what the statement filtered by itself must still be
// left out, and the review still counts for `updatedSince`. (A world of its own: it is changed.)
const t = useTestApp();
let w: ExportWorld;

beforeAll(async () => {
  w = await createExportWorld(t);
}, 60_000);

async function csv(query: string): Promise<Record<string, string>[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `${API_PREFIX}/exports/values?year=2025${query}`,
    headers: { authorization: `Bearer ${w.tenant.owner.token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  const [header, ...rows] = parse(res.body, { bom: true }) as string[][];
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
}

async function valueIds(query: string): Promise<string[]> {
  const res = await t.app.inject({
    method: 'GET',
    url: `${API_PREFIX}/exports/values?year=2025${query}`,
    headers: { authorization: `Bearer ${w.tenant.owner.token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  const [header, ...rows] = parse(res.body, { bom: true }) as string[][];
  const id = header!.indexOf('valueId');
  return rows.map((r) => r[id]!).sort();
}

const all = () => Object.values(w.valueIds).sort();
const org = () => w.tenant.organizationId;

describe('the values export', () => {
  it('writes enteredAt as the instant in UTC to the millisecond (microseconds cut, as a Date would)', async () => {
    await t.database.system((tx) =>
      sql`update form_element_submissions set recorded_at = '2025-06-01 23:59:59.999999+02'
           where organization_id = ${org()} and id = ${w.valueIds.note}`.execute(tx),
    );
    const stored = await t.database.system((tx) =>
      sql<{ id: string; recorded_at: Date }>`select id, recorded_at from form_element_submissions
         where organization_id = ${org()}`.execute(tx),
    );
    const rows = await csv('');
    expect(rows.find((r) => r['valueId'] === w.valueIds.note)!['enteredAt']).toBe('2025-06-01T21:59:59.999Z');
    expect(rows).toHaveLength(stored.rows.length);
    for (const v of stored.rows)
      expect(rows.find((r) => r['valueId'] === v.id)!['enteredAt']).toBe(v.recorded_at.toISOString());
  });

  it('counts a review after the last write for updatedSince', async () => {
    // Every value written a day ago; the two reviews stay where they are (a few seconds ago).
    await t.database.system((tx) =>
      sql`update form_element_submissions set recorded_at = recorded_at - interval '1 day'
           where organization_id = ${org()}`.execute(tx),
    );
    const since = new Date(Date.now() - 3_600_000).toISOString();
    expect(await valueIds(`&updatedSince=${since}`)).toEqual(
      [w.valueIds.approved, w.valueIds.rejected].sort(),
    );
    expect(await valueIds(`&updatedSince=${'2025-01-01T00:00:00Z'}`)).toEqual(all());
  });

  it('leaves out the values of a deleted element, then of a deleted form', async () => {
    expect(await valueIds('')).toEqual(all());
    await t.database.system((tx) =>
      sql`update form_elements set deleted_at = now() where organization_id = ${org()} and id = ${w.elementId('note')}`.execute(
        tx,
      ),
    );
    expect(await valueIds('')).toEqual(all().filter((id) => id !== w.valueIds.note));
    await t.database.system((tx) =>
      sql`update forms set deleted_at = now() where organization_id = ${org()} and id = ${w.form.id}`.execute(
        tx,
      ),
    );
    expect(await valueIds('')).toEqual([]);
  });
});
