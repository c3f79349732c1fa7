// adreport live dashboard: plain browser JavaScript, no build step.
// The API key lives in sessionStorage (this tab only) and goes out as a bearer token.
'use strict';

const REFRESH_MS = 5000;
const TOP_N = 10;
const state = { key: sessionStorage.getItem('adreport.key'), role: null, rollups: [], chart: null, timer: null, busy: false };
const $ = (id) => document.getElementById(id);

async function api(path) {
  const res = await fetch(path, { headers: { Authorization: 'Bearer ' + state.key }, cache: 'no-store' });
  if (res.status === 401) { signOut('Your key is unknown or was revoked.'); throw new Error('unauthorized'); }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) { throw new Error(body.error || ('HTTP ' + res.status)); }
  return body;
}

// --- formatting --------------------------------------------------------------------------
function label(metric) { return metric.endsWith('Micros') ? metric.slice(0, -6) : metric; }
function fmt(metric, v) {
  if (v === null || v === undefined) { return '–'; }
  if (metric === 'ctr' || metric === 'cvr') { return (v * 100).toFixed(2) + '%'; }
  if (metric.endsWith('Micros')) { return (v / 1e6).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }); }
  if (!Number.isInteger(v)) { return v.toFixed(2); }
  return v.toLocaleString('en-US');
}
function timeLabel(iso, granularity) {
  if (granularity === 'month') { return iso.slice(0, 7); }
  if (granularity === 'day') { return iso.slice(0, 10); }
  return iso.slice(5, 10) + ' ' + iso.slice(11, 16);
}
function isoDate(d) { return d.toISOString().slice(0, 10); }
function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined) { e.textContent = text; }
  Object.entries(attrs || {}).forEach(([k, v]) => e.setAttribute(k, v));
  return e;
}

// --- sign in / out -----------------------------------------------------------------------
function showSignIn(message) {
  $('app').hidden = true; $('who').hidden = true; $('sign-in').hidden = false;
  $('sign-in-error').textContent = message || '';
}
function signOut(message) {
  sessionStorage.removeItem('adreport.key');
  state.key = null;
  clearInterval(state.timer);
  showSignIn(message);
}
async function signIn(key) {
  state.key = key;
  try {
    const body = await api('/v1/rollups');
    sessionStorage.setItem('adreport.key', key);
    state.role = body.role;
    state.rollups = body.rollups;
    start();
  } catch (e) {
    if (e.message !== 'unauthorized') { showSignIn(e.message); }
  }
}

// --- controls ----------------------------------------------------------------------------
function rollup() { return state.rollups.find(r => r.name === $('rollup').value); }
function tenantKind() { return state.role.includes(':') ? state.role.split(':')[0] : null; }

function fillSelect(select, values, selected) {
  select.replaceChildren(...values.map(v => el('option', label(v), { value: v })));
  if (values.includes(selected)) { select.value = selected; }
}

function onRollupChange() {
  const r = rollup();
  const metrics = r.metrics.filter(m => !m.startsWith('unattributed') || r.dimensions.length === 0).concat(r.derived);
  fillSelect($('metric'), metrics, $('metric').value || 'impressions');
  const groupable = r.dimensions.filter(d => d !== tenantKind());
  fillSelect($('group-by'), groupable, groupable[groupable.length - 1]);
  $('group-by').disabled = groupable.length === 0;
  const filters = $('filters');
  filters.replaceChildren();
  r.dimensions.forEach(d => {
    const input = el('input', undefined, { id: 'filter-' + d, placeholder: 'any', 'data-dimension': d });
    if (d === tenantKind()) { input.value = state.role.split(':').slice(1).join(':'); input.disabled = true; }
    input.addEventListener('change', refresh);
    const l = el('label', d); l.appendChild(input); filters.appendChild(l);
  });
  refresh();
}

function query(extra) {
  const p = new URLSearchParams();
  const through = new Date($('through').value + 'T00:00:00Z');
  p.set('from', $('from').value);
  p.set('to', isoDate(new Date(through.getTime() + 86400000)));
  p.set('tz', $('tz').value);
  document.querySelectorAll('#filters input').forEach(i => {
    if (!i.disabled && i.value.trim() !== '') { p.set(i.dataset.dimension, i.value.trim()); }
  });
  Object.entries(extra).forEach(([k, v]) => p.set(k, v));
  return '/v1/reports/' + encodeURIComponent(rollup().name) + '?' + p.toString();
}

