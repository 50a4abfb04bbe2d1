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
  heatShown = undefined;
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
let heatShown; // the stats setHeat drew last

// duration formats milliseconds for a badge: 850 ms, 4.2 s, 12 min, 3.5 h, 2.1 d.
export function duration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  for (const [unit, size] of [['d', 86400000], ['h', 3600000], ['min', 60000]]) {
    if (ms >= size) return `${+(ms / size).toFixed(1)} ${unit}`;
  }
  return `${+(ms / 1000).toFixed(1)} s`;
}

// setHeat colours the activities of the diagram shown by how many
// activity instances finished there (five shades, relative to the
// busiest), with the count on top and their mean duration below; stats
// maps activity ids to {finished, meanMillis}; an empty map clears it.
export function setHeat(stats) {
  const shown = JSON.stringify(stats);
  if (!current || shown === heatShown) return;
  heatShown = shown;
  const registry = current.get('elementRegistry');
  const canvas = current.get('canvas');
  const overlays = current.get('overlays');
  for (const [id, marker] of heated) canvas.removeMarker(id, marker);
  heated = [];
  overlays.remove({ type: 'finished' });
  overlays.remove({ type: 'duration' });
  const max = Math.max(0, ...Object.values(stats).map((s) => s.finished));
  for (const [id, { finished: n, meanMillis }] of Object.entries(stats)) {
    const el = registry.get(id);
    if (!n || !el) continue;
    const marker = `heat-${Math.max(1, Math.ceil((5 * n) / max))}`;
    canvas.addMarker(id, marker);
    heated.push([id, marker]);
    overlays.add(id, 'finished', {
      position: { top: -10, left: -10 },
      html: h('span', { class: 'badge finished', 'data-activity': id, title: `${n} finished here` }, String(n)),
    });
    overlays.add(id, 'duration', {
      position: { top: -10, left: 16 },
      html: h('span', { class: 'badge duration', 'data-activity': id, 'data-mean-ms': String(meanMillis), title: `mean duration of the ${n} finished here` }, '⌀ ' + duration(meanMillis)),
    });
  }
}

// takenFlows are the sequence flows of the diagram shown that history says
// an instance took: a flow counts as taken when an instance of its source
// activity completed (ended, not canceled) and an instance of its target
// started at or after that end. history is the instance's historic
// activity instances (Camunda's JSON). The engine does not store the flows
// it takes, so this is the rule; it can mark a flow wrongly when the
// target was reached another way after the source ended (a gateway's
// other target started later from elsewhere, an activity started by
// modification). docs/cockpit.md says the same.
export function takenFlows(history) {
  if (!current) return [];
  const ended = {};
  const started = {};
  for (const a of history) {
    (started[a.activityId] ??= []).push(Date.parse(a.startTime));
    if (a.endTime && !a.canceled) (ended[a.activityId] ??= []).push(Date.parse(a.endTime));
  }
  return current.get('elementRegistry').filter((e) => e.type === 'bpmn:SequenceFlow').filter((f) => {
    const from = ended[f.businessObject.sourceRef?.id];
    const to = started[f.businessObject.targetRef?.id];
    return from && to && from.some((end) => to.some((start) => start >= end));
  }).map((f) => f.id);
}

// markTaken draws the flows named as taken.
export function markTaken(ids) {
  if (!current) return;
  const canvas = current.get('canvas');
  for (const id of ids) canvas.addMarker(id, 'taken');
}

const isFlowNode = (el) => el && el.type !== 'label' && !el.waypoints && el.businessObject?.$instanceOf?.('bpmn:FlowNode');

// onActivityClick calls f(id, name) when a flow node of the diagram shown
// is clicked (not a flow, a label, the process or a subprocess's plane).
export function onActivityClick(f) {
  current?.get('eventBus').on('element.click', (ev) => {
    if (isFlowNode(ev.element)) f(ev.element.id, ev.element.businessObject.name || ev.element.id);
  });
}

// flowNodes are the flow nodes of the diagram shown, [id, name], by name.
export function flowNodes() {
  if (!current) return [];
  return current.get('elementRegistry').filter(isFlowNode)
    .map((el) => [el.id, el.businessObject.name || el.id])
    .sort((a, b) => a[1].localeCompare(b[1]));
}
