// Deployments: upload BPMN, DMN and form files (several at once, dropped or
// chosen), list the deployments with their resources, delete one.
import { h, mount, api, get, list, pagedTable, time, act, toast } from './lib.js';

export async function deploymentsPage() {
  const table = await pagedTable(['Name', 'Deployed', 'Source', 'Resources', ''],
    (first, max) => list('/deployment', { sortBy: 'deploymentTime', sortOrder: 'desc' }, first, max),
    (d) => {
      const resources = h('details', { class: 'resources' }, h('summary', {}, 'resources'));
      resources.addEventListener('toggle', async () => {
        if (!resources.open || resources.dataset.loaded) return;
        resources.dataset.loaded = 'yes';
        const rs = await get(`/deployment/${encodeURIComponent(d.id)}/resources`).catch((err) => toast(err.message, true)) || [];
        resources.append(h('ul', {}, rs.map((r) => h('li', {}, r.name))));
      });
      const del = h('button', { type: 'button', class: 'link danger' }, 'Delete');
      del.onclick = (ev) => {
        if (!confirm(`Delete deployment ${d.name || d.id} with its definitions and their instances?`)) return;
        act(del, () => api('DELETE', `/deployment/${encodeURIComponent(d.id)}?cascade=true`), 'Deleted', () => table.reload())(ev);
      };
      return [d.name || h('span', { class: 'muted' }, d.id), time(d.deploymentTime), d.source || '', resources, del];
    },
    { empty: 'No deployments yet.' });
  mount(h('h1', {}, 'Deployments'), uploadForm(() => table.reload()), table);
}

function uploadForm(uploaded) {
  const files = h('input', { type: 'file', name: 'files', multiple: true, accept: '.bpmn,.bpmn20.xml,.dmn,.dmn11.xml,.form', id: 'files' });
  const name = h('input', { name: 'deployment-name', placeholder: 'deployment name', 'aria-label': 'deployment name', value: 'ui' });
  const dedupe = h('input', { type: 'checkbox', name: 'enable-duplicate-filtering', checked: true });
  const go = h('button', { type: 'submit', class: 'primary', id: 'deploy' }, 'Deploy');
  const chosen = h('span', { class: 'muted' });
  let dropped = [];
  const drop = h('label', { class: 'drop', for: 'files' }, 'Drop BPMN, DMN and form files here, or click to choose. ', chosen);
  const show = () => { chosen.textContent = [...dropped, ...files.files].map((f) => f.name).join(', '); };
  files.onchange = () => { dropped = []; show(); };
  drop.ondragover = (ev) => { ev.preventDefault(); drop.classList.add('over'); };
  drop.ondragleave = () => drop.classList.remove('over');
  drop.ondrop = (ev) => {
    ev.preventDefault();
    drop.classList.remove('over');
    dropped = [...ev.dataTransfer.files];
    files.value = '';
    show();
  };
  const form = h('form', { class: 'upload', id: 'upload' }, files, drop,
    h('div', { class: 'row' }, name, h('label', {}, dedupe, ' skip unchanged files'), go));
  form.onsubmit = act(go, async () => {
    const all = [...dropped, ...files.files];
    if (!all.length) throw new Error('choose files to deploy first');
    const body = new FormData();
    body.set('deployment-name', name.value || 'ui');
    body.set('deployment-source', 'bpmnlite cockpit');
    if (dedupe.checked) body.set('enable-duplicate-filtering', 'true');
    for (const f of all) body.append(f.name, f, f.name);
    const d = await api('POST', '/deployment/create', body);
    const defs = Object.values(d.deployedProcessDefinitions || {});
    toast(defs.length ? 'Deployed ' + defs.map((p) => `${p.key} v${p.version}`).join(', ') : 'Deployed (nothing changed)');
    dropped = [];
    files.value = '';
    show();
  }, null, uploaded);
  return form;
}
