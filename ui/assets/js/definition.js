// A definition: its diagram with running tokens and incidents per
// activity, its versions, its instances (paged, filtered), suspending it,
// and starting an instance.
import { h, mount, api, get, uiGet, pagedTable, query, short, act, variableRows, toast, poll } from './lib.js';
import { showDiagram, setBadges, setHeat } from './diagram.js';
import { showForm } from './forms.js';

export async function definitionPage(id, params) {
  const enc = encodeURIComponent(id);
  const [def, xml, stats] = await Promise.all([
    get(`/process-definition/${enc}`),
    get(`/process-definition/${enc}/xml`),
    get(`/process-definition/${enc}/statistics?incidents=true`),
  ]);
  const allVersions = await get('/process-definition' + query({ key: def.key, tenantIdIn: def.tenantId, withoutTenantId: def.tenantId ? undefined : true, sortBy: 'version', sortOrder: 'desc', maxResults: 50 }));
  const { running, incidents } = activityCounts(stats);

  const versionSelect = h('select', { 'aria-label': 'version', onchange: (e) => { location.hash = `#/definition/${encodeURIComponent(e.target.value)}`; } },
    allVersions.map((v) => h('option', { value: v.id, selected: v.id === def.id }, `version ${v.version}`)));

  const suspend = h('button', { type: 'button', id: 'suspend' }, def.suspended ? 'Activate' : 'Suspend');
  suspend.onclick = act(suspend,
    () => api('PUT', `/process-definition/${enc}/suspended`, { suspended: !def.suspended, includeProcessInstances: false }),
    def.suspended ? 'Activated' : 'Suspended', () => definitionPage(id, params));

  const canvas = h('div', { class: 'diagram', id: 'diagram' });
  const heat = h('input', { type: 'checkbox', id: 'heat' });
  const durations = async () => Object.fromEntries((await uiGet(`api/process-definitions/${enc}/activity-durations`)).map((s) => [s.activityId, s]));
  heat.onchange = async () => {
    if (!heat.checked) return setHeat({});
    setHeat(await durations().catch((err) => (toast(err.message, true), {})));
  };
  const instances = await instanceList(def, params);
  mount(
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Processes'), ' › ', def.key),
    h('div', { class: 'title-row' },
      h('h1', {}, def.name || def.key, def.suspended ? h('span', { class: 'tag' }, 'suspended') : ''),
      versionSelect, suspend),
    h('p', { class: 'muted' }, `${def.id} · deployment `, short(def.deploymentId), ` · ${def.resource}`),
    canvas,
    h('label', { class: 'heat-toggle', title: 'activity instances finished at each activity and their mean duration, from history' }, heat, ' Heat map: finished activities and their mean duration'),
    startForm(def),
    h('h2', {}, 'Instances'),
    instances);
  await showDiagram(canvas, xml.bpmn20Xml, { running, incidents });
  poll(async (live) => {
    const counts = activityCounts(await get(`/process-definition/${enc}/statistics?incidents=true`));
    const heated = heat.checked ? await durations() : null;
    if (!live()) return;
    setBadges(counts.running, counts.incidents);
    if (heated && heat.checked) setHeat(heated);
  });
}

// activityCounts maps activity ids to their executions and open incidents.
function activityCounts(stats) {
  const running = {};
  const incidents = {};
  for (const s of stats) {
    running[s.id] = s.instances;
    incidents[s.id] = s.incidents.reduce((n, i) => n + i.incidentCount, 0);
  }
  return { running, incidents };
}

