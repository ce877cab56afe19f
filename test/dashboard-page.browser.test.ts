import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardView, SeriesPoint } from '../src/domain/dashboards.ts';
import { readOutbox } from '../src/mail/outbox.ts';
import { registerDashboardPage } from '../src/modules/dashboard-page/dashboard-page.ts';
import { api, useTestApp } from './helpers/app.ts';
import { collectErrors, hasChromium, launchChromium, NO_CHROMIUM } from './helpers/browser.ts';
import { activateForm, createForm, createSite, createTenant } from './helpers/factories.ts';
import { createIndicatorWorld, el } from './helpers/indicator-world.ts';

// The dashboard page in a real browser (Debian's Chromium through playwright-core). This part
// serves the page over a stub of the public dashboards API, to check what the page draws from a
// known view (every widget type, the gate's answers, the site filter, escaping).

const ID = '11111111-1111-4111-8111-111111111111';
const MONTHS = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06'];
const LABELS = ['Jan 2026', 'Feb 2026', 'Mar 2026', 'Apr 2026', 'May 2026', 'Jun 2026'];
const XSS_NAME = '<script>window.__xss = 1</script> Energy';
// The service's (English) sentence for a target it cannot draw from its baseline.
const BASELINE_NOTE =
  'Reduce 10% for Electricity: Electricity has no value in its baseline year 2025, so the path from the baseline is not drawn (only the target years)';
const XSS_TITLE = '<img src=x onerror="window.__xss = 2"> Monthly table';

const points = (values: (number | null)[]): SeriesPoint[] =>
  values.map((value, i) => ({
    period: MONTHS[i]!,
    label: LABELS[i]!,
    value,
    formatted: value === null ? null : `${value.toLocaleString('en-US')} kWh`,
  }));
const total = (value: number): SeriesPoint => ({
  period: '2026',
  label: '2026',
  value,
  formatted: `${value.toLocaleString('en-US')} kWh`,
});
const widget = (id: string, type: 'VALUE' | 'LINE' | 'BAR' | 'TABLE', title: string, config = {}) => ({
  id,
  dashboardId: ID,
  type,
  title,
  indicatorIds: ['i1'],
  config,
  position: Number(id.slice(1)),
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
});
const electricity = {
  indicatorId: 'i1',
  name: 'Electricity',
  unit: 'kWh',
  total: total(8400),
  points: points([1500, 1400, 1450, 1350, 1300, 1400]),
  targets: [
    {
      targetId: 't1',
      name: 'Reduce 10%',
      type: 'ABSOLUTE' as const,
      points: points([1350, 1350, 1350, 1350, 1350, 1350]),
    },
  ],
  issues: [],
};
const VIEW: DashboardView = {
  dashboard: {
    id: ID,
    name: XSS_NAME,
    description: 'Monthly electricity use across our sites.',
    isPublic: true,
    publicCanFilterSites: true,
    hasPassword: true,
    requiresEmail: false,
    globalFilter: {},
    widgetTheme: {
      customColors: ['#0f766e', '#2563eb'],
      aggregateLines: { totalColor: '#111827', totalLineStyle: 'dashed', averageLineStyle: 'dotted' },
    },
    tags: [],
    updatedAt: '2026-11-01T00:00:00.000Z',
  },
  widgets: [
    widget('w1', 'VALUE', 'Electricity, year to date'),
    widget('w2', 'LINE', 'Electricity per month', { period: 'MONTHLY', showTarget: true }),
    widget('w3', 'BAR', 'Electricity by site', { period: 'MONTHLY', sites: 'BREAKDOWN' }),
    widget('w4', 'TABLE', XSS_TITLE, { period: 'MONTHLY', showTarget: true, decimals: 1 }),
  ],
  data: [
    { widgetId: 'w1', series: [{ ...electricity, points: [], targets: [] }], issues: [] },
    {
      widgetId: 'w2',
      series: [electricity],
      issues: [
        {
          type: 'targetBaselineMissing',
          message: BASELINE_NOTE,
          indicatorId: 'i1',
          targetId: 't1',
        },
      ],
    },
    {
      widgetId: 'w3',
      series: [
        {
          ...electricity,
          siteId: 's1',
          siteName: 'Berlin',
          total: total(4800),
          points: points([900, 800, 850, 750, 700, 800]),
          targets: [],
        },
        {
          ...electricity,
          siteId: 's2',
          siteName: 'Lyon',
          total: total(3000),
          points: points([600, 600, 600, 600, 600, null]),
          targets: [],
          issues: [{ type: 'MISSING_VALUES', message: 'Lyon has no value for Jun 2026' }],
        },
      ],
      issues: [],
    },
    { widgetId: 'w4', series: [electricity], issues: [] },
  ],
  sites: [
    { id: 's1', name: 'Berlin' },
    { id: 's2', name: 'Lyon' },
  ],
  computedAt: '2026-11-23T10:00:00.000Z',
};

