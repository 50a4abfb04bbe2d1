// The dashboard: the latest version of each deployed process with the
// running instances and open incidents of all its versions, and the jobs
// that failed for good.
import { h, mount, get, uiGet, list, pagedTable, table, short, time, poll } from './lib.js';

export async function dashboard() {
  const [stats, executors] = await Promise.all([get('/process-definition/statistics?incidents=true'), uiGet('api/job-executors')]);
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
    definitions,
    h('h2', {}, 'Failed jobs'),
    failedJobs,
    h('h2', {}, 'Job executors'),
    executorTable(executors));
  poll(async (live) => {
    const now = countsByKey(await get('/process-definition/statistics?incidents=true'));
    if (!live()) return;
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
