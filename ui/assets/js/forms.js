// The forms of user tasks and start events: a Camunda Form (a deployed
// .form) drawn by form-js, or a generated form of camunda:formData. Both
// are filled with the form variables and submitted with submit-form, so
// the engine checks them as Camunda's does.
import { h, get, act, shownValue, typedValue, loadScript, loadStyle } from './lib.js';

// showForm draws the form of base (/task/{id} or /process-definition/{id})
// in box. element finds the form's BPMN element in the definition's parsed
// XML (for a generated form's fields); noForm draws what stands in for a
// missing form; submit sends the variables, then done runs.
export async function showForm(box, { base, definitionId, element, noForm, submit, done }) {
  const form = await get(base + (base.startsWith('/task/') ? '/form' : '/startForm'));
  if (form.camundaFormRef || form.key?.startsWith('camunda-forms:')) {
    await camundaForm(box, base, submit, done);
  } else if (form.key?.includes('/rendered-form')) {
    await generatedForm(box, base, definitionId, element, submit, done);
  } else {
    await noForm();
  }
}

// formVariables are the values a form shows first.
const formVariables = (base) => get(`${base}/form-variables?deserializeValues=false`);

async function camundaForm(box, base, submit, done) {
  loadStyle('vendor/form-js/form-js.css');
  const [schema, vars] = await Promise.all([
    get(base + (base.startsWith('/task/') ? '/deployed-form' : '/deployed-start-form')),
    formVariables(base),
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
    const result = viewer.submit(); // form-js shows its validation errors at the fields
    if (Object.keys(result.errors).length) throw new Error('Some fields need a value: see the form.');
    const variables = {};
    for (const [k, v] of Object.entries(result.data)) variables[k] = inferred(v);
    await submit(variables);
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

// generatedForm draws the camunda:formField elements of the form's BPMN
// element with the form variables as values; the engine checks the
// constraints on submit, and a refusal naming a field is shown at it.
async function generatedForm(box, base, definitionId, element, submit, done) {
  const [xml, vars] = await Promise.all([get(`/process-definition/${encodeURIComponent(definitionId)}/xml`), formVariables(base)]);
  const el = element(new DOMParser().parseFromString(xml.bpmn20Xml, 'application/xml'));
  const fields = el ? [...el.getElementsByTagNameNS(camundaNS, 'formField')] : [];
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
    for (const slot of box.querySelectorAll('.field-error')) slot.textContent = '';
    const variables = {};
    for (const [id, { input, type }] of Object.entries(inputs)) {
      if (input.disabled) continue;
      if (type === 'boolean') variables[id] = { type: 'Boolean', value: input.checked };
      else if (input.value === '') continue;
      else variables[id] = type === 'long' ? typedValue('Long', input.value) : { type: 'String', value: input.value };
    }
    try {
      await submit(variables);
    } catch (err) {
      const field = /form field '([^']+)'/.exec(err.message)?.[1];
      const slot = field && box.querySelector(`[data-field="${CSS.escape(field)}"] .field-error`);
      if (slot) slot.textContent = err.message.replace(/^.*?: (?=Invalid value)/, '');
      throw err;
    }
  }, null, done);
}
