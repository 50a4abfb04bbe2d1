// The coverage page of one process: its diagram (bpmn-js) with the
// elements the tests passed marked, the same as a list (the only view of a
// model without diagram interchange), and a choice of test. Data: the
// page's #coverage element (model XML, elements, covered ids, per test).
const data = JSON.parse(document.getElementById('coverage').textContent);
const choice = document.getElementById('test');
const list = document.getElementById('elements');
const viewer = new BpmnJS({ container: '#canvas' });
let canvas = null;
let registry = null;
let marked = [];

function show(test) {
  const covered = new Set(test ? data.tests[test] : data.covered);
  if (canvas) {
    for (const id of marked) canvas.removeMarker(id, 'covered');
    marked = [...covered].filter((id) => registry.get(id));
    for (const id of marked) canvas.addMarker(id, 'covered');
  }
  // Read by tests: which elements count as covered.
  document.body.dataset.covered = [...covered].sort().join(' ');
  list.replaceChildren(...data.elements.map((id) => {
    const row = document.createElement('tr');
    const name = document.createElement('td');
    name.textContent = id;
    const mark = document.createElement('td');
    mark.textContent = covered.has(id) ? '✓ passed' : '–';
    if (covered.has(id)) row.className = 'covered';
    row.append(name, mark);
    return row;
  }));
  const pct = data.elements.length ? (100 * covered.size) / data.elements.length : 0;
  document.getElementById('percent').textContent = pct.toFixed(1) + ' %';
}

choice.addEventListener('change', () => show(choice.value));
viewer.importXML(data.xml).then(() => {
  canvas = viewer.get('canvas');
  registry = viewer.get('elementRegistry');
  canvas.zoom('fit-viewport');
}).catch((err) => {
  document.getElementById('canvas').textContent = 'No diagram (' + err.message + '): the model has no diagram interchange; the list below shows what was passed.';
  document.getElementById('canvas').className = 'nodiagram';
}).finally(() => show(choice.value));