/** The stub API: a password gate (`secret`), the view to a bearer of `granted-token`. */
let stub: FastifyInstance;
let base = '';
const viewQueries: Record<string, unknown>[] = [];
let accessAnswer: { status: number; body: unknown; headers?: Record<string, string> } | null = null;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!hasChromium) return;
  stub = Fastify();
  registerDashboardPage(stub, {
    apiPrefix: '/api/v1',
    publicUrl: 'https://sdcs.example.org',
    lookup: async (id) =>
      id === ID
        ? { id, name: XSS_NAME, description: null, requiresPassword: true, requiresEmail: false }
        : null,
  });
  stub.get<{ Params: { id: string } }>('/api/v1/public/dashboards/:id', async (request, reply) => {
    viewQueries.push({ ...(request.query as object) });
    if (request.headers.authorization !== 'Bearer granted-token') {
      return reply.code(401).send({
        code: 'UNAUTHORIZED',
        message: 'This dashboard is protected',
        issues: [],
        requiresPassword: true,
        requiresEmail: false,
      });
    }
    return VIEW;
  });
  stub.post<{ Body: { password?: string } }>(
    '/api/v1/public/dashboards/:id/access',
    async (request, reply) => {
      if (accessAnswer) {
        return reply
          .code(accessAnswer.status)
          .headers(accessAnswer.headers ?? {})
          .send(accessAnswer.body);
      }
      if (request.body.password !== 'secret') {
        return reply.code(401).send({ code: 'UNAUTHORIZED', message: 'Wrong password', issues: [] });
      }
      return { accessToken: 'granted-token', expiresAt: '2026-11-24T10:00:00.000Z' };
    },
  );
  base = await stub.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await stub?.close();
});

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The page's axe-core violations (WCAG 2.1 A and AA, contrast included), as "rule: elements". */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await (window as any).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map(
      (v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`,
    ) as string[];
  });
}

/** `Chart.getChart(canvas).data` of the widget's chart, as plain data. */
const chartData = (page: Page, widgetId: string) =>
  page.evaluate((id) => {
    const canvas = document.querySelector(`[data-widget-id="${id}"] canvas`) as HTMLCanvasElement;
    const chart = (window as any).Chart.getChart(canvas);
    return {
      type: chart.config.type as string,
      labels: chart.data.labels as string[],
      datasets: chart.data.datasets.map((d: any) => ({
        label: d.label,
        type: d.type,
        data: d.data,
        borderDash: d.borderDash ?? [],
        borderColor: d.borderColor,
      })) as {
        label: string;
        type: string;
        data: (number | null)[];
        borderDash: number[];
        borderColor: string;
      }[],
    };
  }, widgetId);

describe.skipIf(!hasChromium)(
  `the dashboard page over a stub API (${hasChromium ? 'Chromium' : NO_CHROMIUM})`,
  () => {
    it('asks for the password, keeps the token in sessionStorage and draws every widget type', async () => {
      const page = await browser!.newPage({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
      const errors = collectErrors(page);
      await page.goto(`${base}/d/${ID}`);
      // A protected dashboard without a token: the gate at once, without asking for the view.
      await page.waitForSelector('#gate:not([hidden])');
      expect(viewQueries).toHaveLength(0);
      expect(await page.isVisible('#gate-password')).toBe(true);
      expect(await page.isVisible('#gate-email')).toBe(false);
      expect(await axeViolations(page), 'the gate').toEqual([]);

      await page.fill('#gate-password', 'wrong');
      await page.click('#gate-submit');
      await page.waitForSelector('#gate-error:not([hidden])');
      expect(await page.textContent('#gate-error')).toBe('Wrong password');
      expect(await axeViolations(page), 'the gate with its error').toEqual([]);

      await page.fill('#gate-password', 'secret');
      await page.click('#gate-submit');
      await page.waitForSelector('body[data-rendered="true"]');
      expect(await page.isVisible('#gate')).toBe(false);
      expect(
        await page.evaluate(() =>
          sessionStorage.getItem(`sdcs.dashboard.${document.body.dataset.dashboardId}`),
        ),
      ).toBe('granted-token');

      // Names and titles are text, never markup.
      expect(await page.textContent('#dashboard-name')).toBe(XSS_NAME);
      expect(await page.textContent('[data-widget-id="w4"] h2')).toBe(XSS_TITLE);
      expect(await page.evaluate(() => (window as any).__xss)).toBeUndefined();
      expect(await page.title()).toBe(`${XSS_NAME} · SDCS`);

      // VALUE: the total, formatted with its unit.
      expect(await page.textContent('[data-widget-id="w1"] .kpi-value')).toBe('8,400 kWh');
      expect(await page.textContent('[data-widget-id="w1"] .kpi-label')).toBe('Electricity');

      // LINE: the series, then its target as a dashed line in the series' color.
      const line = await chartData(page, 'w2');
      expect(line.type).toBe('line');
      expect(line.labels).toEqual(LABELS);
      expect(line.datasets).toEqual([
        {
          label: 'Electricity',
          type: 'line',
          data: [1500, 1400, 1450, 1350, 1300, 1400],
          borderDash: [],
          borderColor: '#0f766e',
        },
        {
          label: 'Reduce 10% (target)',
          type: 'line',
          data: [1350, 1350, 1350, 1350, 1350, 1350],
          borderDash: [6, 4],
          borderColor: '#0f766e',
        },
      ]);

      // BAR by site (two sites, six months): one dataset per site, named by it, in the theme's colors, then the total (sum over the sites,
      // dashed, the theme's total color) and the average (mean of the sites with a value, dotted).
      const bar = await chartData(page, 'w3');
      expect(bar.type).toBe('bar');
      expect(bar.datasets).toEqual([
        {
          label: 'Berlin',
          type: 'bar',
          data: [900, 800, 850, 750, 700, 800],
          borderDash: [],
          borderColor: '#0f766e',
        },
        {
          label: 'Lyon',
          type: 'bar',
          data: [600, 600, 600, 600, 600, null],
          borderDash: [],
          borderColor: '#2563eb',
        },
        {
          label: 'Electricity · Total',
          type: 'line',
          data: [1500, 1400, 1450, 1350, 1300, 800],
          borderDash: [8, 4],
          borderColor: '#111827',
        },
        {
          label: 'Electricity · Average',
          type: 'line',
          data: [750, 700, 725, 675, 650, 800],
          borderDash: [2, 3],
          borderColor: '#6b7785',
        },
      ]);
      expect(await page.textContent('[data-widget-id="w3"] .notes')).toBe('Lyon has no value for Jun 2026');
      // An English page shows the service's sentences as they are.
      expect(await page.textContent('[data-widget-id="w2"] .notes')).toBe(BASELINE_NOTE);

      // TABLE: periods as rows, the series and its target as columns, as the API formatted them.
      const rows = await page.$$eval('[data-widget-id="w4"] tr', (trs) =>
        trs.map((tr) => [...tr.children].map((cell) => cell.textContent)),
      );
      expect(rows[0]).toEqual(['Period', 'Electricity', 'Reduce 10% (target)']);
      expect(rows[1]).toEqual(['Jan 2026', '1,500 kWh', '1,350 kWh']);
      expect(rows).toHaveLength(7);

      // The site filter lists the view's sites.
      const options = await page.$$eval('#site-filter option', (os) => os.map((o) => o.textContent));
      expect(options).toEqual(['All sites', 'Berlin', 'Lyon']);
      // Every widget type drawn, and the page still passes axe.
      expect(await axeViolations(page), 'the dashboard').toEqual([]);
      // No other console error (a CSP refusal would be one) than the wrong password's 401.
      expect(errors).toEqual([
        'Failed to load resource: the server responded with a status of 401 (Unauthorized)',
      ]);
      await page.close();
    });

    it('asks again with siteIds when a site is picked', async () => {
      const page = await browser!.newPage({ locale: 'en-US' });
      await page.goto(`${base}/d/${ID}`);
      await page.fill('#gate-password', 'secret');
      await page.click('#gate-submit');
      await page.waitForSelector('body[data-rendered="true"]');
      viewQueries.length = 0;
      const asked = page.waitForResponse((r) => r.url().includes('siteIds='));
      await page.selectOption('#site-filter', 's2');
      await asked;
      expect(viewQueries).toEqual([{ siteIds: 's2' }]);
      await page.close();
    });

    it('says when the gate refuses an address or too many attempts', async () => {
      const page = await browser!.newPage({ locale: 'en-US' });
      await page.goto(`${base}/d/${ID}`);
      accessAnswer = {
        status: 429,
        headers: { 'retry-after': '30' },
        body: { code: 'RATE_LIMITED', message: 'Too many requests', issues: [] },
      };
      await page.fill('#gate-password', 'secret');
      await page.click('#gate-submit');
      await page.waitForSelector('#gate-error:not([hidden])');
      expect(await page.textContent('#gate-error')).toBe('Too many attempts. Try again in 30 seconds.');
      accessAnswer = {
        status: 400,
        body: {
          code: 'VALIDATION_ERROR',
          message: 'Invalid request',
          issues: [{ path: 'password', message: 'too long' }],
        },
      };
      await page.click('#gate-submit');
      await page.waitForFunction(() =>
        document.getElementById('gate-error')?.textContent?.includes('too long'),
      );
      expect(await page.textContent('#gate-error')).toBe('Invalid request too long');
      accessAnswer = null;
      await page.close();
    });

    it('speaks the viewer’s language (the browser’s, or ?lang=): texts, numbers, months and plurals', async () => {
      const german = await browser!.newPage({ locale: 'de-DE', viewport: { width: 1280, height: 900 } });
      const errors = collectErrors(german);
      await german.goto(`${base}/d/${ID}`);
      await german.waitForSelector('#gate:not([hidden])');
      expect(await german.getAttribute('html', 'lang')).toBe('de');
      expect(await german.textContent('#gate-title')).toBe('Dieses Dashboard ist geschützt');
      expect(await german.textContent('#gate-intro')).toBe(
        'Geben Sie das Passwort ein, das Sie erhalten haben.',
      );
      expect(await axeViolations(german), 'the German gate').toEqual([]);
      await german.fill('#gate-password', 'secret');
      await german.click('#gate-submit');
      await german.waitForSelector('body[data-rendered="true"]');
      expect(await german.textContent('[data-widget-id="w1"] .kpi-value')).toBe('8.400 kWh');
      const germanLine = await chartData(german, 'w2');
      expect(germanLine.labels[2]).toBe('März 2026');
      expect(germanLine.datasets[1]!.label).toBe('Reduce 10% (Ziel)');
      expect(await german.textContent('[data-widget-id="w4"] th')).toBe('Zeitraum');
      expect(await german.textContent('#computed-at')).toMatch(/^Stand der Zahlen: /);
      expect(await german.textContent('label[for="site-filter"]')).toBe('Standort');
      // A note of a known type in German, naming the target and the indicator from the page's
      // data (decision 230); one of a type the page does not know keeps the service's sentence.
      expect(await german.textContent('[data-widget-id="w2"] .notes')).toBe(
        'Reduce 10% (Electricity): Im Basisjahr gibt es keinen Wert, daher wird der Pfad ab dem Basisjahr nicht gezeichnet.',
      );
      expect(await german.textContent('[data-widget-id="w3"] .notes')).toBe('Lyon has no value for Jun 2026');
      expect(await axeViolations(german), 'the German dashboard').toEqual([]);
      mkdirSync(OUTPUT, { recursive: true });
      await german.screenshot({ path: join(OUTPUT, 'dashboard-page-de.png'), fullPage: true });
      expect(errors).toEqual([]);
      await german.close();

      // ?lang= wins over the browser; Polish plurals by the library (5 minut, 2 minuty).
      const polish = await browser!.newPage({ locale: 'de-DE' });
      await polish.goto(`${base}/d/${ID}?lang=pl`);
      await polish.waitForSelector('#gate:not([hidden])');
      expect(await polish.getAttribute('html', 'lang')).toBe('pl');
      expect(await polish.textContent('#gate-submit')).toBe('Otwórz pulpit');
      for (const [seconds, text] of [
        ['300', 'Zbyt wiele prób. Spróbuj ponownie za 5 minut.'],
        ['120', 'Zbyt wiele prób. Spróbuj ponownie za 2 minuty.'],
      ] as const) {
        accessAnswer = {
          status: 429,
          headers: { 'retry-after': seconds },
          body: { code: 'RATE_LIMITED', message: '', issues: [] },
        };
        await polish.fill('#gate-password', 'secret');
        await polish.click('#gate-submit');
        await polish.waitForFunction(
          (want) => document.getElementById('gate-error')?.textContent === want,
          text,
        );
      }
      accessAnswer = null;
      // The service's refusal is English ("Wrong password"): the page says it in Polish.
      await polish.fill('#gate-password', 'wrong');
      await polish.click('#gate-submit');
      await polish.waitForFunction(
        (want) => document.getElementById('gate-error')?.textContent === want,
        'Hasło lub kod są nieprawidłowe.',
      );
      await polish.screenshot({ path: join(OUTPUT, 'dashboard-page-pl-gate.png'), fullPage: true });
      await polish.close();
    });

    it('answers an unknown dashboard with the not-found page', async () => {
      const page = await browser!.newPage();
      const res = await page.goto(`${base}/d/33333333-3333-4333-8333-333333333333`);
      expect(res?.status()).toBe(404);
      expect(await page.textContent('h1')).toBe('Dashboard not found');
      expect(await axeViolations(page), 'not found').toEqual([]);
      await page.close();
    });
  },
);

// The page on the real service (in-process, listening on a port, over this run's engine): a
// dashboard seeded through the API, protected by a password and an e-mail domain, opened in
// Chromium through both gates, its charts checked against hand-computed figures.
const OUTPUT = join(import.meta.dirname, '..', 'test-output');

describe.skipIf(!hasChromium)(
  `the dashboard page on the service (${hasChromium ? 'Chromium' : NO_CHROMIUM})`,
  () => {
    const t = useTestApp({ dataDir: join(tmpdir(), `sdcs-dashboard-page-${process.pid}-${Date.now()}`) });
    const PASSWORD = 'plant one figures';
    let origin = '';
    let dashboardId = '';
    let token = '';

    beforeAll(async () => {
      origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
      // The indicator world's plant 1 (with line 1 below it), electricity in kWh, 2025:
      // Jan 100, Feb 200 + 50 (line 1), Mar 300, Apr 400: 1,050 kWh in all.
      const w = await createIndicatorWorld(t);
      token = w.tenant.owner.token;
      const indicator = await w.create({
        name: 'Electricity',
        unitId: w.units['kWh'],
        expressionParts: [el(w.element.elec)],
      });
      if (indicator.status !== 200) throw new Error(JSON.stringify(indicator.body));
      const target = await api(t, 'POST', '/targets', {
        token,
        body: {
          indicatorId: indicator.body.id,
          title: 'Cut 10%',
          targetEntries: [1, 2, 3, 4].map((month) => ({ year: 2025, month, targetValue: 270 })),
        },
      });
      if (target.status !== 200) throw new Error(JSON.stringify(target.body));
      const dashboard = await api(t, 'POST', '/dashboards', {
        token,
        body: {
          name: 'Plant 1 energy <2025>',
          description: 'Electricity of plant 1 and its lines',
          isPublic: true,
          password: PASSWORD,
          publicAccessDomains: ['example.com'],
          globalFilter: {
            siteIds: [w.sites.plant1],
            startYear: 2025,
            endYear: 2025,
            statuses: ['COMPLETED', 'APPROVED'],
          },
          widgetTheme: { customColors: ['#0f766e', '#2563eb'] },
        },
      });
      if (dashboard.status !== 200) throw new Error(JSON.stringify(dashboard.body));
      dashboardId = dashboard.body.id;
      for (const widget of [
        { type: 'VALUE', title: 'Electricity in 2025', indicatorIds: [indicator.body.id] },
        {
          type: 'LINE',
          title: 'Electricity per month',
          indicatorIds: [indicator.body.id],
          config: { period: 'MONTHLY', showTarget: true },
        },
      ]) {
        const res = await api(t, 'POST', `/dashboards/${dashboardId}/widgets`, { token, body: widget });
        if (res.status !== 200) throw new Error(JSON.stringify(res.body));
      }
    }, 60_000);

    it('opens through the password and the e-mail code, and draws the figures', async () => {
      const context = await browser!.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const errors = collectErrors(page);
      await page.goto(`${origin}/d/${dashboardId}`);
      expect(await page.title()).toBe('Plant 1 energy <2025> · SDCS');
      await page.waitForSelector('#gate:not([hidden])');
      expect(await page.isVisible('#gate-password')).toBe(true);
      expect(await page.isVisible('#gate-email')).toBe(true);

      // An address outside the allowed domain is refused.
      await page.fill('#gate-password', PASSWORD);
      await page.fill('#gate-email', 'someone@elsewhere.org');
      await page.click('#gate-submit');
      await page.waitForSelector('#gate-error:not([hidden])');

      const email = 'analyst@example.com';
      await page.fill('#gate-email', email);
      await page.click('#gate-submit');
      await page.waitForSelector('#code-form:not([hidden])');
      expect(await page.textContent('#code-intro')).toContain(`We sent a code to ${email}.`);
      expect(await axeViolations(page), 'the e-mail code').toEqual([]);
      const mails = (await readOutbox(join(t.config.dataDir, 'outbox'))).filter((m) => m.to === email);
      expect(mails).toHaveLength(1);
      const code = /\b(\d{6})\b/.exec(mails[0]!.text)?.[1];
      expect(code).toBeDefined();
      await page.fill('#gate-code', code!);
      await page.click('#code-submit');
      await page.waitForSelector('body[data-rendered="true"]');
      expect(await page.isVisible('#gate')).toBe(false);
      expect(await page.textContent('#dashboard-description')).toBe('Electricity of plant 1 and its lines');

      // VALUE: 100 + 250 + 300 + 400 = 1,050 kWh.
      const value = page.locator('.widget-value .kpi-value');
      expect(await value.getAttribute('data-value')).toBe('1050');
      expect(await value.textContent()).toBe('1,050 kWh');

      // LINE, monthly: the months with values, and the target (270 a month) as a dashed line.
      const line = await chartData(page, (await page.getAttribute('.widget-line', 'data-widget-id'))!);
      const byMonth = (data: (number | null)[]) =>
        Object.fromEntries(line.labels.map((label, i) => [label, data[i]]).filter(([, v]) => v !== null));
      expect(line.datasets).toHaveLength(2);
      expect(line.datasets[0]).toMatchObject({
        label: 'Electricity',
        borderDash: [],
        borderColor: '#0f766e',
      });
      expect(byMonth(line.datasets[0]!.data)).toEqual({
        'Jan 2025': 100,
        'Feb 2025': 250,
        'Mar 2025': 300,
        'Apr 2025': 400,
      });
      expect(line.datasets[1]).toMatchObject({
        label: 'Cut 10% (target)',
        borderDash: [6, 4],
        borderColor: '#0f766e',
      });
      expect(byMonth(line.datasets[1]!.data)).toEqual({
        'Jan 2025': 270,
        'Feb 2025': 270,
        'Mar 2025': 270,
        'Apr 2025': 270,
      });
      expect(errors.filter((e) => !/status of (401|403)/.test(e))).toEqual([]);

      // The tab keeps its grant: a reload draws the dashboard again without the gate.
      await page.reload();
      await page.waitForSelector('body[data-rendered="true"]');
      expect(await page.isVisible('#gate')).toBe(false);
      expect(await page.textContent('.widget-value .kpi-value')).toBe('1,050 kWh');
      expect(await axeViolations(page), 'the dashboard on the service').toEqual([]);

      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'dashboard.png'), fullPage: true });

      // On a phone: one column, nothing wider than the screen, the chart drawn at its width.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForFunction(() => {
        const canvas = document.querySelector('.widget-line canvas') as HTMLCanvasElement;
        return canvas.getBoundingClientRect().width < 390;
      });
      const layout = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        cards: [...document.querySelectorAll('.widget')].map((c) => c.getBoundingClientRect().width),
      }));
      expect(layout.scrollWidth).toBeLessThanOrEqual(390);
      for (const width of layout.cards) expect(width).toBeLessThan(390);
      await page.screenshot({ path: join(OUTPUT, 'dashboard-phone.png'), fullPage: true });
      await context.close();
    });

    it('answers 404 once the dashboard is deleted', async () => {
      const res = await api(t, 'DELETE', `/dashboards/${dashboardId}`, { token });
      expect(res.status).toBe(200);
      const page = await browser!.newPage();
      const answer = await page.goto(`${origin}/d/${dashboardId}`);
      expect(answer?.status()).toBe(404);
      expect(await page.textContent('h1')).toBe('Dashboard not found');
      await page.close();
    });
  },
);

// A manufacturer's view on the real service: 12 plants under one group (a CHILDREN breakdown)
// and a -42 % 2030 target drawn as a glide path from the 2024 baseline, on a desktop and on a
// 360 px phone. Screenshots: test-output/breakdown-desktop.png, test-output/breakdown-phone.png.
const PLANTS = [
  'Lyon (FR)',
  'Grenoble (FR)',
  'Saint-Quentin-en-Yvelines (FR)',
  'Lille (FR)',
  'Hamburg (DE)',
  'München (DE)',
  'Köln (DE)',
  'Leipzig (DE)',
  'Porto (PT)',
  'Lisboa (PT)',
  'Braga (PT)',
  'Coimbra (PT)',
];

describe.skipIf(!hasChromium)(
  `a 12-plant breakdown and a 2024-2030 glide path (${hasChromium ? 'Chromium' : NO_CHROMIUM})`,
  () => {
    const t = useTestApp({ dataDir: join(tmpdir(), `sdcs-dashboard-12-${process.pid}-${Date.now()}`) });
    let origin = '';
    let dashboardId = '';
    const ids = { path: '', bars: '', lines: '', table: '' };

    beforeAll(async () => {
      origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const tenant = await createTenant(t);
      const token = tenant.owner.token;
      const org = tenant.organizationId;
      const group = await createSite(t, org, { name: 'Manufacturing' });
      const plants: string[] = [];
      for (const name of PLANTS) plants.push(await createSite(t, org, { name, parentId: group }));
      const kwh = await t.database.system((tx) =>
        tx
          .selectFrom('units')
          .select('id')
          .where('symbol', '=', 'kWh')
          .where('organization_id', 'is', null)
          .executeTakeFirstOrThrow(),
      );
      const form = await createForm(t, tenant, {
        periodType: 'MONTHLY',
        elements: [{ key: 'elec', label: 'Electricity', type: 'NUMBER', unitId: kwh.id }],
      });
      await activateForm(t, tenant, form.id, [group, ...plants], [2024, 2025]);
      // Plant i (1..12, in the list's order) used 1,000 × i kWh in January 2024 and 900 × i in
      // January 2025.
      for (const [i, siteId] of plants.entries()) {
        for (const [year, value] of [
          [2024, 1000 * (i + 1)],
          [2025, 900 * (i + 1)],
        ] as const) {
          const res = await api(t, 'POST', '/form-submissions', {
            token,
            body: { formId: form.id, siteId, year, values: [{ elementKey: 'elec', periodUnit: 1, value }] },
          });
          if (res.status !== 200) throw new Error(JSON.stringify(res.body));
        }
      }
      const indicator = await api(t, 'POST', '/indicators', {
        token,
        body: {
          name: 'Electricity',
          unitId: kwh.id,
          expressionParts: [{ type: 'formElement', value: form.elements[0]!.id }],
        },
      });
      if (indicator.status !== 200) throw new Error(JSON.stringify(indicator.body));
      const target = await api(t, 'POST', '/targets', {
        token,
        body: {
          indicatorId: indicator.body.id,
          title: '-42% by 2030',
          baselineYear: 2024,
          targetEntries: [{ year: 2030, targetValue: -42, type: 'PERCENTAGE' }],
        },
      });
      if (target.status !== 200) throw new Error(JSON.stringify(target.body));
      const dashboard = await api(t, 'POST', '/dashboards', {
        token,
        body: {
          name: 'Electricity of the plants',
          isPublic: true,
          globalFilter: { siteIds: [group], startYear: 2024, endYear: 2030 },
        },
      });
      if (dashboard.status !== 200) throw new Error(JSON.stringify(dashboard.body));
      dashboardId = dashboard.body.id;
      const widgets = {
        path: { type: 'LINE', title: 'Electricity and the −42 % path', config: { showTarget: true } },
        bars: { type: 'BAR', title: 'Electricity by plant', config: { sites: 'CHILDREN' } },
        lines: { type: 'LINE', title: 'Electricity by plant, per year', config: { sites: 'CHILDREN' } },
        table: { type: 'TABLE', title: 'Electricity by plant (table)', config: { sites: 'CHILDREN' } },
      };
      for (const [key, widget] of Object.entries(widgets)) {
        const res = await api(t, 'POST', `/dashboards/${dashboardId}/widgets`, {
          token,
          body: { ...widget, indicatorIds: [indicator.body.id] },
        });
        if (res.status !== 200) throw new Error(JSON.stringify(res.body));
        ids[key as keyof typeof ids] = res.body.id;
      }
    }, 120_000);

    /** Nothing wider than the screen, every legend entry inside its card. */
    const overflow = (page: Page) =>
      page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const out: string[] = [];
        if (document.documentElement.scrollWidth > width)
          out.push(`page ${document.documentElement.scrollWidth}`);
        for (const card of document.querySelectorAll('.widget')) {
          const box = card.getBoundingClientRect();
          if (box.right > width + 0.5) out.push(`card ${card.querySelector('h2')?.textContent}`);
          for (const item of card.querySelectorAll('.legend-item')) {
            const r = item.getBoundingClientRect();
            if (r.width === 0 || r.left < box.left - 0.5 || r.right > box.right + 0.5)
              out.push(`legend ${item.textContent}`);
          }
        }
        return out;
      });

    it('draws the path with marked points, the plants by name, every legend entry; readable on a phone', async () => {
      const page = await browser!.newPage({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
      const errors = collectErrors(page);
      await page.goto(`${origin}/d/${dashboardId}`);
      await page.waitForSelector('body[data-rendered="true"]');

      // The glide path: 2024 (the group's actual) 1,000 × (1 + … + 12) = 78,000 kWh;
      // 2030: 78,000 × 0.58 = 45,240; 5,460 less each year.
      const path = await chartData(page, ids.path);
      expect(path.labels).toEqual(['2024', '2025', '2026', '2027', '2028', '2029', '2030']);
      expect(path.datasets[0]!.data).toEqual([78000, 70200, null, null, null, null, null]);
      expect(path.datasets[1]!.label).toBe('-42% by 2030 (target)');
      const expected = [78000, 72540, 67080, 61620, 56160, 50700, 45240];
      for (const [i, value] of expected.entries()) expect(path.datasets[1]!.data[i]).toBeCloseTo(value, 6);
      const marks = await page.evaluate((id) => {
        const canvas = document.querySelector(`[data-widget-id="${id}"] canvas`) as HTMLCanvasElement;
        const ds = (window as any).Chart.getChart(canvas).data.datasets[1];
        return { radius: ds.pointRadius, style: ds.pointStyle, label: ds.directLabel };
      }, ids.path);
      expect(marks).toEqual({ radius: 4.5, style: 'rectRot', label: '-42% by 2030: 45,240 kWh' });

      // BAR by plant: the plants' names on the (horizontal) category axis, sorted by name, one
      // dataset per year with data; plant i's bar is 1,000 × i (2024) and 900 × i (2025).
      const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
      const sorted = [...PLANTS].sort(collator.compare);
      const bars = await chartData(page, ids.bars);
      expect(bars.labels).toEqual(sorted);
      expect(bars.datasets.map((d) => d.label)).toEqual(['2024', '2025']);
      expect(bars.datasets[0]!.data).toEqual(sorted.map((name) => 1000 * (PLANTS.indexOf(name) + 1)));
      expect(bars.datasets[1]!.data).toEqual(sorted.map((name) => 900 * (PLANTS.indexOf(name) + 1)));
      expect(await page.getAttribute(`[data-widget-id="${ids.bars}"] .chart`, 'data-layout')).toBe(
        'sites-horizontal',
      );

      // LINE by plant: 12 lines, 12 legend entries, no two alike (color and dash).
      const lines = await chartData(page, ids.lines);
      expect(lines.datasets).toHaveLength(12);
      expect(new Set(lines.datasets.map((d) => `${d.borderColor} ${d.borderDash.join(',')}`)).size).toBe(12);
      const legend = await page.$$eval(`[data-widget-id="${ids.lines}"] .legend-item`, (items) =>
        items.map((i) => i.textContent),
      );
      // One indicator: the entries are the plants' names (the title names the indicator).
      expect(legend).toEqual(sorted);

      // TABLE by plant: a row per plant, a column per year.
      const rows = await page.$$eval(`[data-widget-id="${ids.table}"] tr`, (trs) =>
        trs.map((tr) => [...tr.children].map((cell) => cell.textContent)),
      );
      // (2026-2030 have no value and no target: not shown; the one unit is in the heads.)
      expect(rows[0]).toEqual(['Site', '2024 (kWh)', '2025 (kWh)']);
      expect(rows.slice(1).map((r) => r[0])).toEqual(sorted);
      // First by name: Braga (PT), the 11th plant: 11,000 kWh in 2024, 9,900 kWh in 2025.
      expect(rows[1]!.slice(0, 3)).toEqual(['Braga (PT)', '11,000', '9,900']);
      expect(await overflow(page)).toEqual([]);
      mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'breakdown-desktop.png'), fullPage: true });
      expect(await axeViolations(page), 'the 12-plant breakdown').toEqual([]);

      await page.setViewportSize({ width: 360, height: 780 });
      await page.waitForFunction(() => {
        const canvas = document.querySelector('.widget-line canvas') as HTMLCanvasElement;
        return canvas.getBoundingClientRect().width < 360;
      });
      expect(await overflow(page)).toEqual([]);
      await page.screenshot({ path: join(OUTPUT, 'breakdown-phone.png'), fullPage: true });
      expect(errors).toEqual([]);
      await page.close();
    });
  },
);
