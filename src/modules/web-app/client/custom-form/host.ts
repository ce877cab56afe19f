// A custom activity form in the entry screen (issue 51): one sandboxed frame per activity row,
// its document (custom-form/frame.js) written into it from the app's own bundle with `srcdoc`
// (decision 224: no request, so also offline), spoken to through a MessagePort only. The frame gets
// the definition's uiCode, inputs, the row's values, units and locale; it sends back `set` calls,
// read by messages.js before they change the row as the generic form's fields would. A frame that
// fails, does not answer in time or sends too much is removed, and `onFail` puts the generic
// form in its place.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActivityDefinition, Unit } from '../api-shapes.js';
import type { DraftRow } from '../period-data.js';
import { readFrameMessage } from './messages.js';

/** From the frame's creation to its first drawing (loading the document included). */
const FIRST_ANSWER_MS = 8000;
/** From new values sent to the frame to its drawing of them. */
const ANSWER_MS = 3000;
const MAX_MESSAGES_PER_SECOND = 100;

/** The frame's document, from a chunk of the bundle loaded once, with the first custom form. */
let frameDocument: Promise<string> | null = null;
const loadFrameDocument = () => {
  frameDocument ??= import('./frame-document.js').then((m) => m.FRAME_DOCUMENT);
  frameDocument.catch(() => {
    frameDocument = null; // a later row tries again
  });
  return frameDocument;
};

export function CustomRow({
  title,
  definition,
  row,
  units,
  locale,
  onText,
  onFail,
}: {
  title: string;
  definition: ActivityDefinition;
  row: DraftRow;
  units: Unit[];
  locale: string;
  onText: (name: string, text: string) => void;
  onFail: (reason: string) => void;
}) {
  const frame = useRef<HTMLIFrameElement>(null);
  const port = useRef<MessagePort | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const sent = useRef<string | null>(null);
  const [height, setHeight] = useState(48);
  const values = Object.fromEntries(definition.inputs.map((i) => [i.name, row[i.name] ?? '']));
  const live = useRef({ onText, onFail });
  live.current = { onText, onFail };

  const fail = (reason: string) => {
    clearTimeout(timer.current);
    port.current?.close();
    port.current = null;
    live.current.onFail(reason);
  };
  const expect = (ms: number) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => fail('timeout'), ms);
  };

  useEffect(() => {
    expect(FIRST_ANSWER_MS);
    let started = false;
    let budget = { second: 0, count: 0 };
    const element = frame.current as HTMLIFrameElement;
    const loaded = () => {
      if (started) return fail('navigated');
      started = true;
      const channel = new MessageChannel();
      port.current = channel.port1;
      channel.port1.onmessage = (event) => {
        const now = Math.floor(performance.now() / 1000);
        if (budget.second !== now) budget = { second: now, count: 0 };
        if (++budget.count > MAX_MESSAGES_PER_SECOND) return fail('flood');
        const message = readFrameMessage(event.data, definition.inputs, locale);
        if (!message) return;
        if (message.type === 'failed') return fail(message.reason);
        if (message.type === 'rendered') clearTimeout(timer.current);
        // A locked period (or one being saved) disables its fieldset; the frame's controls are not.
        if (message.type === 'set') {
          if (!element.closest('fieldset:disabled')) live.current.onText(message.name, message.text);
        } else setHeight(Math.max(24, message.height));
      };
      sent.current = JSON.stringify(values);
      const init = {
        type: 'init',
        uiCode: definition.uiCode,
        inputs: definition.inputs,
        values,
        units,
        locale,
      };
      // The frame's origin is opaque ("null"): '*' is the only target that reaches it.
      element.contentWindow?.postMessage(init, '*', [channel.port2]);
    };
    // The frame is written once its listener is there: the first `load` is the document's. (The
    // frame's initial empty document fired its own on insertion, before this effect.)
    element.addEventListener('load', loaded);
    let gone = false;
    loadFrameDocument().then(
      (text) => {
        if (!gone) element.srcdoc = text;
      },
      () => !gone && fail('unavailable'),
    );
    return () => {
      gone = true;
      element.removeEventListener('load', loaded);
      clearTimeout(timer.current);
      port.current?.close();
    };
  }, []);

  // The row changed (typed in the frame, restored from a draft): the component draws it again.
  useEffect(() => {
    const now = JSON.stringify(values);
    if (!port.current || now === sent.current) return;
    sent.current = now;
    port.current.postMessage({ type: 'values', values });
    expect(ANSWER_MS);
  });

  // No allow-same-origin: the frame's origin is opaque. Its document comes in the effect above.
  return html`<iframe ref=${frame} class="custom-form" sandbox="allow-scripts"
    title=${title} style=${{ height: `${height}px` }} referrerpolicy="no-referrer"></iframe>`;
}

/** Whether the definition has a component of its own (an empty uiCode keeps the generic form). */
export const hasCustomForm = (definition: { uiCode?: string | null } | null | undefined) =>
  typeof definition?.uiCode === 'string' && definition.uiCode.trim() !== '';
