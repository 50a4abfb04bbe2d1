// One process instance: the diagram with its active activities and
// incidents, the activity-instance tree, variables, jobs, incidents with
// their retry, user tasks; cancelling it; the path it took (from history);
// cancelling and starting activities by clicking on the diagram.
import { h, mount, api, get, uiGet, table, short, time, act, toast, shownValue, typedValue, valueTypes } from './lib.js';
import { showDiagram, takenFlows, markTaken, onActivityClick, flowNodes } from './diagram.js';

export async function instancePage(id) {
  const enc = encodeURIComponent(id);
  let pi;
  try {
    pi = await get(`/process-instance/${enc}`);
  } catch (err) {
    if (err.status !== 404) throw err;
    return endedInstance(id);
  }
  const [xml, tree, variables, jobs, incidents, tasks, jobDefinitions, history] = await Promise.all([
    get(`/process-definition/${encodeURIComponent(pi.definitionId)}/xml`),
    get(`/process-instance/${enc}/activity-instances`),
    get(`/process-instance/${enc}/variables?deserializeValues=false`),
    get(`/job?processInstanceId=${enc}&maxResults=100`),
    get(`/incident?processInstanceId=${enc}&maxResults=100`),
    get(`/task?processInstanceId=${enc}&maxResults=100`),
    get(`/job-definition?processDefinitionId=${encodeURIComponent(pi.definitionId)}&maxResults=1000`),
    // The path taken so far (empty below history level activity).
    get(`/history/activity-instance?processInstanceId=${enc}&sortBy=startTime&sortOrder=asc&maxResults=1000`),
  ]);
  const jobActivity = Object.fromEntries(jobDefinitions.map((d) => [d.id, d.activityId]));
  const again = () => instancePage(id);
  const active = [];
  const running = {};
  (function walk(ai) {
    for (const c of [...ai.childActivityInstances, ...ai.childTransitionInstances]) {
      active.push(c.activityId);
      running[c.activityId] = (running[c.activityId] || 0) + 1;
      if (c.childActivityInstances) walk(c);
    }
  })(tree);
  const incidentCounts = {};
  for (const i of incidents) incidentCounts[i.activityId] = (incidentCounts[i.activityId] || 0) + 1;

  const cancel = h('button', { type: 'button', class: 'danger', id: 'cancel' }, 'Cancel instance');
  cancel.onclick = (ev) => {
    if (!confirm('Cancel this process instance? Its executions end here.')) return;
    act(cancel, () => api('DELETE', `/process-instance/${enc}`), 'Cancelled', () => { location.hash = `#/definition/${encodeURIComponent(pi.definitionId)}`; })(ev);
  };
  const canvas = h('div', { class: 'diagram modifiable', id: 'diagram' });
  const modify = h('div', { class: 'modify', id: 'modify' });
  mount(
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Processes'), ' › ',
      h('a', { href: `#/definition/${encodeURIComponent(pi.definitionId)}` }, pi.definitionId.split(':')[0]), ' › ', short(id)),
    h('div', { class: 'title-row' },
      h('h1', {}, 'Instance ', h('code', {}, id), pi.suspended ? h('span', { class: 'tag' }, 'suspended') : ''),
      cancel),
    pi.businessKey ? h('p', {}, 'Business key: ', h('b', {}, pi.businessKey)) : '',
    canvas,
    modify,
    h('div', { class: 'columns' },
      h('section', {}, h('h2', {}, 'Activities'), activityTree(tree)),
      h('section', {}, h('h2', {}, 'Incidents'), incidentTable(incidents, again))),
    h('h2', {}, 'Variables'), variableEditor(`/process-instance/${enc}/variables`, variables, again),
    h('h2', {}, 'Jobs'), jobTable(jobs, jobActivity, again),
    h('h2', {}, 'User tasks'), table(['Task', 'Assignee', 'Created'],
      tasks.map((t) => [h('a', { href: `#/task/${t.id}` }, t.name || t.taskDefinitionKey), t.assignee || '', time(t.created)]), 'No open user tasks.'));
  await showDiagram(canvas, xml.bpmn20Xml, {
    running, incidents: incidentCounts, active, failed: Object.keys(incidentCounts), passed: history.filter((a) => a.endTime).map((a) => a.activityId),
  });
  markTaken(takenFlows(history));
  const menu = (activityId, name) => modificationMenu(modify, id, activityId, name, running[activityId] || 0, again, hint);
  // The hint offers the activities as a list too (keyboard).
  const hint = () => {
    const choose = h('select', { 'aria-label': 'activity to modify', id: 'modify-choose' },
      h('option', { value: '' }, 'choose one…'), flowNodes().map(([a, name]) => h('option', { value: a }, name)));
    choose.onchange = () => choose.value && menu(choose.value, choose.selectedOptions[0].textContent);
    modify.replaceChildren(h('p', { class: 'muted' }, 'Click an activity on the diagram, or ', choose, ', to cancel its instances or start it.'));
  };
  hint();
  onActivityClick(menu);
}

