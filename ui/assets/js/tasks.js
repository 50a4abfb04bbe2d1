// The tasklist: my tasks, my groups' tasks, the tasks I may claim, all tasks;
// a task's page with claim, unclaim, assign, and its form (forms.js), or a
// form of its variables when it has none.
import { h, mount, api, get, uiGet, list, pagedTable, query, time, act, user, shownValue, typedValue, variableRows, toast } from './lib.js';
import { showForm } from './forms.js';

// The lists: my tasks; my groups' tasks (unassigned, a candidate group of
// mine: the groups ui.Options.Groups names for the logged-in user, else
// those typed in); the unassigned tasks I am a candidate user of; all.
const views = {
  mine: { label: 'My tasks', params: () => ({ assignee: user() }) },
  groups: { label: "My groups' tasks", params: (groups) => ({ candidateGroups: groups }) },
  candidate: { label: 'Candidate for me', params: () => ({ candidateUser: user() }) },
  all: { label: 'All tasks', params: () => ({}) },
};

// me is who is logged in and their groups (api/me), asked once.
let me;
const myGroups = async () => ((me ??= uiGet('api/me').catch(() => ({ groups: [] }))), (await me).groups);

export async function taskList(params) {
  const view = views[params.get('view')] ? params.get('view') : (user() ? 'mine' : 'all');
  const known = await myGroups();
  const groups = known.length ? known.join(',') : (params.get('groups') || '');
  const tabs = h('div', { class: 'tabs', role: 'tablist' }, Object.entries(views).map(([k, v]) =>
    h('a', { href: `#/tasks?view=${k}`, class: k === view ? 'current' : '', role: 'tab', 'aria-selected': k === view ? 'true' : 'false', 'data-view': k }, v.label)));
  let header = '';
  if (view === 'groups' && known.length) {
    header = h('p', { class: 'muted', id: 'my-groups' }, 'Unassigned tasks of your groups: ', known.join(', '));
  } else if (view === 'groups') {
    header = h('form', { class: 'filters' },
      h('label', {}, 'Your groups ', h('input', { name: 'groups', value: groups, placeholder: 'sales,management', title: 'comma separated (the server knows no groups of yours)' })),
      h('button', { type: 'submit' }, 'Show'));
    header.onsubmit = (ev) => {
      ev.preventDefault();
      location.hash = '#/tasks' + query({ view: 'groups', groups: new FormData(header).get('groups') });
    };
  }
  const missing = (view === 'groups' && !groups) ? 'Type your groups to see their tasks.'
    : (view === 'mine' || view === 'candidate') && !user() ? 'Type your user name at the top right to see your tasks.' : '';
  if (missing) {
    mount(h('h1', {}, 'Tasks'), tabs, header, h('p', { class: 'muted' }, missing));
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
  mount(h('h1', {}, 'Tasks'), tabs, header, tasks);
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
  const button = (label, action, done, attrs = {}) => {
    const b = h('button', { type: 'button', ...attrs }, label);
    b.onclick = act(b, action, done, again);
    return b;
  };
  const assignee = h('input', { placeholder: 'user', size: 10, 'aria-label': 'assign to user' });
  const buttons = [
    !task.assignee && me && button('Claim', () => api('POST', `/task/${enc}/claim`, { userId: me }), 'Claimed', { id: 'claim', class: 'primary' }),
    task.assignee && button('Unclaim', () => api('POST', `/task/${enc}/unclaim`), 'Unclaimed', { id: 'unclaim' }),
    assignee,
    button('Assign', () => {
      if (!assignee.value.trim()) throw new Error('type the user to assign the task to');
      return api('POST', `/task/${enc}/assignee`, { userId: assignee.value.trim() });
    }, 'Assigned'),
  ];
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
  await showForm(formBox, {
    base: `/task/${enc}`,
    definitionId: task.processDefinitionId,
    element: (doc) => [...doc.getElementsByTagName('*')].find((e) => e.getAttribute('id') === task.taskDefinitionKey),
    noForm: () => variablesForm(task, formBox, done),
    submit: (variables) => api('POST', `/task/${enc}/submit-form`, { variables }),
    done,
  });
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
