// The diagram of a definition with bpmn-js (its navigated viewer: pan and
// zoom; the bpmn.io watermark stays, as its licence asks), badges per
// activity and markers on active ones.
import { h } from './lib.js';

let current;
let drawn; // the counts setBadges drew last

// dropDiagram destroys the viewer of the page left.
export function dropDiagram() {
  current?.destroy();
  current = undefined;
  drawn = undefined;
  heated = [];
}

// showDiagram draws xml in container. running and incidents map activity
// ids to counts (badges bottom left, blue, and bottom right, red); active
// and failed are activity ids to mark, passed those the instance went through.
export async function showDiagram(container, xml, { running = {}, incidents = {}, active = [], failed = [], passed = [] } = {}) {
  dropDiagram();
  const viewer = new window.BpmnJS({ container });
  current = viewer;
  try {
    await viewer.importXML(xml);
  } catch (err) {
    // bpmn-js says "no diagram to display" of a file without diagram
    // interchange (BPMNDiagram): the engine runs it, nothing can draw it.
    container.replaceChildren(/no diagram to display/.test(err.message)
      ? h('p', { class: 'muted no-di' }, 'This model has no diagram layout (BPMN DI) to draw.')
      : h('p', { class: 'error' }, 'The diagram cannot be shown: ' + err.message));
    return null;
  }
  const canvas = viewer.get('canvas');
  const registry = viewer.get('elementRegistry');
  canvas.zoom('fit-viewport', 'auto');
  setBadges(running, incidents);
  for (const id of new Set(passed)) if (registry.get(id)) canvas.addMarker(id, 'passed');
  for (const id of active) if (registry.get(id)) canvas.addMarker(id, 'active');
  for (const id of failed) if (registry.get(id)) canvas.addMarker(id, 'failed');
  return viewer;
}

// setBadges draws the counts of the diagram shown, replacing those drawn
// when they changed.
export function setBadges(running, incidents) {
  const counts = JSON.stringify([running, incidents]);
  if (!current || counts === drawn) return;
  drawn = counts;
  const registry = current.get('elementRegistry');
  const overlays = current.get('overlays');
  overlays.remove({ type: 'running' });
  overlays.remove({ type: 'incidents' });
  const badge = (kind, id, n, title, position) => {
    if (!n || !registry.get(id)) return;
    overlays.add(id, kind, {
      position,
      html: h('span', { class: `badge ${kind}`, 'data-activity': id, title }, String(n)),
    });
  };
  for (const [id, n] of Object.entries(running)) badge('running', id, n, `${n} running`, { bottom: 12, left: -10 });
  for (const [id, n] of Object.entries(incidents)) badge('incidents', id, n, `${n} open incidents`, { bottom: 12, right: 10 });
}

let heated = [];

// setHeat colours the activities of the diagram shown by how many
// activity instances finished there (five shades, relative to the
// busiest) with the count on top; an empty map clears it.
export function setHeat(finished) {
  if (!current) return;
  const registry = current.get('elementRegistry');
  const canvas = current.get('canvas');
  const overlays = current.get('overlays');
  for (const [id, marker] of heated) canvas.removeMarker(id, marker);
  heated = [];
  overlays.remove({ type: 'finished' });
  const max = Math.max(0, ...Object.values(finished));
  for (const [id, n] of Object.entries(finished)) {
    if (!n || !registry.get(id)) continue;
    const marker = `heat-${Math.max(1, Math.ceil((5 * n) / max))}`;
    canvas.addMarker(id, marker);
    heated.push([id, marker]);
    overlays.add(id, 'finished', {
      position: { top: -10, left: -10 },
      html: h('span', { class: 'badge finished', 'data-activity': id, title: `${n} finished here` }, String(n)),
    });
  }
}
