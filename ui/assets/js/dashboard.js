// The dashboard: the latest version of each deployed process with the
// running instances and open incidents of all its versions, and the jobs
// that failed for good, the job executors and the jobs' throughput.
import { h, mount, get, uiGet, list, pagedTable, table, short, time, poll } from './lib.js';

export async function dashboard() {
  const [stats, executors, throughput] = await Promise.all([get('/process-definition/statistics?incidents=true'), uiGet('api/job-executors'), uiGet('api/job-throughput')]);
  const byKey = countsByKey(stats);
  const totals = total(byKey);
  const definitions = await pagedTable(
    ['Process', 'Key', 'Version', 'Running', 'Incidents'],
    (first, max) => list('/process-definition', { latestVersion: true, sortBy: 'key', sortOrder: 'asc' }, first, max),
    (d) => {
      const k = byKey[keyOf(d)] ?? { instances: 0, incidents: 0, versions: 1 };
      return [
        h('a', { href: `#/definition/${encodeURIComponent(d.id)}`, class: 'definition-link', 'data-key': d.key }, d.name || d.key),
        d.key,
        k.versions > 1 ? `${d.version} (${k.versions} deployed)` : String(d.version),
        h('span', { class: 'count-running', 'data-key': d.key, 'data-of': keyOf(d) }, String(k.instances)),
        h('span', { class: k.incidents ? 'count-incidents bad' : 'count-incidents', 'data-key': d.key, 'data-of': keyOf(d) }, String(k.incidents)),
      ];
    },
    { empty: 'No processes deployed yet: upload some under Deployments.' });

  const failedJobs = await pagedTable(
    ['Job', 'Activity', 'Instance', 'Message', 'Created'],
    (first, max) => list('/job', { withException: true, noRetriesLeft: true, sortBy: 'jobDueDate', sortOrder: 'asc' }, first, max),
    (j) => [
      short(j.id),
      j.failedActivityId || '',
      j.processInstanceId ? h('a', { href: `#/instance/${j.processInstanceId}` }, short(j.processInstanceId)) : '',
      h('span', { class: 'message' }, j.exceptionMessage || ''),
      time(j.createTime),
    ],
    { pageSize: 10, empty: 'No failed jobs.' });

  mount(
    h('h1', {}, 'Processes'),
    h('div', { class: 'summary' },
      h('div', { class: 'stat' }, h('b', { id: 'total-running' }, String(totals.instances)), ' running instances'),
      h('div', { class: totals.incidents ? 'stat bad' : 'stat' }, h('b', { id: 'total-incidents' }, String(totals.incidents)), ' open incidents')),
    throughputChart(throughput),
    definitions,
    h('h2', {}, 'Failed jobs'),
    failedJobs,
    h('h2', {}, 'Job executors'),
    executorTable(executors));
  poll(async (live) => {
    const [now, minutes] = await Promise.all([
      get('/process-definition/statistics?incidents=true').then(countsByKey),
      uiGet('api/job-throughput'),
    ]);
    if (!live()) return;
    const chart = document.getElementById('throughput');
    if (chart.dataset.minutes !== JSON.stringify(minutes)) chart.replaceWith(throughputChart(minutes));
    for (const el of document.querySelectorAll('.count-running[data-of]')) el.textContent = String(now[el.dataset.of]?.instances ?? 0);
    for (const el of document.querySelectorAll('.count-incidents[data-of]')) {
      const n = now[el.dataset.of]?.incidents ?? 0;
      el.textContent = String(n);
      el.classList.toggle('bad', n > 0);
    }
    const t = total(now);
    document.getElementById('total-running').textContent = String(t.instances);
    document.getElementById('total-incidents').textContent = String(t.incidents);
  });
}

// keyOf names a definition's key in its tenant.
const keyOf = (d) => d.key + '\u0000' + (d.tenantId ?? '');

// countsByKey sums the statistics of each definition version per key: the
// running instances and open incidents of all its versions.
function countsByKey(stats) {
  const byKey = {};
  for (const s of stats) {
    const k = (byKey[keyOf(s.definition)] ??= { instances: 0, incidents: 0, versions: 0 });
    k.instances += s.instances;
    k.incidents += s.incidents.reduce((n, i) => n + i.incidentCount, 0);
    k.versions++;
  }
  return byKey;
}