// modificationMenu offers what can be done at an activity clicked: cancel
// its instances, start it before or after; the instruction chosen is shown
// before it is sent (Camunda's process instance modification), a refusal
// shown in the panel, and the page drawn again once it is done.
function modificationMenu(box, instanceId, activityId, name, running, again, close) {
  const choose = (label, instruction, attrs = {}) => {
    const b = h('button', { type: 'button', ...attrs }, label);
    b.onclick = () => confirmModification(box, instanceId, name, instruction, () => modificationMenu(box, instanceId, activityId, name, running, again, close), again);
    return b;
  };
  const closer = h('button', { type: 'button', class: 'link' }, 'Close');
  closer.onclick = close;
  box.replaceChildren(h('div', { class: 'modify-menu', role: 'group', 'aria-label': `modify at ${name}` },
    h('b', {}, name), h('span', { class: 'muted' }, running ? ` · ${running} running` : ' · not running'),
    running ? choose(`Cancel this activity's instances (${running})`, { type: 'cancel', activityId }, { class: 'danger', id: 'modify-cancel' }) : '',
    choose('Start before', { type: 'startBeforeActivity', activityId }, { id: 'modify-start-before' }),
    choose('Start after', { type: 'startAfterActivity', activityId }, { id: 'modify-start-after' }),
    closer));
  box.querySelector('button')?.focus();
}

function confirmModification(box, instanceId, name, instruction, back, again) {
  const body = { skipCustomListeners: false, skipIoMappings: false, instructions: [instruction] };
  const error = h('p', { class: 'error', id: 'modify-error' });
  const apply = h('button', { type: 'button', class: 'primary', id: 'modify-apply' }, 'Apply');
  const cancel = h('button', { type: 'button' }, 'Back');
  cancel.onclick = back;
  apply.onclick = async () => {
    apply.disabled = true;
    error.textContent = '';
    try {
      await api('POST', `/process-instance/${encodeURIComponent(instanceId)}/modification`, body);
    } catch (err) {
      error.textContent = err.message;
      apply.disabled = false;
      return;
    }
    toast('Modified at ' + name);
    await again();
  };
  const what = { cancel: 'Cancel every instance of', startBeforeActivity: 'Start before', startAfterActivity: 'Start after' }[instruction.type];
  box.replaceChildren(h('div', { class: 'modify-confirm' },
    h('p', {}, h('b', {}, `${what} ${name}?`), ' This instruction is sent to the engine:'),
    h('pre', { class: 'message', id: 'modify-instruction' }, JSON.stringify(body, null, 2)),
    h('div', {}, apply, ' ', cancel), error));
  apply.focus();
}

async function endedInstance(id) {
  const hpi = await get(`/history/process-instance/${encodeURIComponent(id)}`);
  mount(
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Processes'), ' › ', short(id)),
    h('h1', {}, 'Instance ', h('code', {}, id), h('span', { class: 'tag' }, hpi.state.toLowerCase())),
    h('p', {}, `Started ${time(hpi.startTime)}, ended ${time(hpi.endTime)}.`),
    h('p', {}, h('a', { href: `#/definition/${encodeURIComponent(hpi.processDefinitionId)}` }, 'Its definition')));
}

function activityTree(ai) {
  const node = (a, transition) => h('li', {},
    h('span', { class: transition ? 'activity transition' : 'activity' }, a.activityName || a.activityId || a.targetActivityId),
    a.incidents?.length ? h('span', { class: 'badge incidents' }, String(a.incidents.length)) : '',
    transition ? h('span', { class: 'muted' }, ' (waiting for its job)') : '',
    children(a));
  const children = (a) => {
    const items = [...(a.childActivityInstances || []).map((c) => node(c, false)), ...(a.childTransitionInstances || []).map((c) => node(c, true))];
    return items.length ? h('ul', {}, items) : '';
  };
  return h('ul', { class: 'tree' }, node(ai, false));
}

