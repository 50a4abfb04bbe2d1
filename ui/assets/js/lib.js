// Helpers every page uses: REST calls, building elements (text is always
// set as text, never parsed as HTML), paged tables, variables.

const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.content ?? '';

export const restBase = meta('bpmnlite-rest');

// user is the user the tasklist acts for: the basic authentication's user
// when the server knows it, else the name typed into the header.
export function user() {
  return meta('bpmnlite-user') || localStorage.getItem('bpmnlite-user') || '';
}

export class RestError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

// api calls the REST API; body is JSON, FormData or nothing. It answers the
// parsed JSON (null for 204) or throws a RestError with the server's message.
export async function api(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin' };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(restBase + path, init);
  const text = await res.text();
  let data = null;
  if (text && (res.headers.get('Content-Type') || '').includes('json')) data = JSON.parse(text);
  else if (text) data = text;
  if (!res.ok) {
    throw new RestError(res.status, data?.type || '', data?.message || `${res.status} ${res.statusText}`);
  }
  return data;
}

export const get = (path) => api('GET', path);

// uiGet reads what the UI's own handler serves beside Camunda's REST API
// (relative to the page's base, /app/).
export async function uiGet(path) {
  const res = await fetch(path, { headers: { Accept: 'application/json' }, credentials: 'same-origin' });
  if (!res.ok) throw new RestError(res.status, '', (await res.text()) || `${res.status} ${res.statusText}`);
  return res.json();
}

// query makes a query string of the defined, non-empty members of params.
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, v);
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

// h builds an element: h('a', {href: '#/', class: 'x', onclick: fn}, 'text', child).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// mount replaces the contents of the page's main element.
export function mount(...children) {
  const main = document.getElementById('main');
  main.replaceChildren();
  append(main, children);
  return main;
}

let toastTimer;
// toast shows a short message (an error in red) at the bottom of the page.
export function toast(message, isError = false) {
  const el = document.getElementById('toast');
  el.textContent = message;
  el.className = isError ? 'show error' : 'show';
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.className = ''; }, isError ? 8000 : 3000);
}

// act runs an action of a button: disables it meanwhile, reports a failure
// and, on success, says done and calls then (usually: render the page again).
export function act(button, action, done, then) {
  return async (ev) => {
    ev?.preventDefault();
    button.disabled = true;
    try {
      await action();
      if (done) toast(done);
      if (then) await then();
    } catch (err) {
      toast(err.message, true);
    } finally {
      button.disabled = false;
    }
  };
}

export function time(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return isNaN(d) ? iso : d.toLocaleString();
}

export const short = (id) => (id && id.length > 12 ? id.slice(0, 8) + '…' : id || '');

export function table(headers, rows, empty = 'None.') {
  if (!rows.length) return h('p', { class: 'muted' }, empty);
  return h('table', {},
    h('thead', {}, h('tr', {}, headers.map((t) => h('th', {}, t)))),
    h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((c) => h('td', {}, c))))));
}

// pagedTable shows one page of a list the server pages: load(firstResult,
// maxResults) answers [rows, count]; row(item) answers the cells.
export async function pagedTable(headers, load, row, { pageSize = 20, empty = 'None.' } = {}) {
  const box = h('div', { class: 'paged' });
  let first = 0;
  const show = async () => {
    const [items, count] = await load(first, pageSize);
    const pager = h('div', { class: 'pager' });
    if (count > pageSize || first > 0) {
      const prev = h('button', { type: 'button', disabled: first === 0 }, '‹ Previous');
      const next = h('button', { type: 'button', disabled: first + pageSize >= count }, 'Next ›');
      prev.onclick = () => { first = Math.max(0, first - pageSize); show().catch(fail); };
      next.onclick = () => { first += pageSize; show().catch(fail); };
      pager.append(prev, ` ${first + 1}–${Math.min(first + pageSize, count)} of ${count} `, next);
    } else if (count) {
      pager.append(`${count} in all`);
    }
    box.replaceChildren(table(headers, items.map(row), empty), pager);
  };
  const fail = (err) => box.replaceChildren(h('p', { class: 'error' }, err.message));
  box.reload = () => show().catch(fail);
  await show().catch(fail);
  return box;
}