// --- rendering ---------------------------------------------------------------------------
function renderKpis(row) {
  const shown = ['impressions', 'clicks', 'conversions', 'spendMicros', 'ctr', 'ecpm'];
  $('kpis').replaceChildren(...shown.filter(m => m in row.metrics).map(m => {
    const card = el('div', undefined, { class: 'kpi', id: 'kpi-' + m });
    card.appendChild(el('div', label(m), { class: 'label' }));
    card.appendChild(el('div', fmt(m, row.metrics[m]), { class: 'value', 'data-value': String(row.metrics[m]) }));
    return card;
  }));
}

function renderDays(days) {
  $('days').replaceChildren(...Object.entries(days).map(([day, d]) =>
    el('span', day.slice(5) + ' ' + d.status, { class: 'day ' + d.status, title: d.status + ' as of ' + d.asOf, 'data-day': day })));
}

// The moment an answer speaks of: its freshest day mark. A live day is "as of" the server's clock
// when it answered; a reconciled day's recount ran after the day ended. The browser's clock
// (which may be off, or in another zone) is only the fallback for an answer without marks.
function answeredAt(body) {
  const marks = Object.values(body.days || {}).map(d => Date.parse(d.asOf)).filter(Number.isFinite);
  return marks.length ? Math.max(...marks) : Date.now();
}

// A series has every bucket of the range (zero where nothing was counted), so a bucket runs until
// the next one starts, the last one until the range ends. At `now` a bucket is over (complete),
// still running (partial: its number will grow) or not begun (future: nothing to draw, not zero).
function bucketPhases(body, now) {
  return body.rows.map((r, i) => {
    const start = Date.parse(r.time);
    const end = Date.parse(i + 1 < body.rows.length ? body.rows[i + 1].time : body.to);
    return start > now ? 'future' : end > now ? 'partial' : 'complete';
  });
}