function total(byKey) {
  return Object.values(byKey).reduce((t, k) => ({ instances: t.instances + k.instances, incidents: t.incidents + k.incidents }), { instances: 0, incidents: 0 });
}

// executorTable shows the job executors that reported lately: what they
// take, and how busy their workers are.
function executorTable(executors) {
  const priorities = (x) => (x.priorityMin === null && x.priorityMax === null ? 'any priority' : `priority ${x.priorityMin ?? '…'} to ${x.priorityMax ?? '…'}`);
  return table(['Executor', 'Takes jobs of', 'Busy workers', 'Queue', 'Last report'], executors.map((x) => [
    h('code', {}, x.id),
    [x.deploymentAware ? `${x.deployments?.length || 0} registered deployments` : 'every deployment', ', ', priorities(x)],
    h('span', { class: 'meter', title: `${x.inflight} jobs in flight on ${x.poolSize} workers` },
      h('meter', { min: 0, max: Math.max(x.poolSize, 1), value: Math.min(x.inflight, x.poolSize) }), ` ${x.inflight} / ${x.poolSize}`),
    String(x.queueSize),
    time(x.heartbeat),
  ]), 'No job executor reported in the last 30 seconds: jobs wait until one runs (bpmnlite serve runs one).');
}

const svgNS = 'http://www.w3.org/2000/svg';

// svg builds an SVG element as h builds an HTML one.
function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

// throughputChart draws the jobs that succeeded (green) and failed (red)
// in each minute of minutes (the engine's reports, oldest first) as
// stacked bars, with the totals above.
function throughputChart(minutes) {
  const succeeded = minutes.reduce((n, m) => n + m.succeeded, 0);
  const failed = minutes.reduce((n, m) => n + m.failed, 0);
  const top = Math.max(1, ...minutes.map((m) => m.succeeded + m.failed));
  const width = 640;
  const height = 90;
  const plot = { left: 40, right: 24, bottom: 18, top: 8 };
  const barWidth = (width - plot.left - plot.right) / minutes.length;
  const scale = (n) => (n / top) * (height - plot.bottom - plot.top);
  const hhmm = (iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'chart', role: 'img', 'aria-label': `jobs per minute: ${succeeded} succeeded, ${failed} failed in the last ${minutes.length} minutes` },
    svg('line', { x1: plot.left, x2: width - plot.right, y1: height - plot.bottom, y2: height - plot.bottom, class: 'axis' }),
    svg('text', { x: plot.left - 6, y: plot.top + 8, class: 'tick', 'text-anchor': 'end' }, String(top)),
    svg('text', { x: plot.left - 6, y: height - plot.bottom, class: 'tick', 'text-anchor': 'end' }, '0'));
  minutes.forEach((m, i) => {
    const x = plot.left + i * barWidth + 2;
    const ok = scale(m.succeeded);
    const bad = scale(m.failed);
    const base = height - plot.bottom;
    chart.append(svg('g', { class: 'minute', 'data-start': m.start, 'data-succeeded': m.succeeded, 'data-failed': m.failed },
      svg('title', {}, `${hhmm(m.start)}: ${m.succeeded} succeeded, ${m.failed} failed`),
      svg('rect', { x, width: barWidth - 4, y: base - ok, height: ok, class: 'ok' }),
      svg('rect', { x, width: barWidth - 4, y: base - ok - bad, height: bad, class: 'bad' })));
    if (i % 5 === 0 || i === minutes.length - 1) {
      chart.append(svg('text', { x: x + (barWidth - 4) / 2, y: height - 4, class: 'tick', 'text-anchor': 'middle' }, hhmm(m.start)));
    }
  });
  return h('div', { id: 'throughput', class: 'throughput', 'data-minutes': JSON.stringify(minutes) },
    h('p', { class: 'muted' },
      'Jobs per minute: ', h('b', { id: 'jobs-succeeded', class: 'ok' }, String(succeeded)), ' succeeded, ',
      h('b', { id: 'jobs-failed', class: failed ? 'bad' : '' }, String(failed)), ` failed in the last ${minutes.length} minutes`,
      h('span', { title: 'from the metrics the engines report (job-successful, job-failed) every Config.Metrics.ReportInterval' }, ' (as reported)')),
    chart);
}