// incidentTable lists incidents; a failed job's or external task's gets a
// retry button: one more retry resolves the incident, and the job runs
// again when the job executor takes it. Each shows its stack trace on
// demand and takes an annotation.
function incidentTable(incidents, again) {
  return table(['Activity', 'Type', 'Message', ''], incidents.map((i) => {
    const target = { failedJob: 'job', failedExternalTask: 'external-task' }[i.incidentType];
    let retry = '';
    let trace = '';
    if (target && i.configuration) {
      const id = encodeURIComponent(i.configuration);
      retry = h('button', { type: 'button', class: 'retry', 'data-incident': i.id }, 'Retry');
      retry.onclick = act(retry, () => api('PUT', `/${target}/${id}/retries`, { retries: 1 }), 'Retrying', again);
      trace = h('details', { class: 'trace' }, h('summary', {}, 'stack trace'));
      trace.addEventListener('toggle', async () => {
        if (!trace.open || trace.dataset.loaded) return;
        trace.dataset.loaded = 'yes';
        const text = await get(target === 'job' ? `/job/${id}/stacktrace` : `/external-task/${id}/errorDetails`).catch((err) => err.message);
        trace.append(h('pre', { class: 'message' }, text || '(none)'));
      });
    }
    const note = h('input', { value: i.annotation || '', placeholder: 'annotation', 'aria-label': 'annotation', size: 18 });
    const save = h('button', { type: 'button', class: 'link' }, 'Save');
    save.onclick = act(save, () => (note.value
      ? api('PUT', `/incident/${encodeURIComponent(i.id)}/annotation`, { annotation: note.value })
      : api('DELETE', `/incident/${encodeURIComponent(i.id)}/annotation`)), 'Annotation saved');
    return [
      i.activityId,
      i.incidentType,
      h('div', {}, h('span', { class: 'message' }, i.incidentMessage || ''), trace, h('div', { class: 'note' }, note, save)),
      retry,
    ];
  }), 'No open incidents.');
}

// jobTable lists the instance's jobs; each says on demand why it runs or
// not (Engine.ExplainJob, as bpmnlite jobs explain) and can run now.
function jobTable(jobs, jobActivity, again) {
  return table(['Job', 'Activity', 'Due', 'Retries', 'Locked by', 'Message', ''], jobs.map((j) => {
    const run = h('button', { type: 'button', title: 'run the job now, here' }, 'Run now');
    run.onclick = act(run, () => api('POST', `/job/${encodeURIComponent(j.id)}/execute`), 'Executed', again);
    const why = h('details', { class: 'explain', 'data-job': j.id }, h('summary', {}, 'why?'));
    why.addEventListener('toggle', async () => {
      if (!why.open || why.dataset.loaded) return;
      why.dataset.loaded = 'yes';
      try {
        const conditions = await uiGet(`api/jobs/${encodeURIComponent(j.id)}/explain`);
        const blocked = conditions.some((c) => c.blocks);
        why.append(h('ul', {}, conditions.map((c) => h('li', { class: c.blocks ? 'blocks' : '' }, h('b', {}, c.condition), ': ', c.detail)),
          blocked ? '' : h('li', {}, h('b', {}, 'result'), ': acquirable, a running job executor takes it at its next acquisition')));
      } catch (err) {
        why.append(h('p', { class: 'error' }, err.message));
      }
    });
    return [short(j.id), j.failedActivityId || jobActivity[j.jobDefinitionId] || '', time(j.dueDate), String(j.retries), j.lockOwner || '',
      h('div', {}, h('span', { class: 'message' }, j.exceptionMessage || ''), why), run];
  }), 'No jobs.');
}

// variableEditor shows variables with edit and delete, and a row to add one.
export function variableEditor(base, variables, again) {
  const rows = Object.entries(variables).map(([name, v]) => {
    const value = h('input', { value: shownValue(v), 'aria-label': `value of ${name}`, disabled: ['Object', 'Bytes', 'File'].includes(v.type) });
    const save = h('button', { type: 'button' }, 'Save');
    save.onclick = act(save, () => api('PUT', `${base}/${encodeURIComponent(name)}`, typedValue(v.type, value.value)), `Saved ${name}`, again);
    const del = h('button', { type: 'button', class: 'link' }, 'Delete');
    del.onclick = act(del, () => api('DELETE', `${base}/${encodeURIComponent(name)}`), `Deleted ${name}`, again);
    return [name, v.type, value, h('span', {}, save, ' ', del)];
  });
  const name = h('input', { placeholder: 'name', 'aria-label': 'new variable name' });
  const type = h('select', { 'aria-label': 'new variable type' }, valueTypes.map((t) => h('option', {}, t)));
  const value = h('input', { placeholder: 'value', 'aria-label': 'new variable value' });
  const add = h('button', { type: 'button' }, 'Add');
  add.onclick = act(add, async () => {
    if (!name.value.trim()) throw new Error('the variable needs a name');
    await api('PUT', `${base}/${encodeURIComponent(name.value.trim())}`, typedValue(type.value, value.value));
  }, 'Added', again);
  rows.push([name, type, value, add]);
  return table(['Name', 'Type', 'Value', ''], rows);
}
