// The public dashboard page's script (served as a static file: the page's CSP allows no inline
// script). It asks GET {api}/public/dashboards/{id} for the view; on 401 it shows the dashboard's
// gate (password, e-mail then code), posts to {api}/public/dashboards/{id}/access, keeps the access
// token in sessionStorage and asks again. Widgets: VALUE as big numbers, LINE and BAR with
// Chart.js (targets as dashed lines), TABLE as a table. All text is set with textContent. Its texts
// are ICU messages in the page's language (data-locale, data-messages: chosen by the server from
// ?lang= or the browser's languages), formatted by intl-messageformat (data-icu, imported first);
// numbers and dates by Intl in that language.
(() => {
  const body = document.body;
  const dashboardId = body.dataset.dashboardId;
  if (!dashboardId) return; // the 404 page
  const LOCALE = body.dataset.locale || 'en';
  let MESSAGES = {};
  try {
    MESSAGES = JSON.parse(body.dataset.messages || '{}');
  } catch {
    // no messages: the keys are shown
  }
  let Icu = null;
  const formats = new Map();
  /** The text of message `key` with `values`, in the page's language. */
  const say = (key, values) => {
    const source = MESSAGES[key] ?? key;
    if (!Icu) return source.replace(/\{(\w+)\}/g, (_, name) => String(values?.[name] ?? ''));
    let format = formats.get(key);
    if (!format) {
      format = new Icu(source, LOCALE);
      formats.set(key, format);
    }
    return String(format.format(values));
  };
  const api = body.dataset.api || '/api/v1';
  const base = `${api}/public/dashboards/${encodeURIComponent(dashboardId)}`;
  const TOKEN_KEY = `sdcs.dashboard.${dashboardId}`;
  const DEFAULT_COLORS = [
    '#0f766e',
    '#2563eb',
    '#d97706',
    '#7c3aed',
    '#dc2626',
    '#0891b2',
    '#65a30d',
    '#db2777',
    '#92400e',
    '#475569',
  ];
  const DASHES = { solid: [], dashed: [8, 4], dotted: [2, 3] };
  const TARGET_DASH = [6, 4];
  // Beyond the palette, series keep apart by their line's dash and their points' shape (lines),
  // or by a hatch pattern (bars): the nth series past the palette gets the nth variant.
  const VARIANT_DASHES = [[], [7, 3], [2, 3], [10, 3, 2, 3]];
  const POINT_STYLES = ['circle', 'rect', 'triangle', 'rectRot', 'star', 'crossRot'];
  // More series than this on a BAR breakdown: the sites go on the (horizontal) category axis.
  const MAX_SERIES = 8;

  const $ = (id) => document.getElementById(id);
  const statusLine = $('status');
  const widgetsBox = $('widgets');
  const charts = [];
  let siteId = '';
  let sitesFilled = false;
  let pendingEmail = '';

  let memoryToken = null;
  const readToken = () => {
    try {
      return sessionStorage.getItem(TOKEN_KEY);
    } catch {
      return null;
    }
  };
  const writeToken = (token) => {
    try {
      if (token) sessionStorage.setItem(TOKEN_KEY, token);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // storage refused (private mode): the token lives in memory only
    }
    memoryToken = token;
  };
  memoryToken = readToken();

  /** An element with a class and text (text only: never HTML). */
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function setStatus(text, isError) {
    statusLine.textContent = text || '';
    statusLine.className = isError ? 'status error' : 'status';
  }

  async function readJson(res) {
    try {
      return await res.json();
    } catch {
      return {};
    }
  }

  const problemText = (data, fallback) =>
    [data?.message || fallback, ...(data?.issues || []).map((i) => i.message).filter(Boolean)].join(' ');

  // ---- The view ---------------------------------------------------------------------------

  async function load() {
    setStatus(say('loading'));
    const params = new URLSearchParams();
    if (siteId) params.set('siteIds', siteId);
    const query = params.toString();
    const headers = memoryToken ? { authorization: `Bearer ${memoryToken}` } : {};
    let res;
    try {
      res = await fetch(query ? `${base}?${query}` : base, { headers });
    } catch {
      setStatus(say('unreachable'), true);
      return;
    }
    const data = await readJson(res);
    if (res.status === 401) {
      writeToken(null);
      clearWidgets();
      showGate(data);
      return;
    }
    if (res.status === 404) {
      clearWidgets();
      setStatus(say('unpublished'), true);
      return;
    }
    if (!res.ok) {
      setStatus(problemText(data, say('loadFailed', { status: res.status })), true);
      return;
    }
    $('gate').hidden = true;
    render(data);
  }

  function clearWidgets() {
    while (charts.length) charts.pop().destroy();
    widgetsBox.replaceChildren();
  }

  function render(view) {
    clearWidgets();
    const dashboard = view.dashboard || {};
    const theme = dashboard.widgetTheme || {};
    body.classList.toggle('theme-dark', theme.mode === 'dark');
    if (window.Chart) {
      const dark = theme.mode === 'dark';
      window.Chart.defaults.color = dark ? '#c9d4df' : '#4b5866';
      window.Chart.defaults.borderColor = dark ? '#263341' : '#e6ebf0';
      window.Chart.defaults.font.family = getComputedStyle(body).fontFamily;
    }
    if (dashboard.name) {
      $('dashboard-name').textContent = dashboard.name;
      document.title = `${dashboard.name} · SDCS`;
    }
    const description = $('dashboard-description');
    description.textContent = dashboard.description || '';
    description.hidden = !dashboard.description;
    fillSites(view.sites || []);

    const dataById = new Map((view.data || []).map((d) => [d.widgetId, d]));
    const widgets = [...(view.widgets || [])].sort((a, b) => a.position - b.position);
    if (widgets.length === 0) setStatus(say('noWidgets'));
    else setStatus('');
    // Consecutive VALUE widgets share one full-width row of key figures; charts and tables fill
    // the grid (two columns on wide screens, one on a phone), the last of an odd run at full width.
    let kpiRow = null;
    let run = [];
    const closeRun = () => {
      if (run.length % 2 === 1) run[run.length - 1].classList.add('widget-wide');
      run = [];
    };
    for (const widget of widgets) {
      const data = dataById.get(widget.id) || {};
      const card = drawWidget(widget, data.series || [], theme, data.issues || []);
      if (widget.type === 'VALUE') {
        closeRun();
        if (!kpiRow) {
          kpiRow = el('div', 'kpi-row');
          widgetsBox.append(kpiRow);
        }
        kpiRow.append(card);
      } else {
        kpiRow = null;
        run.push(card);
        widgetsBox.append(card);
      }
    }
    closeRun();
    if (view.computedAt) {
      const at = new Date(view.computedAt);
      $('computed-at').textContent = say('asOf', {
        at: at.toLocaleString(LOCALE, { dateStyle: 'medium', timeStyle: 'short' }),
      });
    }
    body.dataset.rendered = 'true';
  }

  function fillSites(sites) {
    const box = $('filters');
    if (!sites.length) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    if (sitesFilled) return;
    sitesFilled = true;
    const select = $('site-filter');
    for (const site of sites) {
      const option = el('option', '', site.name);
      option.value = site.id;
      select.append(option);
    }
    select.addEventListener('change', () => {
      siteId = select.value;
      load();
    });
  }

  // ---- Widgets ----------------------------------------------------------------------------

  const palette = (theme) =>
    Array.isArray(theme.customColors) && theme.customColors.length ? theme.customColors : DEFAULT_COLORS;

  /** A series' name: its indicator's, with its site's in breakdowns (the site's alone when the
   * widget shows one indicator: the title says which). */
  const seriesName = (s, all = [s]) =>
    s.siteName
      ? new Set(all.map((x) => x.indicatorId)).size === 1
        ? s.siteName
        : `${s.name} · ${s.siteName}`
      : s.name;

  /**
   * A point's text: as the API formatted it (with the unit, and the widget's decimals when set);
   * a value without that text, and every value on a page in another language than English, is
   * formatted here the same way in the page's language (`decimals` or up to 2 places).
   */
  function pointText(point, unit, decimals) {
    if (!point || point.value === null || point.value === undefined) return '—';
    if (point.formatted && (LOCALE === 'en' || typeof point.value !== 'number')) return point.formatted;
    const places = typeof decimals === 'number' && decimals >= 0 && decimals <= 10 ? decimals : undefined;
    const number = new Intl.NumberFormat(LOCALE, {
      minimumFractionDigits: places ?? 0,
      maximumFractionDigits: places ?? 2,
    }).format(point.value);
    return unit ? `${number} ${unit}` : number;
  }

  function drawWidget(widget, series, theme, widgetIssues = []) {
    const card = el('article', `card widget widget-${String(widget.type).toLowerCase()}`);
    card.dataset.widgetId = widget.id;
    card.dataset.type = widget.type;
    card.append(el('h2', '', widget.title));
    const config = widget.config || {};
    if (!series.length) {
      card.append(el('p', 'empty', say('noData')));
    } else if (widget.type === 'VALUE') {
      card.append(drawValue(series, config));
    } else if (widget.type === 'TABLE') {
      card.append(drawTable(series, config));
    } else if (widget.type === 'LINE' || widget.type === 'BAR') {
      card.append(drawChart(widget, series, config, theme));
    } else {
      card.append(el('p', 'empty', say('unknownType', { type: widget.type })));
    }
    const issues = [...series.flatMap((s) => s.issues || []), ...widgetIssues];
    if (issues.length) {
      const notes = el('ul', 'notes');
      for (const message of new Set(issues.map((i) => i.message))) notes.append(el('li', '', message));
      card.append(notes);
    }
    return card;
  }

  function drawValue(series, config) {
    const box = el('div', 'kpis');
    for (const s of series) {
      const kpi = el('div', 'kpi');
      const value = el('div', 'kpi-value', pointText(s.total, s.unit, config.decimals));
      if (s.total && s.total.value !== null) value.dataset.value = String(s.total.value);
      kpi.append(value, el('div', 'kpi-label', seriesName(s, series)));
      box.append(kpi);
    }
    return box;
  }

  /** The periods of a widget, in order, with their labels (from the series, else the targets). */
  /** A period's label in the page's language ("März 2025", "T1 2025"); the API's (English) otherwise. */
  function periodText(point) {
    if (LOCALE === 'en') return point.label;
    const month = /^(\d{4})-(\d{2})$/.exec(String(point.period));
    if (month) {
      const at = Date.UTC(Number(month[1]), Number(month[2]) - 1, 1);
      return new Intl.DateTimeFormat(LOCALE, { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(at);
    }
    const quarter = /^(\d{4})-Q([1-4])$/.exec(String(point.period));
    if (quarter) return say('quarter', { quarter: Number(quarter[2]), year: quarter[1] });
    return point.label;
  }

  function periodsOf(series) {
    const labels = new Map();
    for (const s of series) for (const p of s.points || []) labels.set(p.period, periodText(p));
    if (!labels.size) {
      for (const s of series)
        for (const target of s.targets || [])
          for (const p of target.points) labels.set(p.period, periodText(p));
    }
    const periods = [...labels.keys()].sort();
    return { periods, labels: periods.map((p) => labels.get(p)) };
  }

  const valuesAt = (points, periods) => {
    const byPeriod = new Map((points || []).map((p) => [p.period, p]));
    return periods.map((period) => byPeriod.get(period)?.value ?? null);
  };

  const formattedAt = (points, periods) => {
    const byPeriod = new Map((points || []).map((p) => [p.period, p]));
    return periods.map((period) => byPeriod.get(period) || null);
  };

  function drawTable(series, config) {
    const { periods, labels } = periodsOf(series);
    if (series.some((s) => s.siteId) && series.length > periods.length) {
      return drawSiteTable(series, config, periods, labels);
    }
    const wrap = el('div', 'table-wrap');
    const table = el('table');
    const head = el('tr');
    head.append(el('th', '', say('period')));
    const columns = [];
    for (const s of series) {
      columns.push({ name: seriesName(s, series), unit: s.unit, points: formattedAt(s.points, periods) });
      if (config.showTarget) {
        for (const t of s.targets || []) {
          columns.push({
            name: say('target', { name: t.name || say('targetDefault') }),
            unit: s.unit,
            points: formattedAt(t.points, periods),
          });
        }
      }
    }
    for (const c of columns) head.append(el('th', 'num', c.name));
    const thead = el('thead');
    thead.append(head);
    const tbody = el('tbody');
    periods.forEach((_, i) => {
      const row = el('tr');
      row.append(el('td', '', labels[i]));
      for (const c of columns) row.append(el('td', 'num', pointText(c.points[i], c.unit, config.decimals)));
      tbody.append(row);
    });
    table.append(thead, tbody);
    wrap.append(table);
    return wrap;
  }

  /** A breakdown with more sites than periods: a row per site (and per target), a column per period. */
  function drawSiteTable(series, config, allPeriods, allLabels) {
    // Periods where no site and no target has a value (future years of a long filter) are left out.
    const shown = allPeriods
      .map((p, i) => ({ p, label: allLabels[i] }))
      .filter(({ p }) =>
        series.some(
          (s) =>
            valuesAt(s.points, [p])[0] !== null ||
            (config.showTarget && (s.targets || []).some((t) => valuesAt(t.points, [p])[0] !== null)),
        ),
      );
    const periods = shown.length ? shown.map((x) => x.p) : allPeriods;
    const labels = shown.length ? shown.map((x) => x.label) : allLabels;
    // One unit for every row: it goes into the column heads, the cells hold the numbers (narrow
    // enough for a phone).
    const units = new Set(series.map((s) => s.unit));
    const unit = units.size === 1 ? [...units][0] : null;
    const cellText = (point, rowUnit) => {
      const text = pointText(point, rowUnit, config.decimals);
      return unit && text.endsWith(` ${unit}`) ? text.slice(0, -unit.length - 1) : text;
    };
    const wrap = el('div', 'table-wrap');
    const table = el('table', 'site-table');
    const head = el('tr');
    head.append(el('th', '', 'Site'));
    for (const label of labels) head.append(el('th', 'num', unit ? `${label} (${unit})` : label));
    const thead = el('thead');
    thead.append(head);
    const tbody = el('tbody');
    const addRow = (name, rowUnit, points, className) => {
      const row = el('tr', className);
      row.append(el('th', 'row-name', name));
      formattedAt(points, periods).forEach((point) => {
        row.append(el('td', 'num', cellText(point, rowUnit)));
      });
      tbody.append(row);
    };
    for (const s of series) {
      addRow(seriesName(s, series), s.unit, s.points);
      if (config.showTarget) {
        for (const t of s.targets || [])
          addRow(say('target', { name: t.name || say('targetDefault') }), s.unit, t.points, 'target-row');
      }
    }
    table.append(thead, tbody);
    wrap.append(table);
    return wrap;
  }

  const byIndex = (a, b) => a.datasetIndex - b.datasetIndex;

  /** A diagonal hatch in a color: bars past the palette's colors. */
  function hatch(color, variant) {
    const size = 8;
    const tile = document.createElement('canvas');
    tile.width = size;
    tile.height = size;
    const ctx = tile.getContext('2d');
    if (!ctx) return color;
    ctx.fillStyle = color;
    ctx.globalAlpha = 0.35;
    ctx.fillRect(0, 0, size, size);
    ctx.globalAlpha = 1;
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    if (variant % 2 === 1) {
      ctx.moveTo(0, size);
      ctx.lineTo(size, 0);
    } else {
      ctx.moveTo(0, 0);
      ctx.lineTo(size, size);
    }
    ctx.stroke();
    return ctx.createPattern(tile, 'repeat') || color;
  }

  /** The look of the nth series: its color, and past the palette a dash, point shape or hatch. */
  function styleOf(colors, i, isBar) {
    const color = colors[i % colors.length];
    const variant = Math.floor(i / colors.length);
    return {
      color,
      fill: isBar && variant > 0 ? hatch(color, variant) : color,
      dash: isBar ? [] : VARIANT_DASHES[variant % VARIANT_DASHES.length],
      pointStyle: isBar ? 'rect' : POINT_STYLES[i % POINT_STYLES.length],
    };
  }

  /** A short name for a category axis; the tooltip shows the whole name. */
  const shorten = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

  /**
   * Target lines carry their name at their last point, right-aligned to it, above the line: the
   * line is labelled where it ends, whatever the legend shows.
   */
  const targetLabels = {
    id: 'sdcsTargetLabels',
    afterDatasetsDraw(chart) {
      const { ctx, chartArea } = chart;
      ctx.save();
      ctx.font = `600 11px ${window.Chart.defaults.font.family}`;
      ctx.textBaseline = 'bottom';
      const halo = getComputedStyle(body).getPropertyValue('--card').trim() || '#fff';
      chart.data.datasets.forEach((ds, i) => {
        if (!ds.target || !ds.directLabel || !chart.isDatasetVisible(i)) return;
        const meta = chart.getDatasetMeta(i);
        let last = -1;
        ds.data.forEach((v, j) => {
          if (v !== null && v !== undefined) last = j;
        });
        const point = meta.data[last];
        if (!point) return;
        const text = ds.directLabel;
        const width = ctx.measureText(text).width;
        // Beside the end of the line, on the side the line does not come from: under a line
        // that comes down to its last point, above one that comes up (or a lone point).
        let previous = null;
        for (let j = last - 1; j >= 0 && !previous; j--) {
          if (ds.data[j] !== null && ds.data[j] !== undefined) previous = meta.data[j];
        }
        // Right of the last point when there is room there (a path that ends before the
        // chart's last period), else beside the line's end.
        const room = chartArea.right - point.x > width + 14;
        const below = previous !== null && previous.y < point.y;
        const x = room
          ? point.x + 10
          : Math.min(Math.max(point.x - width - 8, chartArea.left + 2), chartArea.right - width - 2);
        const y = room
          ? point.y + 5
          : below
            ? Math.min(point.y + 20, chartArea.bottom - 2)
            : Math.max(point.y - 10, chartArea.top + 12);
        ctx.lineWidth = 3;
        ctx.strokeStyle = halo;
        ctx.strokeText(text, x, y);
        ctx.fillStyle = ds.borderColor;
        ctx.fillText(text, x, y);
      });
      ctx.restore();
    },
  };

  /**
   * The chart's legend as a list under it: it wraps over as many lines as it needs, so every
   * entry shows, on a phone too. A click hides or shows the entry's dataset.
   */
  function htmlLegend(chart) {
    const list = el('ul', 'legend');
    chart.data.datasets.forEach((ds, i) => {
      if (ds.legend === false) return;
      // A list item holding a real button (a list item with a button role leaves the list
      // without items for assistive technology).
      const item = el('button', ds.target ? 'legend-item legend-target' : 'legend-item');
      item.type = 'button';
      item.setAttribute('aria-pressed', 'true');
      const swatch = el('span', ds.type === 'bar' ? 'swatch swatch-bar' : 'swatch swatch-line');
      const color = ds.borderColor;
      if (ds.type === 'bar') {
        swatch.style.background = color;
        if (ds.hatched) swatch.classList.add('swatch-hatched');
      } else {
        const dash = ds.borderDash || [];
        swatch.style.borderTopColor = color;
        swatch.style.borderTopStyle = dash.length === 0 ? 'solid' : dash[0] <= 3 ? 'dotted' : 'dashed';
        if (ds.target || (ds.pointRadius ?? 0) > 0) {
          const mark = el('span', `mark mark-${ds.target ? 'rectRot' : ds.pointStyle || 'circle'}`);
          mark.style.background = color;
          swatch.append(mark);
        }
      }
      item.append(swatch, el('span', 'legend-text', ds.label));
      const toggle = () => {
        const visible = !chart.isDatasetVisible(i);
        chart.setDatasetVisibility(i, visible);
        item.classList.toggle('legend-off', !visible);
        item.setAttribute('aria-pressed', String(visible));
        chart.update();
      };
      item.addEventListener('click', toggle);
      const entry = el('li', 'legend-entry');
      entry.append(item);
      list.append(entry);
    });
    return list;
  }
  const dashOf = (style) => DASHES[style] || DASHES.solid;

  /**
   * Aggregate lines (BREAKDOWN widgets): per indicator, the sum and the mean over its sites, each
   * drawn when the theme's aggregateLines styles it (a color, a line style or a width).
   */
  function aggregateDatasets(series, periods, lines) {
    const out = [];
    const wants = (key) =>
      lines[`${key}Color`] !== undefined ||
      lines[`${key}LineStyle`] !== undefined ||
      lines[`${key}StrokeWidth`] !== undefined;
    const byIndicator = new Map();
    for (const s of series) {
      if (!s.siteId) continue;
      const group = byIndicator.get(s.indicatorId) || [];
      group.push(s);
      byIndicator.set(s.indicatorId, group);
    }
    for (const group of byIndicator.values()) {
      if (group.length < 2) continue;
      const columns = group.map((s) => valuesAt(s.points, periods));
      const present = periods.map((_, i) => columns.map((c) => c[i]).filter((v) => v !== null));
      const sums = present.map((vs) => (vs.length ? vs.reduce((a, b) => a + b, 0) : null));
      const unit = group[0].unit;
      for (const [key, label, data] of [
        ['total', say('total'), sums],
        ['average', say('average'), present.map((vs, i) => (vs.length ? sums[i] / vs.length : null))],
      ]) {
        if (!wants(key)) continue;
        const color = lines[`${key}Color`] || (key === 'total' ? '#1c2530' : '#6b7785');
        out.push({
          type: 'line',
          label: `${group[0].name} · ${label}`,
          data,
          unit,
          borderColor: color,
          backgroundColor: color,
          borderDash: dashOf(lines[`${key}LineStyle`]),
          borderWidth: Number(lines[`${key}StrokeWidth`]) || 2,
          pointStyle: 'line',
          pointRadius: 0,
          pointHoverRadius: 4,
          spanGaps: true,
          order: 0,
        });
      }
    }
    return out;
  }

  /** The target datasets of a series over the periods: dashed, every point marked, labelled. */
  function targetDatasets(s, style, periods) {
    return (s.targets || []).map((t) => {
      const data = valuesAt(t.points, periods);
      const formatted = formattedAt(t.points, periods);
      const lastIndex = data.reduce((last, v, i) => (v === null ? last : i), -1);
      const last = lastIndex >= 0 ? formatted[lastIndex] : null;
      const name = t.name || say('targetDefault');
      const lastText = last ? pointText(last, s.unit) : '';
      return {
        type: 'line',
        label: say('target', { name }),
        target: true,
        directLabel: lastText && lastText !== '—' ? `${name}: ${lastText}` : name,
        data,
        formatted,
        unit: s.unit,
        borderColor: style.color,
        backgroundColor: style.color,
        borderDash: TARGET_DASH,
        borderWidth: 2,
        // Every point of the path is marked (a lone target year shows as a diamond).
        pointStyle: 'rectRot',
        pointRadius: 4.5,
        pointHoverRadius: 6,
        pointBackgroundColor: style.color,
        spanGaps: true,
        fill: false,
        order: 0,
      };
    });
  }

  /** LINE and BAR over the periods: one dataset per series (and per target), periods on the axis. */
  function periodDatasets(series, config, colors, lines, isBar, periods) {
    const datasets = [];
    series.forEach((s, i) => {
      const style = styleOf(colors, i, isBar);
      datasets.push({
        type: isBar ? 'bar' : 'line',
        label: seriesName(s, series),
        data: valuesAt(s.points, periods),
        formatted: formattedAt(s.points, periods),
        unit: s.unit,
        borderColor: style.color,
        backgroundColor: style.fill,
        hatched: style.fill !== style.color,
        borderDash: style.dash,
        borderWidth: isBar ? 0 : 2.5,
        borderRadius: isBar ? 4 : 0,
        pointStyle: style.pointStyle,
        pointRadius: isBar ? 0 : 3,
        pointHoverRadius: 5,
        tension: 0.15,
        fill: false,
        order: 1,
      });
      if (config.showTarget) datasets.push(...targetDatasets(s, style, periods));
    });
    datasets.push(...aggregateDatasets(series, periods, lines));
    return datasets;
  }

  /**
   * A BAR breakdown by site (one period with data, or more sites than colors): the sites on the
   * category axis, one dataset per indicator and period (up to four periods with data; past that
   * the total over the filter), targets as marks on each site's bar.
   */
  function siteDatasets(series, config, colors, periods, labels) {
    const sites = [];
    const seen = new Map();
    for (const s of series) {
      const key = s.siteId || s.name;
      if (!seen.has(key)) {
        seen.set(key, sites.length);
        sites.push(s.siteName || s.name);
      }
    }
    const indicators = [...new Set(series.map((s) => s.indicatorId))];
    const filled = periods.filter((p) => series.some((s) => valuesAt(s.points, [p])[0] !== null));
    const useTotal = filled.length > 4 || filled.length === 0;
    const columns = useTotal
      ? [
          {
            period: null,
            label: series[0]?.total?.label ? say('totalOf', { label: series[0].total.label }) : say('total'),
          },
        ]
      : filled.map((p) => ({ period: p, label: labels[periods.indexOf(p)] }));
    const datasets = [];
    let n = 0;
    for (const indicatorId of indicators) {
      const group = series.filter((s) => s.indicatorId === indicatorId);
      const indicatorName = group[0].name;
      for (const column of columns) {
        const style = styleOf(colors, n++, true);
        const data = new Array(sites.length).fill(null);
        const formatted = new Array(sites.length).fill(null);
        for (const s of group) {
          const at = seen.get(s.siteId || s.name);
          const point = column.period === null ? s.total : formattedAt(s.points, [column.period])[0];
          data[at] = point?.value ?? null;
          formatted[at] = point;
        }
        const label =
          indicators.length === 1
            ? columns.length === 1
              ? indicatorName
              : column.label
            : `${indicatorName} · ${column.label}`;
        datasets.push({
          type: 'bar',
          label,
          data,
          formatted,
          unit: group[0].unit,
          borderColor: style.color,
          backgroundColor: style.fill,
          hatched: style.fill !== style.color,
          borderWidth: 0,
          borderRadius: 3,
          order: 1,
        });
        if (config.showTarget && column.period !== null) {
          const marks = new Array(sites.length).fill(null);
          const markText = new Array(sites.length).fill(null);
          let name = null;
          for (const s of group) {
            for (const t of s.targets || []) {
              const point = formattedAt(t.points, [column.period])[0];
              if (!point || point.value === null) continue;
              const at = seen.get(s.siteId || s.name);
              if (marks[at] !== null) continue;
              marks[at] = point.value;
              markText[at] = point;
              name = name ?? t.name;
            }
          }
          if (marks.some((v) => v !== null)) {
            datasets.push({
              type: 'line',
              label:
                columns.length > 1
                  ? say('targetAt', { name: name || say('targetDefault'), label: column.label })
                  : say('target', { name: name || say('targetDefault') }),
              target: true,
              data: marks,
              formatted: markText,
              unit: group[0].unit,
              borderColor: '#1c2530',
              backgroundColor: '#1c2530',
              borderDash: TARGET_DASH,
              showLine: false,
              pointStyle: 'line',
              pointRadius: 9,
              pointHoverRadius: 10,
              pointBorderWidth: 3,
              order: 0,
            });
          }
        }
      }
    }
    return { labels: sites, datasets };
  }

  function drawChart(widget, series, config, theme) {
    const wrap = el('div', 'chart');
    const box = el('div', 'chart-box');
    const canvas = el('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', widget.title);
    box.append(canvas);
    wrap.append(box);
    if (!window.Chart) {
      box.replaceChildren(el('p', 'empty', say('noChart')));
      return wrap;
    }
    const colors = palette(theme);
    const lines = theme.aggregateLines || {};
    const { periods, labels } = periodsOf(series);
    const isBar = widget.type === 'BAR';
    const filled = periods.filter((p) => series.some((s) => valuesAt(s.points, [p])[0] !== null));
    const bySite =
      isBar && series.some((s) => s.siteId) && (filled.length <= 1 || series.length > MAX_SERIES);
    const spec = bySite
      ? siteDatasets(series, config, colors, periods, labels)
      : { labels, datasets: periodDatasets(series, config, colors, lines, isBar, periods) };
    // Many sites: horizontal bars, one row per site, the box as tall as they need.
    const horizontal = bySite && spec.labels.length > 6;
    if (horizontal) {
      const bars = spec.datasets.filter((d) => d.type === 'bar').length;
      box.classList.add('chart-box-rows');
      box.style.height = `${Math.max(240, spec.labels.length * Math.max(26, bars * 13 + 10) + 70)}px`;
    }
    wrap.dataset.layout = bySite ? (horizontal ? 'sites-horizontal' : 'sites') : 'periods';
    const units = [...new Set(series.map((s) => s.unit).filter(Boolean))];
    const narrow = () => window.innerWidth < 600;
    const valueAxis = {
      beginAtZero: true,
      title: { display: units.length === 1, text: units[0] || '' },
      ticks: { maxTicksLimit: 6 },
    };
    const categoryAxis = {
      grid: { display: false },
      ticks: {
        autoSkip: !bySite,
        callback(value) {
          const text = String(this.getLabelForValue(value));
          return bySite ? shorten(text, narrow() ? 14 : 26) : text;
        },
      },
    };
    const chart = new window.Chart(canvas, {
      type: isBar ? 'bar' : 'line',
      data: spec,
      plugins: [targetLabels],
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        indexAxis: horizontal ? 'y' : 'x',
        interaction: { mode: 'index', intersect: false, axis: horizontal ? 'y' : 'x' },
        layout: { padding: { top: 14 } },
        plugins: {
          legend: { display: false },
          tooltip: {
            itemSort: byIndex,
            callbacks: {
              label(ctx) {
                const ds = ctx.dataset;
                const point = ds.formatted?.[ctx.dataIndex];
                const raw = horizontal ? ctx.parsed.x : ctx.parsed.y;
                const text = pointText(point || { value: raw }, ds.unit, config.decimals);
                return `${ds.label}: ${text}`;
              },
            },
          },
        },
        scales: horizontal ? { x: valueAxis, y: categoryAxis } : { x: categoryAxis, y: valueAxis },
      },
    });
    charts.push(chart);
    wrap.append(htmlLegend(chart));
    return wrap;
  }

  // ---- The gate ---------------------------------------------------------------------------

  function showGate(data) {
    const requiresPassword = data.requiresPassword ?? body.dataset.requiresPassword === 'true';
    const requiresEmail = data.requiresEmail ?? body.dataset.requiresEmail === 'true';
    setStatus('');
    $('filters').hidden = true;
    $('gate').hidden = false;
    $('password-field').hidden = !requiresPassword;
    $('email-field').hidden = !requiresEmail;
    $('gate-intro').textContent = say(
      requiresEmail ? (requiresPassword ? 'introBoth' : 'introEmail') : 'introPassword',
    );
    $('gate-submit').textContent = say(requiresEmail ? 'sendCode' : 'open');
    $('gate-form').hidden = false;
    $('code-form').hidden = true;
    const first = requiresEmail ? $('gate-email') : $('gate-password');
    first.focus();
  }

  function gateError(text) {
    const box = $('gate-error');
    box.textContent = text || '';
    box.hidden = !text;
  }

  async function requestAccess(payload, button) {
    gateError('');
    button.disabled = true;
    try {
      const res = await fetch(`${base}/access`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      });
      const data = await readJson(res);
      if (res.status === 429) {
        const wait = Number(res.headers.get('retry-after'));
        gateError(
          Number.isFinite(wait) && wait > 0
            ? Math.ceil(wait / 60) > 1
              ? say('tooManyMinutes', { minutes: Math.ceil(wait / 60) })
              : say('tooManySeconds', { seconds: wait })
            : say('tooManyLater'),
        );
        return null;
      }
      if (res.status === 403) {
        gateError(problemText(data, say('addressRefused')));
        return null;
      }
      if (!res.ok && res.status !== 202) {
        gateError(problemText(data, say('accessRefused', { status: res.status })));
        return null;
      }
      return { status: res.status, data };
    } catch {
      gateError(say('serviceUnreachable'));
      return null;
    } finally {
      button.disabled = false;
    }
  }

  function passwordPayload() {
    return $('password-field').hidden ? {} : { password: $('gate-password').value };
  }

  async function granted(data) {
    writeToken(data.accessToken);
    $('gate').hidden = true;
    $('gate-password').value = '';
    $('gate-code').value = '';
    await load();
  }

  $('gate-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const payload = passwordPayload();
    if (!$('password-field').hidden && !payload.password) return gateError(say('enterPassword'));
    if (!$('email-field').hidden) {
      const email = $('gate-email').value.trim();
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) return gateError(say('enterEmail'));
      payload.email = email;
    }
    const answer = await requestAccess(payload, $('gate-submit'));
    if (!answer) return;
    if (answer.status === 202) {
      pendingEmail = answer.data.email || payload.email;
      $('gate-form').hidden = true;
      $('code-form').hidden = false;
      const until = answer.data.expiresAt ? new Date(answer.data.expiresAt) : null;
      $('code-intro').textContent =
        say('codeSent', { email: pendingEmail }) +
        (until
          ? ` ${say('codeValid', { time: until.toLocaleTimeString(LOCALE, { timeStyle: 'short' }) })}`
          : '');
      $('gate-code').focus();
      return;
    }
    await granted(answer.data);
  });

  $('code-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const code = $('gate-code').value.trim();
    if (!code) return gateError(say('enterCode'));
    const answer = await requestAccess({ ...passwordPayload(), email: pendingEmail, code }, $('code-submit'));
    if (answer?.data?.accessToken) await granted(answer.data);
  });

  $('code-back').addEventListener('click', () => {
    gateError('');
    $('code-form').hidden = true;
    $('gate-form').hidden = false;
    $('gate-email').focus();
  });

  // A protected dashboard without a token of this tab's: the gate at once, without a refused call.
  const start = () => {
    if (window.Chart) window.Chart.defaults.locale = LOCALE;
    if (!memoryToken && (body.dataset.requiresPassword === 'true' || body.dataset.requiresEmail === 'true')) {
      showGate({});
    } else {
      load();
    }
  };
  // The message formatter first (plurals by the language's rules); without it, plain placeholders.
  import(body.dataset.icu)
    .then((module) => {
      Icu = module.IntlMessageFormat;
    })
    .catch(() => undefined)
    .finally(start);
})();