// HH:MM of `t` in the report's zone (in UTC where this browser does not know the zone).
function clockTime(t, tz) {
  try { return new Date(t).toLocaleTimeString('en-GB', { timeZone: tz, hour: '2-digit', minute: '2-digit' }); } catch (e) {
    return new Date(t).toISOString().slice(11, 16) + ' UTC';
  }
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

const BLUE = '#2f6fed';

// Complete buckets are one series; the bucket in progress is a second one named "partial": a
// hollow point at the end of a dashed segment (lines), or a pale dashed bar (bars). Buckets that
// have not begun have no value in either, so the line ends at now instead of dropping to zero.
function renderChart(body, metric, granularity) {
  if (!state.chart) { state.chart = echarts.init($('chart')); window.addEventListener('resize', () => state.chart.resize()); }
  $('chart-title').textContent = label(metric) + ' by ' + granularity + ' (' + body.tz + ')';
  const now = answeredAt(body);
  const phase = bucketPhases(body, now);
  const values = body.rows.map(r => r.metrics[metric]);
  const p = phase.indexOf('partial');
  const line = granularity === 'hour';
  const name = label(metric);
  const partialName = 'partial (' + granularity + ' in progress)';
  const asOf = clockTime(now, body.tz);
  const series = [{ name, type: line ? 'line' : 'bar', smooth: false, symbol: 'none', areaStyle: { opacity: 0.08 },
    itemStyle: { color: BLUE }, barGap: '-100%', data: values.map((v, i) => phase[i] === 'complete' ? v : null) }];
  if (p >= 0) {
    series.push(line
      ? { name: partialName, type: 'line', smooth: false, showSymbol: true, lineStyle: { type: 'dashed', width: 2 },
        areaStyle: { opacity: 0.04 }, itemStyle: { color: BLUE }, data: values.map((v, i) =>
          i === p ? { value: v, symbol: 'emptyCircle', symbolSize: 9 } : i === p - 1 ? { value: v, symbol: 'none' } : null) }
      : { name: partialName, type: 'bar', barGap: '-100%',
        itemStyle: { color: 'rgba(47,111,237,0.25)', borderColor: BLUE, borderType: 'dashed', borderWidth: 1.5 },
        data: values.map((v, i) => i === p ? v : null) });
  }
  state.chart.setOption({
    animation: false,
    legend: { show: p >= 0, top: 0, right: 24, data: [name, partialName], textStyle: { color: '#6b7588' } },
    grid: { left: 64, right: 24, top: p >= 0 ? 34 : 20, bottom: 40 },
    tooltip: { trigger: 'axis', formatter: ps => {
      const i = ps[0].dataIndex;
      const head = escapeHtml(ps[0].axisValueLabel);
      if (phase[i] === 'future') { return head + '<br>not yet'; }
      const v = fmt(metric, values[i]);
      return head + '<br>' + escapeHtml(name) + ': <b>' + v + '</b>'
        + (phase[i] === 'partial' ? '<br>partial: ' + granularity + ' in progress, so far (as of ' + asOf + ')' : '');
    } },
    xAxis: { type: 'category', data: body.rows.map(r => timeLabel(r.time, granularity)), axisLabel: { color: '#6b7588' } },
    yAxis: { type: 'value', axisLabel: { color: '#6b7588', formatter: v => fmt(metric, v) }, splitLine: { lineStyle: { color: '#eef1f5' } } },
    series
  }, true);
}

function renderTable(body, groupBy, metrics) {
  const table = $('top-table');
  $('table-title').textContent = 'Top ' + TOP_N + ' ' + groupBy + ' by ' + label(metrics[0]);
  const head = el('tr');
  [groupBy].concat(metrics).forEach(c => head.appendChild(el('th', label(c))));
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(...body.rows.map(r => {
    const tr = el('tr');
    tr.appendChild(el('td', r.dimensions[groupBy] === '' ? '(none)' : r.dimensions[groupBy], { 'data-column': groupBy }));
    metrics.forEach(m => tr.appendChild(el('td', fmt(m, r.metrics[m]), { 'data-column': m, 'data-value': String(r.metrics[m]) })));
    return tr;
  }));
}

// The drift JSON is the reconcile job's report, passed through by the API: its day-wide figures
// are under drift.totals. A closing day (recount running or failed) has no report yet: dashes.
// The same answer carries the aggregators' count of refused pixel beacons: its own tile.
async function renderDrift() {
  if (state.role !== 'analyst') { $('drift-card').hidden = true; $('trust-kpis').hidden = true; return; }
  const body = await api('/v1/reconcile');
  $('drift-card').hidden = false;
  $('trust-kpis').hidden = false;
  const refused = $('kpi-beaconsRefused').querySelector('.value');
  refused.textContent = fmt('beaconsRefused', body.beaconsRefused);
  refused.dataset.value = String(body.beaconsRefused);
  const figures = [['eventsRead', 'events read'], ['cellsCorrected', 'cells corrected'], ['absoluteDrift', 'absolute drift']];
  const table = $('drift-table');
  const head = el('tr');
  ['day', 'status'].concat(figures.map(f => f[1])).forEach(c => head.appendChild(el('th', c)));
  table.tHead.replaceChildren(head);
  const rows = body.days.map(d => {
    const totals = (d.drift && typeof d.drift === 'object' && d.drift.totals) || {};
    const tr = el('tr', undefined, { 'data-day': d.day });
    tr.appendChild(el('td', d.day, { 'data-column': 'day' }));
    tr.appendChild(el('td', d.status, { 'data-column': 'status' }));
    figures.forEach(([name]) => {
      const v = Number.isInteger(totals[name]) ? totals[name] : null;
      tr.appendChild(el('td', fmt(name, v), { 'data-column': name, 'data-value': v === null ? '' : String(v) }));
    });
    return tr;
  });
  table.tBodies[0].replaceChildren(...(rows.length ? rows : [el('tr')]));
  if (!rows.length) { table.tBodies[0].firstChild.appendChild(el('td', 'no reconciled days yet', { colspan: String(2 + figures.length) })); }
}

// Budget burn: today's cumulative spend by quarter hour against the even pacing curve, for one
// campaign with a budget (advertisers: their own; analysts: all). Other roles see no card.
async function renderBudget() {
  if (state.role !== 'analyst' && tenantKind() !== 'advertiser') { $('budget-card').hidden = true; return; }
  const list = await api('/v1/campaigns');
  const budgeted = list.campaigns.filter(c => c.budget).map(c => c.advertiser + '/' + c.campaign);
  if (!budgeted.length) { $('budget-card').hidden = true; return; }
  $('budget-card').hidden = false;
  const select = $('budget-campaign');
  const current = select.value;
  if (select.options.length !== budgeted.length) { fillSelect(select, budgeted, current || budgeted[0]); }
  const [adv, camp] = select.value.split('/');
  const b = await api('/v1/campaigns/' + encodeURIComponent(adv) + '/' + encodeURIComponent(camp) + '/budget');
  const money = v => (v === null || v === undefined) ? '–' : fmt('spendMicros', v);
  $('budget-title').textContent = 'Budget burn, ' + b.day + ' (' + b.timeZone + ')';
  const facts = [['spent today', money(b.spentTodayMicros)], ['daily budget', money(b.dailyMicros)],
    ['lifetime', money(b.spentLifetimeMicros) + ' of ' + money(b.lifetimeMicros)], ['remaining', money(b.remainingMicros)],
    ['unflushed ≤', money(b.unflushedBoundMicros)], ['pacing rate', b.pacing.rate === undefined ? '–' : (b.pacing.rate * 100).toFixed(1) + '%'],
    ['state', b.exhausted ? 'exhausted' : 'serving']];
  $('budget-facts').replaceChildren(...facts.map(([k, v]) => {
    const f = el('span', undefined, { class: 'fact' + (k === 'state' && b.exhausted ? ' bad' : ''), 'data-fact': k });
    f.appendChild(el('b', k)); f.appendChild(document.createTextNode(' ' + v)); return f;
  }));
  if (!state.budgetChart) { state.budgetChart = echarts.init($('budget-chart')); window.addEventListener('resize', () => state.budgetChart.resize()); }
  const series = [{ name: 'spent', type: 'line', showSymbol: false, itemStyle: { color: '#2f6fed' }, areaStyle: { opacity: 0.08 },
    data: b.burn.map(p => p.spentMicros) }];
  if (b.dailyMicros) {
    series.push({ name: 'pacing curve', type: 'line', showSymbol: false, lineStyle: { type: 'dashed' }, itemStyle: { color: '#9aa3b2' },
      data: b.burn.map(p => p.targetMicros) });
  }
  state.budgetChart.setOption({
    animation: false, legend: { top: 0 },
    grid: { left: 64, right: 24, top: 28, bottom: 40 },
    tooltip: { trigger: 'axis', valueFormatter: v => fmt('spendMicros', v) },
    xAxis: { type: 'category', data: b.burn.map(p => p.time.slice(11, 16)), axisLabel: { color: '#6b7588' } },
    yAxis: { type: 'value', axisLabel: { color: '#6b7588', formatter: v => fmt('spendMicros', v) }, splitLine: { lineStyle: { color: '#eef1f5' } } },
    series
  }, true);
}

async function refresh() {
  if (state.busy || !state.key || !rollup()) { return; }
  state.busy = true;
  const metric = $('metric').value;
  const granularity = $('granularity').value;
  const groupBy = $('group-by').value;
  const tableMetrics = [metric].concat(['impressions', 'clicks', 'ctr', 'spendMicros'].filter(m => m !== metric));
  try {
    const [series, totals] = await Promise.all([
      api(query({ granularity, metrics: metric })),
      api(query({ granularity: 'all' }))]);
    renderChart(series, metric, granularity);
    renderDays(series.days);
    renderKpis(totals.rows[0]);
    if (groupBy) {
      renderTable(await api(query({ granularity: 'all', groupBy, metrics: tableMetrics.join(','), orderBy: '-' + metric, limit: TOP_N })),
        groupBy, tableMetrics);
    }
    await renderDrift();
    await renderBudget();
    $('status').textContent = 'Updated ' + new Date().toLocaleTimeString() + ' · refreshing every ' + REFRESH_MS / 1000 + ' s';
    $('status').parentElement.classList.remove('bad');
  } catch (e) {
    if (e.message !== 'unauthorized') { $('status').textContent = 'Error: ' + e.message; $('status').parentElement.classList.add('bad'); }
  } finally {
    state.busy = false;
  }
}

function start() {
  $('sign-in').hidden = true; $('app').hidden = false; $('who').hidden = false;
  $('role').textContent = state.role;
  const today = new Date();
  if (!$('through').value) { $('through').value = isoDate(today); }
  if (!$('from').value) { $('from').value = isoDate(new Date(today.getTime() - 86400000)); }
  fillSelect($('rollup'), state.rollups.map(r => r.name), state.rollups.some(r => r.name === 'campaign') ? 'campaign' : state.rollups[0].name);
  onRollupChange();
  clearInterval(state.timer);
  state.timer = setInterval(refresh, REFRESH_MS);
}

$('sign-in-form').addEventListener('submit', e => { e.preventDefault(); signIn($('key').value.trim()); });
$('sign-out').addEventListener('click', () => signOut());
$('rollup').addEventListener('change', onRollupChange);
['metric', 'granularity', 'tz', 'from', 'through', 'group-by', 'budget-campaign'].forEach(id => $(id).addEventListener('change', refresh));
if (state.key) { signIn(state.key); } else { showSignIn(); }
