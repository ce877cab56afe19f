// The runtime of a custom activity form (issue 51), in a Worker that the sandboxed frame starts
// (frame.js). The frame builds the worker's script from this file and the definition's uiCode
// wrapped as `function component({ h, inputs, values, set, units, locale, t }) { … }`
// (SDCS_COMPONENT below). The component runs here, off the page's thread: a loop that never
// ends stops only this worker, which the frame ends. What it returns is sent to the frame as a
// plain tree (`{ tag, props, children }`, event handlers as numbers); the frame draws it.

/* global SDCS_COMPONENT */
const component = SDCS_COMPONENT;
const post = self.postMessage.bind(self);

let context = null;
let handlers = [];

/** Hyperscript: a plain node; a function tag is a component of the component, called at once. */
function h(tag, props, ...children) {
  if (typeof tag === 'function') return tag({ ...(props ?? {}), children });
  return { tag, props: props ?? {}, children };
}

const MAX_NODES = 2000;

/** The tree as the frame gets it: strings, numbers and nodes; handlers become numbers. */
function plain(node, count) {
  if (node === null || node === undefined || node === false || node === true) return null;
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map((n) => plain(n, count)).filter((n) => n !== null);
  if (typeof node !== 'object' || typeof node.tag !== 'string') throw new Error('not a node');
  if (++count.n > MAX_NODES) throw new Error('too many nodes');
  const props = {};
  for (const [key, value] of Object.entries(node.props)) {
    if (key === 'children') continue;
    if (typeof value === 'function') {
      if (/^on[A-Z]/.test(key)) props[key] = { handler: handlers.push(value) - 1 };
    } else if (value !== null && value !== undefined) {
      props[key] = typeof value === 'object' ? JSON.parse(JSON.stringify(value)) : value;
    }
  }
  const children = node.children
    .flat(Infinity)
    .map((n) => plain(n, count))
    .filter((n) => n !== null);
  return { tag: node.tag, props, children: children.flat(Infinity) };
}

function render() {
  handlers = [];
  let tree;
  try {
    tree = component({ h, ...context });
  } catch (error) {
    return post({ type: 'failed', reason: 'threw', detail: String(error?.message ?? error).slice(0, 200) });
  }
  if (tree === null || tree === undefined || typeof tree !== 'object' || typeof tree.tag !== 'string')
    return post({ type: 'failed', reason: 'nothing' });
  try {
    post({ type: 'tree', tree: plain(tree, { n: 0 }) });
  } catch (error) {
    post({ type: 'failed', reason: 'unusable', detail: String(error?.message ?? error).slice(0, 200) });
  }
}

/** Numbers and dates in the person's locale. */
function formatter(locale) {
  return {
    number: (value, options) => new Intl.NumberFormat(locale, options).format(value),
    date: (value, options) =>
      new Intl.DateTimeFormat(locale, { timeZone: 'UTC', ...options }).format(new Date(value)),
  };
}

self.onmessage = (event) => {
  const message = event.data;
  if (message?.type === 'start') {
    const { inputs, values, units, locale } = message;
    const set = (name, value) => post({ type: 'set', name, value });
    context = { inputs, values, set, units, locale, t: formatter(locale) };
    render();
  } else if (message?.type === 'values' && context) {
    context = { ...context, values: message.values };
    render();
  } else if (message?.type === 'event' && context) {
    const handler = handlers[message.handler];
    if (!handler) return;
    const target = { ...message.target };
    try {
      handler({ type: message.event, target, currentTarget: target, key: message.key, preventDefault() {} });
    } catch (error) {
      post({ type: 'failed', reason: 'threw', detail: String(error?.message ?? error).slice(0, 200) });
    }
  }
};
post({ type: 'loaded' });
