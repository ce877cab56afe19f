import { fetchView, writeToken } from './api.ts';
import { chartDefaults, destroyCharts, drawChart } from './charts.ts';
import { pointText, problemText, seriesName, timeText } from './format.ts';
import { showGate } from './gate.ts';
import { LOCALE, say } from './language.ts';
import { notesList } from './notes.ts';
import { $, body, el, setStatus } from './page.ts';
import { drawTable } from './tables.ts';
import type {
  ViewSeries,
  ViewSite,
  Theme,
  View,
  ViewWidget,
  ViewWidgetConfig,
  ViewWidgetIssue,
} from './types.ts';

// The view: asks the API for the dashboard (with the site picked in the filter), then draws its
// widgets in order. VALUE widgets as big numbers, LINE and BAR as charts, TABLE as a table.

let siteId = '';
let sitesFilled = false;

/** Asks for the view and draws it; on 401 shows the gate. */
export async function load(): Promise<void> {
  setStatus(say('loading'));
  const answer = await fetchView(siteId);
  if (answer.ok) {
    $('gate').hidden = true;
    render(answer.view);
    return;
  }
  if (answer.status === 0) {
    setStatus(say('unreachable'), true);
  } else if (answer.status === 401) {
    writeToken(null);
    clearWidgets();
    showGate(answer.problem);
  } else if (answer.status === 404) {
    clearWidgets();
    setStatus(say('unpublished'), true);
  } else {
    setStatus(problemText(answer.problem, say('loadFailed', { status: answer.status })), true);
  }
}

function clearWidgets(): void {
  destroyCharts();
  $('widgets').replaceChildren();
}

function render(view: View): void {
  clearWidgets();
  const dashboard = view.dashboard;
  const theme: Theme = dashboard.widgetTheme ?? {};
  body.classList.toggle('theme-dark', theme.mode === 'dark');
  chartDefaults(LOCALE, theme);
  if (dashboard.name) {
    $('dashboard-name').textContent = dashboard.name;
    document.title = `${dashboard.name} · SDCS`;
  }
  const description = $('dashboard-description');
  description.textContent = dashboard.description || '';
  description.hidden = !dashboard.description;
  fillSites(view.sites ?? []);

  const dataById = new Map((view.data ?? []).map((d) => [d.widgetId, d]));
  const widgets = [...(view.widgets ?? [])].sort((a, b) => a.position - b.position);
  setStatus(widgets.length === 0 ? say('noWidgets') : '');
  // Consecutive VALUE widgets share one full-width row of key figures; charts and tables fill
  // the grid (two columns on wide screens, one on a phone), the last of an odd run at full width.
  const box = $('widgets');
  let kpiRow: HTMLElement | null = null;
  let run: HTMLElement[] = [];
  const closeRun = () => {
    if (run.length % 2 === 1) run[run.length - 1]?.classList.add('widget-wide');
    run = [];
  };
  for (const widget of widgets) {
    const data = dataById.get(widget.id);
    const card = drawWidget(widget, data?.series ?? [], theme, data?.issues ?? []);
    if (widget.type === 'VALUE') {
      closeRun();
      if (!kpiRow) {
        kpiRow = el('div', 'kpi-row');
        box.append(kpiRow);
      }
      kpiRow.append(card);
    } else {
      kpiRow = null;
      run.push(card);
      box.append(card);
    }
  }
  closeRun();
  if (view.computedAt) $('computed-at').textContent = say('asOf', { at: timeText(view.computedAt, true) });
  body.dataset['rendered'] = 'true';
}

function fillSites(sites: ViewSite[]): void {
  const box = $('filters');
  if (!sites.length) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  if (sitesFilled) return;
  sitesFilled = true;
  const select = $<HTMLSelectElement>('site-filter');
  for (const site of sites) {
    const option = el('option', '', site.name);
    option.value = site.id;
    select.append(option);
  }
  select.addEventListener('change', () => {
    siteId = select.value;
    void load();
  });
}

function drawWidget(
  widget: ViewWidget,
  series: ViewSeries[],
  theme: Theme,
  widgetIssues: ViewWidgetIssue[],
): HTMLElement {
  const card = el('article', `card widget widget-${String(widget.type).toLowerCase()}`);
  card.dataset['widgetId'] = widget.id;
  card.dataset['type'] = widget.type;
  card.append(el('h2', '', widget.title));
  const config = widget.config ?? {};
  if (!series.length) card.append(el('p', 'empty', say('noData')));
  else if (widget.type === 'VALUE') card.append(drawValue(series, config));
  else if (widget.type === 'TABLE') card.append(drawTable(series, config));
  else if (widget.type === 'LINE' || widget.type === 'BAR') card.append(drawChart(widget, series, theme));
  else card.append(el('p', 'empty', say('unknownType', { type: String(widget.type) })));
  const notes = notesList(series, widgetIssues);
  if (notes) card.append(notes);
  return card;
}

function drawValue(series: ViewSeries[], config: ViewWidgetConfig): HTMLElement {
  const box = el('div', 'kpis');
  for (const s of series) {
    const kpi = el('div', 'kpi');
    const value = el('div', 'kpi-value', pointText(s.total, s.unit, config.decimals));
    if (s.total && s.total.value !== null) value.dataset['value'] = String(s.total.value);
    kpi.append(value, el('div', 'kpi-label', seriesName(s, series)));
    box.append(kpi);
  }
  return box;
}
