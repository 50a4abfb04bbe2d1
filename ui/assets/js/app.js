// The router: the part of the URL after # names the page
// (#/definition/{id}, #/instance/{id}, #/tasks, #/task/{id},
// #/deployments); each page renders itself into <main>.
import { h, mount, user, stopPolling } from './lib.js';
import { dropDiagram } from './diagram.js';
import { dashboard } from './dashboard.js';
import { definitionPage } from './definition.js';
import { instancePage } from './instance.js';
import { taskList, taskPage } from './tasks.js';
import { deploymentsPage } from './deployments.js';

const routes = [
  [/^\/?$/, 'dashboard', dashboard],
  [/^\/definition\/([^/]+)$/, 'dashboard', definitionPage],
  [/^\/instance\/([^/]+)$/, 'dashboard', instancePage],
  [/^\/tasks$/, 'tasks', taskList],
  [/^\/task\/([^/]+)$/, 'tasks', taskPage],
  [/^\/deployments$/, 'deployments', deploymentsPage],
];

// route draws the page of the URL. Pages load one at a time: a page asked
// for while another loads is drawn after it, so that a slow page's late
// answer never covers the one the user went on to.
let routing = false;
let rerouted = false;
async function route() {
  if (routing) {
    rerouted = true;
    return;
  }
  routing = true;
  try {
    do {
      rerouted = false;
      await draw();
    } while (rerouted);
  } finally {
    routing = false;
  }
}

async function draw() {
  const [path, search] = location.hash.slice(1).split('?');
  const params = new URLSearchParams(search || '');
  dropDiagram();
  stopPolling();
  for (const [pattern, nav, page] of routes) {
    const m = pattern.exec(path || '/');
    if (!m) continue;
    for (const a of document.querySelectorAll('nav a')) a.classList.toggle('current', a.dataset.nav === nav);
    delete document.body.dataset.ready;
    try {
      await page(...m.slice(1).map(decodeURIComponent), params);
    } catch (err) {
      mount(h('p', { class: 'error' }, err.message));
    }
    document.body.dataset.ready = decodeURIComponent(path || '/'); // the page is drawn (tests wait for it)
    document.getElementById('main').focus({ preventScroll: true });
    return;
  }
  mount(h('p', { class: 'error' }, 'No such page: ' + path));
}

const userInput = document.getElementById('user');
userInput.value = user();
if (document.querySelector('meta[name="bpmnlite-user"]').content) {
  userInput.disabled = true;
  userInput.title = 'the user you logged in as';
}
userInput.addEventListener('change', () => {
  localStorage.setItem('bpmnlite-user', userInput.value.trim());
  route();
});

window.addEventListener('hashchange', () => {
  window.scrollTo(0, 0);
  route();
});
route();
