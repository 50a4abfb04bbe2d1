// The tasklist: my tasks, the tasks I or my groups may claim, all tasks;
// a task's page with claim, unclaim, and its form (a Camunda Form drawn by
// form-js, a generated form of camunda:formData, or a form of variables).
import { h, mount, api, get, list, pagedTable, query, time, act, user, shownValue, typedValue, variableRows, toast, loadScript, loadStyle } from './lib.js';

const views = {
  mine: { label: 'My tasks', params: () => ({ assignee: user() }) },
  candidate: { label: 'Claimable', params: (groups) => (groups ? { candidateGroups: groups } : { candidateUser: user() }) },
  all: { label: 'All tasks', params: () => ({}) },
};

export async function taskList(params) {
  const view = views[params.get('view')] ? params.get('view') : (user() ? 'mine' : 'all');
  const groups = params.get('groups') || '';
  const tabs = h('div', { class: 'tabs', role: 'tablist' }, Object.entries(views).map(([k, v]) =>
    h('a', { href: `#/tasks?view=${k}`, class: k === view ? 'current' : '', role: 'tab', 'aria-selected': k === view ? 'true' : 'false' }, v.label)));
  const groupForm = h('form', { class: 'filters' },
    h('label', {}, 'Candidate groups ', h('input', { name: 'groups', value: groups, placeholder: 'sales,management', title: 'comma separated; empty: the tasks you are a candidate user of' })),
    h('button', { type: 'submit' }, 'Show'));
  groupForm.onsubmit = (ev) => {
    ev.preventDefault();
    location.hash = '#/tasks' + query({ view: 'candidate', groups: new FormData(groupForm).get('groups') });
  };
  if (view !== 'all' && !user() && !(view === 'candidate' && groups)) {
    mount(h('h1', {}, 'Tasks'), tabs, h('p', { class: 'muted' }, 'Type your user name at the top right to see your tasks.'));
    return;
  }
  const tasks = await pagedTable(['Task', 'Process', 'Assignee', 'Created', 'Priority'],
    (first, max) => list('/task', { ...views[view].params(groups), sortBy: 'created', sortOrder: 'desc' }, first, max),
    (t) => [
      h('a', { href: `#/task/${t.id}`, class: 'task-link', 'data-key': t.taskDefinitionKey }, t.name || t.taskDefinitionKey),
      t.processDefinitionId ? t.processDefinitionId.split(':')[0] : '',
      t.assignee || h('span', { class: 'muted' }, 'unassigned'),
      time(t.created),
      String(t.priority),
    ],
    { empty: 'No tasks here.' });
  mount(h('h1', {}, 'Tasks'), tabs, view === 'candidate' ? groupForm : '', tasks);
}

export async function taskPage(id) {
  const enc = encodeURIComponent(id);
  let task;
  try {
    task = await get(`/task/${enc}`);
  } catch (err) {
    if (err.status !== 404) throw err;
    mount(h('h1', {}, 'Task done'), h('p', {}, 'This task is completed or gone. ', h('a', { href: '#/tasks' }, 'Back to the tasks')));
    return;
  }
  const again = () => taskPage(id);
  const me = user();
  const buttons = [];
  const button = (label, action, done, attrs = {}) => {
    const b = h('button', { type: 'button', ...attrs }, label);
    b.onclick = act(b, action, done, again);
    buttons.push(b);
  };
  if (!task.assignee && me) button('Claim', () => api('POST', `/task/${enc}/claim`, { userId: me }), 'Claimed', { id: 'claim', class: 'primary' });
  if (task.assignee) button('Unclaim', () => api('POST', `/task/${enc}/unclaim`), 'Unclaimed', { id: 'unclaim' });
  const assignee = h('input', { placeholder: 'user', size: 10, 'aria-label': 'assign to user' });
  button('Assign', () => {
    if (!assignee.value.trim()) throw new Error('type the user to assign the task to');
    return api('POST', `/task/${enc}/assignee`, { userId: assignee.value.trim() });
  }, 'Assigned');
  buttons.splice(buttons.length - 1, 0, assignee);
  const formBox = h('div', { class: 'task-form', id: 'task-form' });
  mount(
    h('p', { class: 'crumbs' }, h('a', { href: '#/tasks' }, 'Tasks'), ' › ', task.name || task.taskDefinitionKey),
    h('div', { class: 'title-row' }, h('h1', {}, task.name || task.taskDefinitionKey), ...buttons),
    h('p', { class: 'muted' },
      task.assignee ? ['Assigned to ', h('b', { id: 'assignee' }, task.assignee)] : 'Unassigned',
      ` · created ${time(task.created)} · `,
      h('a', { href: `#/instance/${task.processInstanceId}` }, 'its process instance')),
    task.description ? h('p', {}, task.description) : '',
    formBox);
  const done = () => { toast('Completed'); location.hash = '#/tasks'; };
  const form = await get(`/task/${enc}/form`);
  if (task.camundaFormRef || form.key?.startsWith('camunda-forms:')) {
    await camundaForm(task, formBox, done);
  } else if (form.key?.includes('/rendered-form')) {
    await generatedForm(task, formBox, done);
  } else {
    await variablesForm(task, formBox, done);
  }
}

