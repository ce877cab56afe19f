import { beforeAll, describe, expect, it } from 'vitest';
import { client, useTestApp } from '../../../test/helpers/app.ts';
import { buildSite, buildTenant } from '../../../test/helpers/builders.ts';
import { errorText } from '../../../test/helpers/errors.ts';
import type { Tenant } from '../../../test/helpers/factories.ts';

const t = useTestApp();
const http = client(t);
let tenant: Tenant;

beforeAll(async () => {
  tenant = await buildTenant(t);
});

const importCsv = (csvContent: string, token = tenant.owner.token, organizationId = tenant.organizationId) =>
  http.post('/sites/import', { token, body: { csvContent, organizationId } });

const sitesOf = async (token: string) => (await http.get('/sites', { token })).json();

describe('site import', () => {
  it('reads quotes, embedded commas and newlines, BOM, CRLF, address and metadata columns', async () => {
    const tn = await buildTenant(t);
    const csv =
      '\uFEFFname,code,parent,latitude,longitude,line1,address.city,Country,metadata.kind,metadata.Floor Area\r\n' +
      'Child,CH-1,HQ-1,48.85,2.35,"1 ""Main"" Street, Door 2",Paris,FR,office,\r\n' +
      '"Head\r\nQuarters",HQ-1,,,,,,,"group, global",1200\r\n';
    const res = await importCsv(csv, tn.owner.token, tn.organizationId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: 2, failed: 0, errors: [] });
    expect(res.body.logs).toEqual([
      'Row 1: created site "Child" (code CH-1) under "Head\r\nQuarters" (row 2)',
      'Row 2: created site "Head\r\nQuarters" (code HQ-1)',
      'Created 2 of 2 sites',
    ]);

    const [child, hq] = await sitesOf(tn.owner.token);
    expect(hq).toMatchObject({
      name: 'Head\r\nQuarters',
      code: 'HQ-1',
      parentId: null,
      metadata: { kind: 'group, global', 'Floor Area': '1200' },
      address: null,
    });
    expect(child).toMatchObject({
      name: 'Child',
      parentId: hq!.id,
      latitude: 48.85,
      longitude: 2.35,
      address: { line1: '1 "Main" Street, Door 2', city: 'Paris', country: 'FR' },
      metadata: { kind: 'office' },
    });
  });

  it('resolves parents by id, code or name, stored or in the file, and reports each failed row', async () => {
    const tn = await buildTenant(t);
    const stored = (await buildSite(t, { tenant: tn, name: 'Stored root', code: 'ROOT' })).id;
    await buildSite(t, { tenant: tn, name: 'Twin' });
    await buildSite(t, { tenant: tn, name: 'twin' });
    const csv = [
      'name,code,parent,latitude,longitude',
      `By id,,${stored},,`, // 1
      'By code,BC,root,,', // 2
      'By name,,Stored root,,', // 3
      'Orphan,,Nowhere,,', // 4: unknown parent
      'Grandchild,,Orphan,,', // 5: parent failed
      'Ambiguous,,Twin,,', // 6
      'Dup stored,root,,,', // 7: code already stored (other case)
      'Dup file,bc,,,', // 8: code used by row 2
      'Far north,,,91,', // 9
      'Not a number,,,,east', // 10
      'Loop A,LA,LB,,', // 11
      'Loop B,LB,LA,,', // 12
      'Self,SELF,self,,', // 13
      ',NONAME,,,', // 14
      '',
      'After blank,,BC,,', // 16 (the blank row 15 is skipped but counted)
    ].join('\n');
    const res = await importCsv(csv, tn.owner.token, tn.organizationId);
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([
      'Row 4: parent "Nowhere" not found',
      'Row 5: parent row 4 was not imported',
      'Row 6: parent "Twin" is ambiguous: 2 sites have that name; use a code or id',
      'Row 7: code "root" is already used by an existing site',
      'Row 8: code "bc" is already used by row 2',
      'Row 9: latitude 91 is outside -90..90',
      'Row 10: longitude "east" is not a number',
      'Row 11: parent references form a cycle (rows 11, 12)',
      'Row 12: parent references form a cycle (rows 11, 12)',
      'Row 13: a site cannot be its own parent',
      'Row 14: name is required',
    ]);
    expect(res.body).toMatchObject({ success: 4, failed: 11 });
    const sites = await sitesOf(tn.owner.token);
    const byName = new Map(sites.map((s) => [s.name, s]));
    expect(byName.get('By id')!.parentId).toBe(stored);
    expect(byName.get('By code')!.parentId).toBe(stored);
    expect(byName.get('By name')!.parentId).toBe(stored);
    expect(byName.get('After blank')!.parentId).toBe(byName.get('By code')!.id);
    expect(byName.has('Orphan')).toBe(false);
    expect(sites).toHaveLength(3 + 4);
  });

  it('imports 1,000 rows, reporting exactly which bad rows failed and why', async () => {
    const tn = await buildTenant(t);
    // Site n (1..1000) hangs under site max(1, n/10), and is written at row 1001 - n: every
    // parent is referenced before its row. Some rows are bad; their descendants fail with them.
    const rowOf = (n: number) => 1001 - n;
    const parentOf = (n: number) => (n === 1 ? null : Math.max(1, Math.floor(n / 10)));
    const lines: string[] = [];
    const failure = new Map<number, string>();
    for (let n = 1; n <= 1000; n++) {
      const parent = parentOf(n);
      const parentCell = parent === null ? '' : `S${parent}`;
      let line = `Site ${n},S${n},${parentCell},${(n % 180) - 90}`;
      if (n % 97 === 0) {
        line = `,S${n},${parentCell},`;
        failure.set(n, 'name is required');
      } else if (n % 101 === 0) {
        line = `Site ${n},S${n},${parentCell},-95`;
        failure.set(n, 'latitude -95 is outside -90..90');
      } else if (parent !== null && failure.has(parent)) {
        failure.set(n, `parent row ${rowOf(parent)} was not imported`);
      }
      lines[rowOf(n) - 1] = line;
    }
    const expected = [...failure.entries()]
      .sort((a, b) => rowOf(a[0]) - rowOf(b[0]))
      .map(([n, why]) => `Row ${rowOf(n)}: ${why}`);
    expect(expected.length).toBeGreaterThan(20);

    const res = await importCsv(
      `name,code,parent,latitude\n${lines.join('\n')}`,
      tn.owner.token,
      tn.organizationId,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual(expected);
    expect(res.body.failed).toBe(failure.size);
    expect(res.body.success).toBe(1000 - failure.size);
    const sites = await sitesOf(tn.owner.token);
    expect(sites).toHaveLength(1000 - failure.size);
    const byCode = new Map(sites.map((s) => [s.code, s]));
    expect(byCode.get('S250')!.parentId).toBe(byCode.get('S25')!.id);
    expect(byCode.has('S970')).toBe(false); // under S97
  });

  it('lets managers add only under sites they manage; top-level rows need an owner', async () => {
    const tn = await buildTenant(t);
    await buildSite(t, { tenant: tn, name: 'Mine', code: 'MINE', assign: ['manager'] });
    await buildSite(t, { tenant: tn, name: 'Hidden', code: 'HID' });
    const res = await importCsv(
      'name,parent\nUnder mine,MINE\nTop,\nUnder hidden,HID\n',
      tn.manager.token,
      tn.organizationId,
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toEqual([
      'Row 2: only owners can create top-level sites',
      'Row 3: parent "HID" not found',
    ]);
    expect(res.body.success).toBe(1);
  });

  it('refuses viewers and collectors (403), another organization’s id like any unknown body id (400)', async () => {
    for (const member of [tenant.viewer, tenant.collector]) {
      const res = await importCsv('name\nX\n', member.token);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    const other = await buildTenant(t);
    const res = await importCsv('name\nX\n', tenant.owner.token, other.organizationId);
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([
      { path: 'organizationId', message: expect.stringMatching(/own organization/) },
    ]);
    expect((await sitesOf(other.owner.token)).length).toBe(0);
  });

  it('rejects unreadable CSV and unusable headers as a whole (400)', async () => {
    const bad: Array<[string, RegExp]> = [
      ['code,parent\nX,Y\n', /no name column/],
      ['', /empty/],
      ['name,colour\nX,red\n', /Unknown column "colour"/],
      ['name,city,address.city\nX,a,b\n', /are the same/],
      ['name;code\nX;Y\n', /separated by commas/],
      ['name,code\n"Unclosed,1\n', /could not be read/],
    ];
    for (const [csv, message] of bad) {
      const res = await importCsv(csv);
      expect(res.status, csv).toBe(400);
      const text = [res.body.message, ...res.body.issues.map((i: { message: string }) => i.message)].join(
        ' ',
      );
      expect(text, csv).toMatch(message);
    }
    const missing = await http.post('/sites/import', {
      token: tenant.owner.token,
      body: { csvContent: 'name\nX\n' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.issues[0].path).toBe('organizationId');
  });

  it('accepts large bodies up to the import limit, and no more than 10,000 rows', async () => {
    const tn = await buildTenant(t);
    const padding = 'x'.repeat(1000);
    const rows = Array.from({ length: 1500 }, (_, i) => `Big ${i},${padding}`);
    const big = `name,metadata.note\n${rows.join('\n')}\n`;
    expect(big.length).toBeGreaterThan(t.config.bodyLimitBytes);
    const res = await importCsv(big, tn.owner.token, tn.organizationId);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(1500);

    const tooMany = await importCsv(`name\n${'a\n'.repeat(10_001)}`, tn.owner.token, tn.organizationId);
    expect(tooMany.status).toBe(400);
    expect(errorText(tooMany.body)).toMatch(/at most 10000/);

    const tooBig = await importCsv('name\n' + 'y'.repeat(t.config.largeBodyLimitBytes), tn.owner.token);
    expect(tooBig.status).toBe(413);
  });

  it('answers with header-only CSV as an empty import', async () => {
    const res = await importCsv('name,code\r\n');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: 0, failed: 0, errors: [], logs: ['Created 0 of 0 sites'] });
  });
});
