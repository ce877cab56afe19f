// The public dashboard page's script (served as a static file: the page's CSP allows no inline
// script). It asks GET {api}/public/dashboards/{id} for the view; on 401 it shows the dashboard's
// gate (password, e-mail then code), posts to {api}/public/dashboards/{id}/access, keeps the access
// token in sessionStorage and asks again. Widgets: VALUE as big numbers, LINE and BAR with
// Chart.js (targets as dashed lines), TABLE as a table. All text is set with textContent.
(() => {
  const body = document.body;
  const dashboardId = body.dataset.dashboardId;
  if (!dashboardId) return; // the 404 page
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
  ];
  const DASHES = { solid: [], dashed: [8, 4], dotted: [2, 3] };
  const TARGET_DASH = [6, 4];

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
    setStatus('Loading the dashboard…');
    const params = new URLSearchParams();
    if (siteId) params.set('siteIds', siteId);
    const query = params.toString();
    const headers = memoryToken ? { authorization: `Bearer ${memoryToken}` } : {};
    let res;
    try {
      res = await fetch(query ? `${base}?${query}` : base, { headers });
    } catch {
      setStatus('The dashboard could not be reached. Check your connection and reload the page.', true);
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
      setStatus('This dashboard is not published any more.', true);
      return;
    }
    if (!res.ok) {
      setStatus(problemText(data, `The dashboard could not be loaded (${res.status}).`), true);
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
    if (widgets.length === 0) setStatus('This dashboard has no widgets yet.');
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
      const series = dataById.get(widget.id)?.series || [];
      const card = drawWidget(widget, series, theme);
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
      $('computed-at').textContent = `Figures as of ${at.toLocaleString(undefined, {
        dateStyle: 'medium',
        timeStyle: 'short',
      })}`;
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

  const seriesName = (s) => (s.siteName ? `${s.name} · ${s.siteName}` : s.name);

  /**
   * A point's text: as the API formatted it (with the unit, and the widget's decimals when set);
   * a value without that text is formatted here the same way (en-US, `decimals` or up to 2 places).
   */
  function pointText(point, unit, decimals) {
    if (!point || point.value === null || point.value === undefined) return '—';
    if (point.formatted) return point.formatted;
    const places = typeof decimals === 'number' && decimals >= 0 && decimals <= 10 ? decimals : undefined;
    const number = new Intl.NumberFormat('en-US', {
      minimumFractionDigits: places ?? 0,
      maximumFractionDigits: places ?? 2,
    }).format(point.value);
    return unit ? `${number} ${unit}` : number;
  }

  function drawWidget(widget, series, theme) {
    const card = el('article', `card widget widget-${String(widget.type).toLowerCase()}`);
    card.dataset.widgetId = widget.id;
    card.dataset.type = widget.type;
    card.append(el('h2', '', widget.title));
    const config = widget.config || {};
    if (!series.length) {
      card.append(el('p', 'empty', 'No data for this selection.'));
    } else if (widget.type === 'VALUE') {
      card.append(drawValue(series, config));
    } else if (widget.type === 'TABLE') {
      card.append(drawTable(series, config));
    } else if (widget.type === 'LINE' || widget.type === 'BAR') {
      card.append(drawChart(widget, series, config, theme));
    } else {
      card.append(el('p', 'empty', `Widgets of type ${widget.type} are not shown here.`));
    }
    const issues = series.flatMap((s) => s.issues || []);
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
      kpi.append(value, el('div', 'kpi-label', seriesName(s)));
      box.append(kpi);
    }
    return box;
  }

  /** The periods of a widget, in order, with their labels (from the series, else the targets). */
  function periodsOf(series) {
    const labels = new Map();
    for (const s of series) for (const p of s.points || []) labels.set(p.period, p.label);
    if (!labels.size) {
      for (const s of series)
        for (const t of s.targets || []) for (const p of t.points) labels.set(p.period, p.label);
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
    const wrap = el('div', 'table-wrap');
    const table = el('table');
    const head = el('tr');
    head.append(el('th', '', 'Period'));
    const columns = [];
    for (const s of series) {
      columns.push({ name: seriesName(s), unit: s.unit, points: formattedAt(s.points, periods) });
      if (config.showTarget) {
        for (const t of s.targets || []) {
          columns.push({
            name: `${t.name || 'Target'} (target)`,
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

  const byIndex = (a, b) => a.datasetIndex - b.datasetIndex;
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
        ['total', 'Total', sums],
        ['average', 'Average', present.map((vs, i) => (vs.length ? sums[i] / vs.length : null))],
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

  function drawChart(widget, series, config, theme) {
    const box = el('div', 'chart-box');
    const canvas = el('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', widget.title);
    box.append(canvas);
    if (!window.Chart) {
      box.replaceChildren(el('p', 'empty', 'The chart library could not be loaded.'));
      return box;
    }
    const colors = palette(theme);
    const lines = theme.aggregateLines || {};
    const { periods, labels } = periodsOf(series);
    const isBar = widget.type === 'BAR';
    const datasets = [];
    series.forEach((s, i) => {
      const color = colors[i % colors.length];
      datasets.push({
        type: isBar ? 'bar' : 'line',
        label: seriesName(s),
        data: valuesAt(s.points, periods),
        formatted: formattedAt(s.points, periods),
        unit: s.unit,
        borderColor: color,
        backgroundColor: color,
        borderWidth: isBar ? 0 : 2.5,
        borderRadius: isBar ? 4 : 0,
        pointStyle: isBar ? 'rect' : 'circle',
        pointRadius: isBar ? 0 : 3,
        pointHoverRadius: 5,
        tension: 0.15,
        fill: false,
        order: 1,
      });
      if (config.showTarget) {
        for (const t of s.targets || []) {
          datasets.push({
            type: 'line',
            label: `${t.name || 'Target'} (target)`,
            target: true,
            data: valuesAt(t.points, periods),
            formatted: formattedAt(t.points, periods),
            unit: s.unit,
            borderColor: color,
            backgroundColor: color,
            borderDash: TARGET_DASH,
            borderWidth: 2,
            pointStyle: 'line',
            pointRadius: 0,
            pointHoverRadius: 4,
            spanGaps: true,
            fill: false,
            order: 0,
          });
        }
      }
    });
    datasets.push(...aggregateDatasets(series, periods, lines));
    const units = [...new Set(series.map((s) => s.unit).filter(Boolean))];
    const chart = new window.Chart(canvas, {
      type: isBar ? 'bar' : 'line',
      data: { labels, datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        plugins: {
          legend: {
            position: 'bottom',
            labels: { usePointStyle: true, boxHeight: 9, sort: byIndex },
          },
          tooltip: {
            itemSort: byIndex,
            callbacks: {
              label(ctx) {
                const ds = ctx.dataset;
                const point = ds.formatted?.[ctx.dataIndex];
                const text = pointText(point || { value: ctx.parsed.y }, ds.unit, config.decimals);
                return `${ds.label}: ${text}`;
              },
            },
          },
        },
        scales: {
          x: { grid: { display: false } },
          y: {
            beginAtZero: true,
            title: { display: units.length === 1, text: units[0] || '' },
            ticks: { maxTicksLimit: 6 },
          },
        },
      },
    });
    charts.push(chart);
    return box;
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
    $('gate-intro').textContent = requiresEmail
      ? requiresPassword
        ? 'Enter your e-mail address and the password you were given: we will send you a code.'
        : 'Enter your e-mail address: if it may open this dashboard, we will send you a code.'
      : 'Enter the password you were given.';
    $('gate-submit').textContent = requiresEmail ? 'Send me a code' : 'Open dashboard';
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
            ? `Too many attempts. Try again in ${Math.ceil(wait / 60) > 1 ? `${Math.ceil(wait / 60)} minutes` : `${wait} seconds`}.`
            : 'Too many attempts. Try again later.',
        );
        return null;
      }
      if (res.status === 403) {
        gateError(problemText(data, 'This e-mail address may not open this dashboard.'));
        return null;
      }
      if (!res.ok && res.status !== 202) {
        gateError(problemText(data, `Access refused (${res.status}).`));
        return null;
      }
      return { status: res.status, data };
    } catch {
      gateError('The service could not be reached. Try again.');
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
    if (!$('password-field').hidden && !payload.password) return gateError('Enter the password.');
    if (!$('email-field').hidden) {
      const email = $('gate-email').value.trim();
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) return gateError('Enter a valid e-mail address.');
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
        `We sent a code to ${pendingEmail}.` +
        (until ? ` It is valid until ${until.toLocaleTimeString(undefined, { timeStyle: 'short' })}.` : '');
      $('gate-code').focus();
      return;
    }
    await granted(answer.data);
  });

  $('code-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const code = $('gate-code').value.trim();
    if (!code) return gateError('Enter the code from the e-mail.');
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
  if (!memoryToken && (body.dataset.requiresPassword === 'true' || body.dataset.requiresEmail === 'true')) {
    showGate({});
  } else {
    load();
  }
})();