// instanceList is the definition's instances with filters kept in the URL.
async function instanceList(def, params) {
  // The POST form of the query: its variable values keep their JSON type
  // (the GET form compares strings only, as Camunda's).
  const f = {
    processDefinitionId: def.id,
    businessKeyLike: params.get('businessKey') ? `%${params.get('businessKey')}%` : undefined,
    withIncident: params.get('incident') === 'yes' ? true : undefined,
    suspended: params.get('state') === 'suspended' ? true : undefined,
    active: params.get('state') === 'active' ? true : undefined,
    variables: params.get('variable') ? [variableFilter(params.get('variable'))] : undefined,
  };
  const input = (name, label, attrs = {}) => h('label', {}, label, ' ', h('input', { name, value: params.get(name) || '', ...attrs }));
  const filters = h('form', { class: 'filters' },
    input('businessKey', 'Business key'),
    h('label', {}, 'State ', h('select', { name: 'state' }, ['', 'active', 'suspended'].map((s) => h('option', { value: s, selected: params.get('state') === s }, s || 'any')))),
    h('label', {}, h('input', { type: 'checkbox', name: 'incident', value: 'yes', checked: params.get('incident') === 'yes' }), ' with incident'),
    input('variable', 'Variable', { placeholder: 'name=value', size: 14 }),
    h('button', { type: 'submit' }, 'Filter'));
  filters.onsubmit = (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(filters)) if (v) q.set(k, v);
    location.hash = `#/definition/${encodeURIComponent(def.id)}` + (q.size ? '?' + q : '');
  };
  const table = await pagedTable(
    ['Instance', 'Business key', 'State'],
    (first, max) => Promise.all([
      api('POST', '/process-instance' + query({ firstResult: first, maxResults: max }), { ...f, sorting: [{ sortBy: 'instanceId', sortOrder: 'desc' }] }),
      api('POST', '/process-instance/count', f).then((c) => c.count),
    ]),
    (p) => [
      h('a', { href: `#/instance/${p.id}`, class: 'instance-link' }, p.id),
      p.businessKey || '',
      p.suspended ? 'suspended' : 'active',
    ],
    { empty: 'No running instances match.' });
  return h('div', {}, filters, table);
}

// variableFilter makes Camunda's variable condition of "name=value": an
// equality on the value as JSON (a number, true, false, "quoted") when it
// reads as JSON, else as a string.
function variableFilter(text) {
  const [name, ...rest] = text.split('=');
  const raw = rest.join('=').trim();
  let value = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // a plain string
  }
  return { name: name.trim(), operator: 'eq', value };
}

// startForm starts an instance of def: with its start form (forms.js) when
// it has one, else with a business key and variables. It is drawn when
// opened: a Camunda Form loads form-js.
function startForm(def) {
  const enc = encodeURIComponent(def.id);
  const businessKey = h('input', { name: 'businessKey', 'aria-label': 'business key', placeholder: 'business key (optional)' });
  const box = h('div', { class: 'start', id: 'start-form' });
  const opened = (instance) => {
    toast('Started ' + instance.id);
    location.hash = `#/instance/${instance.id}`;
  };
  const plain = () => {
    const vars = variableRows();
    const go = h('button', { type: 'submit', class: 'primary', id: 'complete' }, 'Start instance');
    const form = h('form', {}, vars, go);
    form.onsubmit = act(go, async () => opened(await api('POST', `/process-definition/${enc}/start`, { businessKey: businessKey.value || undefined, variables: vars.collect() })));
    box.replaceChildren(businessKey, form);
  };
  const details = h('details', {}, h('summary', {}, 'Start an instance…'), box);
  details.addEventListener('toggle', async () => {
    if (!details.open || box.childElementCount) return;
    const formBox = h('div', { class: 'task-form' });
    box.replaceChildren(businessKey, formBox);
    let started;
    try {
      await showForm(formBox, {
        base: `/process-definition/${enc}`,
        definitionId: def.id,
        element: (doc) => startEvent(doc, def.key),
        noForm: plain,
        submit: async (variables) => { started = await api('POST', `/process-definition/${enc}/submit-form`, { businessKey: businessKey.value || undefined, variables }); },
        done: () => opened(started),
      });
    } catch (err) {
      box.replaceChildren(h('p', { class: 'error' }, err.message));
    }
  });
  return details;
}

// startEvent is the start event of process key whose form fields a
// generated start form shows (the process's own, not an event
// subprocess's).
function startEvent(doc, key) {
  const process = [...doc.getElementsByTagName('*')].find((e) => e.localName === 'process' && e.getAttribute('id') === key);
  const starts = [...(process?.children || [])].filter((e) => e.localName === 'startEvent');
  return starts.find((e) => e.getElementsByTagNameNS('http://camunda.org/schema/1.0/bpmn', 'formField').length) || starts[0];
}