// list loads a page of a Camunda list resource and its count.
export async function list(path, params, first, max) {
  return Promise.all([
    get(path + query({ ...params, firstResult: first, maxResults: max })),
    get(path + '/count' + query(params)).then((c) => c.count),
  ]);
}

// Camunda's value types a variable can be given here.
export const valueTypes = ['String', 'Integer', 'Long', 'Double', 'Boolean', 'Date', 'Json', 'Null'];

// typedValue converts the text of a form to Camunda's typed value JSON.
export function typedValue(type, text) {
  switch (type) {
    case 'Integer':
    case 'Long':
    case 'Short': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isInteger(n)) throw new Error(`"${text}" is not a whole number`);
      return { type, value: n };
    }
    case 'Double': {
      const n = Number(text);
      if (text.trim() === '' || isNaN(n)) throw new Error(`"${text}" is not a number`);
      return { type, value: n };
    }
    case 'Boolean':
      if (!/^(true|false)$/i.test(text.trim())) throw new Error(`"${text}" is not true or false`);
      return { type, value: text.trim().toLowerCase() === 'true' };
    case 'Null':
      return { type, value: null };
    default:
      return { type, value: text };
  }
}

// shownValue is a variable's value as text for a table or an input.
export function shownValue(v) {
  if (v.value === null || v.value === undefined) return v.type === 'Null' ? 'null' : '';
  return typeof v.value === 'object' ? JSON.stringify(v.value) : String(v.value);
}

// variableRows is an editor of new variables (name, type, value) with an
// "Add variable" button; collect() answers Camunda's variables JSON.
export function variableRows() {
  const rows = h('div', { class: 'var-rows' });
  const add = () => {
    const type = h('select', { 'aria-label': 'type' }, valueTypes.map((t) => h('option', {}, t)));
    const row = h('div', { class: 'var-row' },
      h('input', { placeholder: 'name', 'aria-label': 'name', class: 'var-name' }),
      type,
      h('input', { placeholder: 'value', 'aria-label': 'value', class: 'var-value' }),
      h('button', { type: 'button', class: 'link', title: 'remove', onclick: () => row.remove() }, '✕'));
    rows.append(row);
  };
  const box = h('div', {}, rows, h('button', { type: 'button', onclick: add }, '+ Add variable'));
  box.collect = () => {
    const vars = {};
    for (const row of rows.querySelectorAll('.var-row')) {
      const name = row.querySelector('.var-name').value.trim();
      if (!name) continue;
      vars[name] = typedValue(row.querySelector('select').value, row.querySelector('.var-value').value);
    }
    return vars;
  };
  return box;
}

// loadScript adds a vendor script once (form-js is large: only the task
// page loads it).
const scripts = {};
export function loadScript(src) {
  scripts[src] ??= new Promise((resolve, reject) => {
    const s = h('script', { src });
    s.onload = resolve;
    s.onerror = () => reject(new Error(`cannot load ${src}`));
    document.head.append(s);
  });
  return scripts[src];
}

export function loadStyle(href) {
  if (!document.querySelector(`link[href="${href}"]`)) document.head.append(h('link', { rel: 'stylesheet', href }));
}

// poll runs refresh every ms (ui.Options.PollInterval) while the page that
// started it is shown and the tab visible (the counts and badges stay
// current without a reload); the router stops it when another page opens.
// refresh gets live: after each await it asks live() whether its page is
// still the one shown, so that a late answer changes nothing on the next.
let poller;
let generation = 0;
export function poll(refresh, ms = Number(meta('bpmnlite-poll-ms')) || 10000) {
  stopPolling();
  const mine = generation;
  const live = () => mine === generation;
  poller = setInterval(() => {
    if (!document.hidden) refresh(live).catch(() => {}); // the next round tries again
  }, ms);
}

export function stopPolling() {
  clearInterval(poller);
  generation++;
}
