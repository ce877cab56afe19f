// The document of a custom activity form's frame (issue 51), written by the app into an
// `<iframe sandbox="allow-scripts" srcdoc>` (an opaque origin: no cookies, storage or page of the
// app) whose own Content-Security-Policy allows no request of any kind (decision 224). The app hands it, once, a
// MessagePort with the definition's uiCode, inputs, the row's values, units and locale
// (custom-form/host.js). The component runs in a Worker started from a blob (frame-worker.js);
// the frame draws the plain tree the worker sends (known tags and attributes only, through Preact)
// and passes events to the worker and `set` calls to the app. A worker that does not answer in
// time, sends too much, or fails is ended, and the app is told.
import { h, render, type VNode } from 'preact';
import { UI_CODE_HEADER } from './contract.js';
import { SAFE_TAGS, safeProps } from './frame-tree.js';

/** The worker's runtime (frame-worker.ts, bundled), set by the build (scripts/build-web-app-frame.mjs). */
declare const SDCS_FRAME_WORKER: string;
/** A node of the worker's plain tree. */
type PlainNode = { tag: string; props: unknown; children?: unknown };
const ANSWER_MS = 1500;
const MAX_MESSAGES_PER_SECOND = 200;

let port: MessagePort | null = null;
let worker: Worker | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
let budget = { second: 0, count: 0 };

const tell = (message: object) => port?.postMessage(message);

/**
 * The height the drawing needs. Not the root's scrollHeight: that is never less than the frame's
 * own height, so a frame once made taller than its drawing never became shorter again.
 */
const contentHeight = () => Math.ceil(document.documentElement.getBoundingClientRect().height);

function stop(reason: unknown, detail?: unknown) {
  clearTimeout(timer);
  worker?.terminate();
  worker = null;
  render(null, document.body);
  tell({
    type: 'failed',
    reason: typeof reason === 'string' ? reason : 'unusable',
    ...(typeof detail === 'string' ? { detail: detail.slice(0, 200) } : {}),
  });
}

/** A render is asked: it must come back within ANSWER_MS, or the worker is ended. */
function expectAnswer() {
  clearTimeout(timer);
  timer = setTimeout(() => stop('timeout'), ANSWER_MS);
}

const MAX_NODES = 2000;
const MAX_DEPTH = 64;

/** The worker's plain tree as Preact nodes; throws on a tree too large or too deep. */
function toVnode(received: unknown, count = { n: 0 }, depth = 0): VNode | string | null {
  if (typeof received === 'string') return received.slice(0, 10_000);
  const node = received as PlainNode | null;
  if (!node || typeof node !== 'object' || !SAFE_TAGS.has(node.tag)) return null;
  if (++count.n > MAX_NODES || depth > MAX_DEPTH) throw new Error('too large');
  const props = safeProps(node.tag, node.props, (handler) => (e: Event) => {
    const el = e.currentTarget as HTMLInputElement;
    worker?.postMessage({
      type: 'event',
      handler,
      event: e.type,
      key: e instanceof KeyboardEvent ? e.key : undefined,
      target: { value: el.value, checked: el.checked, name: el.name, id: el.id },
    });
  });
  const children = Array.isArray(node.children) ? node.children.map((c) => toVnode(c, count, depth + 1)) : [];
  return h(node.tag, props, ...children);
}

function fromWorker(event: MessageEvent) {
  const now = Math.floor(performance.now() / 1000);
  if (budget.second !== now) budget = { second: now, count: 0 };
  if (++budget.count > MAX_MESSAGES_PER_SECOND) return stop('flood');
  const message = event.data;
  if (message?.type === 'tree') {
    clearTimeout(timer);
    try {
      render(toVnode(message.tree), document.body);
    } catch {
      return stop('unusable');
    }
    tell({ type: 'rendered', height: contentHeight() });
  } else if (message?.type === 'set') {
    if (typeof message.name === 'string') tell({ type: 'set', name: message.name, value: message.value });
  } else if (message?.type === 'failed') {
    stop(message.reason, message.detail);
  }
}

function start({
  uiCode,
  inputs,
  values,
  units,
  locale,
}: {
  uiCode: string;
  inputs: unknown;
  values: unknown;
  units: unknown;
  locale: unknown;
}) {
  document.documentElement.lang = typeof locale === 'string' ? locale : 'en';
  const source = `${UI_CODE_HEADER}\n${uiCode}\n}\nvar SDCS_COMPONENT = component;\n${SDCS_FRAME_WORKER}`;
  try {
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    worker = new Worker(url);
    URL.revokeObjectURL(url);
  } catch (error) {
    return stop('threw', (error as Error | null)?.message);
  }
  worker.onmessage = fromWorker;
  worker.onerror = (e) => {
    e.preventDefault();
    stop('threw', e.message);
  };
  worker.postMessage({ type: 'start', inputs, values, units, locale });
  expectAnswer();
}

function fromApp(event: MessageEvent) {
  const message = event.data;
  if (message?.type === 'values' && worker) {
    worker.postMessage({ type: 'values', values: message.values });
    expectAnswer();
  }
}

// The app's CSP allows this script by its hash, so it must do nothing anywhere but in the
// sandboxed frame: outside a frame, or with an origin that is not opaque, it never listens.
const sandboxed = window.parent !== window && self.origin === 'null';

// The one message of the window: the app's port and what to run. Anything after it is ignored.
window.addEventListener('message', function first(event) {
  if (!sandboxed) return;
  if (port || event.source !== window.parent || !event.ports[0] || event.data?.type !== 'init') return;
  window.removeEventListener('message', first);
  port = event.ports[0];
  port.onmessage = fromApp;
  start(event.data);
});

new ResizeObserver(() => tell({ type: 'height', height: contentHeight() })).observe(document.documentElement);