// camundaForm draws the task's deployed Camunda Form with form-js, filled
// with the form variables; submitting completes the task with the values.
async function camundaForm(task, box, done) {
  const enc = encodeURIComponent(task.id);
  loadStyle('vendor/form-js/form-js.css');
  const [schema, vars] = await Promise.all([
    get(`/task/${enc}/deployed-form`),
    get(`/task/${enc}/form-variables?deserializeValues=false`),
    loadScript('vendor/form-js/form-viewer.umd.js'),
  ]);
  const data = {};
  for (const [k, v] of Object.entries(vars)) data[k] = v.value;
  const container = h('div', { class: 'camunda-form' });
  const complete = h('button', { type: 'button', class: 'primary', id: 'complete' }, 'Complete');
  box.replaceChildren(container, complete);
  const viewer = new window.FormViewer.Form({ container });
  await viewer.importSchema(schema, data);
  complete.onclick = act(complete, async () => {
    const result = viewer.submit();
    if (Object.keys(result.errors).length) throw new Error('Some fields need a value: see the form.');
    const variables = {};
    for (const [k, v] of Object.entries(result.data)) variables[k] = inferred(v);
    await api('POST', `/task/${enc}/submit-form`, { variables });
  }, null, done);
}

// inferred is the typed value of a value form-js answers.
function inferred(v) {
  if (v === null || v === undefined) return { type: 'Null', value: null };
  switch (typeof v) {
    case 'boolean': return { type: 'Boolean', value: v };
    case 'number': return { type: Number.isInteger(v) ? 'Long' : 'Double', value: v };
    case 'string': return { type: 'String', value: v };
    default: return { type: 'Json', value: JSON.stringify(v) };
  }
}

const camundaNS = 'http://camunda.org/schema/1.0/bpmn';

// generatedForm draws the fields of the task's camunda:formData (read from
// the deployed BPMN) with the form variables as values; the engine checks
// the constraints on submit, and a refusal is shown at its field.
async function generatedForm(task, box, done) {
  const enc = encodeURIComponent(task.id);
  const [xml, vars] = await Promise.all([
    get(`/process-definition/${encodeURIComponent(task.processDefinitionId)}/xml`),
    get(`/task/${enc}/form-variables?deserializeValues=false`),
  ]);
  const doc = new DOMParser().parseFromString(xml.bpmn20Xml, 'application/xml');
  const element = [...doc.getElementsByTagName('*')].find((e) => e.getAttribute('id') === task.taskDefinitionKey);
  const fields = element ? [...element.getElementsByTagNameNS(camundaNS, 'formField')] : [];
  const inputs = {};
  const rows = fields.map((f) => {
    const id = f.getAttribute('id');
    const type = f.getAttribute('type') || 'string';
    const constraints = Object.fromEntries([...f.getElementsByTagNameNS(camundaNS, 'constraint')].map((c) => [c.getAttribute('name'), c.getAttribute('config') ?? true]));
    const value = vars[id] ? shownValue(vars[id]) : '';
    let input;
    if (type === 'boolean') {
      input = h('input', { type: 'checkbox', checked: value === 'true' });
    } else if (type === 'enum') {
      input = h('select', {}, [...f.getElementsByTagNameNS(camundaNS, 'value')].map((v) =>
        h('option', { value: v.getAttribute('id'), selected: v.getAttribute('id') === value }, v.getAttribute('name') || v.getAttribute('id'))));
    } else {
      input = h('input', { type: type === 'long' ? 'number' : 'text', value, placeholder: type === 'date' ? (f.getAttribute('datePattern') || 'dd/MM/yyyy') : '' });
    }
    input.id = 'field-' + id;
    input.required = 'required' in constraints;
    input.disabled = 'readonly' in constraints;
    inputs[id] = { input, type };
    return h('div', { class: 'field', 'data-field': id },
      h('label', { for: input.id }, f.getAttribute('label') || id), input, h('div', { class: 'field-error' }));
  });
  const complete = h('button', { type: 'button', class: 'primary', id: 'complete' }, 'Complete');
  box.replaceChildren(...rows, complete);
  complete.onclick = act(complete, async () => {
    for (const el of box.querySelectorAll('.field-error')) el.textContent = '';
    const variables = {};
    for (const [id, { input, type }] of Object.entries(inputs)) {
      if (input.disabled) continue;
      if (type === 'boolean') variables[id] = { type: 'Boolean', value: input.checked };
      else if (input.value === '') continue;
      else variables[id] = type === 'long' ? typedValue('Long', input.value) : { type: 'String', value: input.value };
    }
    try {
      await api('POST', `/task/${enc}/submit-form`, { variables });
    } catch (err) {
      const field = /form field '([^']+)'/.exec(err.message)?.[1];
      const slot = field && box.querySelector(`[data-field="${CSS.escape(field)}"] .field-error`);
      if (slot) slot.textContent = err.message.replace(/^.*?: (?=Invalid value)/, '');
      throw err;
    }
  }, null, done);
}

// variablesForm is the form of a task without one: its variables to
// change and new ones to add.
async function variablesForm(task, box, done) {
  const enc = encodeURIComponent(task.id);
  const vars = await get(`/task/${enc}/variables?deserializeValues=false`);
  const inputs = {};
  const rows = Object.entries(vars).filter(([, v]) => !['Object', 'Bytes', 'File'].includes(v.type)).map(([name, v]) => {
    inputs[name] = { input: h('input', { value: shownValue(v), id: 'var-' + name }), type: v.type, old: shownValue(v) };
    return h('div', { class: 'field' }, h('label', { for: 'var-' + name }, `${name} (${v.type})`), inputs[name].input);
  });
  const added = variableRows();
  const complete = h('button', { type: 'button', class: 'primary', id: 'complete' }, 'Complete');
  box.replaceChildren(h('p', { class: 'muted' }, 'This task has no form: change its variables or add some, then complete it.'), ...rows, added, complete);
  complete.onclick = act(complete, async () => {
    const variables = added.collect();
    for (const [name, { input, type, old }] of Object.entries(inputs)) {
      if (input.value !== old) variables[name] = typedValue(type, input.value);
    }
    await api('POST', `/task/${enc}/complete`, { variables });
  }, null, done);
}
