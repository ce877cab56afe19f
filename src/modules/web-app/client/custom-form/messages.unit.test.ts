import { describe, expect, it } from 'vitest';
import { SAFE_TAGS, safeProps } from './frame-tree.js';
import { readFrameMessage, textForInput } from './messages.js';

const INPUTS = [
  {
    name: 'fuel',
    type: 'string',
    editor: {
      type: 'select',
      options: [
        { label: 'Diesel', value: 'diesel' },
        { label: 'Petrol', value: 'petrol' },
      ],
    },
  },
  { name: 'litres', type: 'number' },
  { name: 'metered', type: 'boolean' },
  { name: 'day', type: 'date' },
];

describe('readFrameMessage', () => {
  it('takes a set() of a known input as the text the generic form would hold', () => {
    expect(readFrameMessage({ type: 'set', name: 'litres', value: '1,5' }, INPUTS, 'de-DE')).toEqual({
      type: 'set',
      name: 'litres',
      text: '1,5',
    });
    expect(readFrameMessage({ type: 'set', name: 'litres', value: 1234.5 }, INPUTS, 'de-DE')).toEqual({
      type: 'set',
      name: 'litres',
      text: '1234,5',
    });
    const text = (data: object) => {
      const read = readFrameMessage(data, INPUTS, 'en');
      return read?.type === 'set' ? read.text : undefined;
    };
    expect(text({ type: 'set', name: 'metered', value: true })).toBe('true');
    expect(text({ type: 'set', name: 'fuel', value: 'diesel' })).toBe('diesel');
    expect(text({ type: 'set', name: 'day', value: null })).toBe('');
  });

  it('drops unknown inputs, wrong types, values outside a select’s options and long texts', () => {
    const drop = (name: unknown, value: unknown) =>
      readFrameMessage({ type: 'set', name, value }, INPUTS, 'en');
    expect(drop('token', 'x')).toBeNull();
    expect(drop('__proto__', 'x')).toBeNull();
    expect(drop(['litres'], '1')).toBeNull();
    expect(drop('litres', { inputValue: 1 })).toBeNull();
    expect(drop('litres', Number.NaN)).toBeNull();
    expect(drop('metered', 'yes')).toBeNull();
    expect(drop('fuel', 'coal')).toBeNull();
    expect(drop('day', 20250101)).toBeNull();
    expect(drop('litres', '1'.repeat(1001))).toBeNull();
  });

  it('bounds heights and drops anything else', () => {
    expect(readFrameMessage({ type: 'height', height: 1e9 }, INPUTS, 'en')).toEqual({
      type: 'height',
      height: 3000,
    });
    expect(readFrameMessage({ type: 'rendered', height: 'tall' }, INPUTS, 'en')).toBeNull();
    expect(readFrameMessage({ type: 'eval', code: 'alert(1)' }, INPUTS, 'en')).toBeNull();
    expect(readFrameMessage('set', INPUTS, 'en')).toBeNull();
    expect(readFrameMessage([{ type: 'set' }], INPUTS, 'en')).toBeNull();
    expect(readFrameMessage({ type: 'failed', reason: { toString: 1 } }, INPUTS, 'en')?.type).toBe('failed');
  });

  it('textForInput keeps a typed number as typed (the form reads it in the locale)', () => {
    expect(textForInput({ name: 'n', type: 'number' }, ' 12 ', 'en')).toBe(' 12 ');
  });
});

describe('the frame’s tree', () => {
  it('draws form controls and text, never what loads or leaves', () => {
    for (const tag of ['input', 'select', 'label', 'div', 'button']) expect(SAFE_TAGS.has(tag)).toBe(true);
    for (const tag of [
      'img',
      'a',
      'form',
      'iframe',
      'script',
      'style',
      'link',
      'object',
      'embed',
      'base',
      'meta',
    ])
      expect(SAFE_TAGS.has(tag)).toBe(false);
  });

  it('keeps known attributes and handlers, drops addresses, inline handlers and url() styles', () => {
    const listen = (handler: number) => `listener ${handler}`;
    expect(
      safeProps(
        'input',
        {
          id: 'l',
          value: '1',
          'aria-label': 'Litres',
          onInput: { handler: 3 },
          onclick: 'alert(1)',
          onLoad: { handler: 4 },
          src: 'http://x/',
          formaction: 'http://x/',
          srcset: 'http://x/ 1x',
          type: 'image',
          style: { color: 'red', backgroundImage: 'url(http://x/)' },
        },
        listen,
      ),
    ).toEqual({
      id: 'l',
      value: '1',
      'aria-label': 'Litres',
      onInput: 'listener 3',
      type: 'text',
      style: { color: 'red' },
    });
    expect(safeProps('div', { style: 'background: url(http://x/)' }, listen)).toEqual({});
    expect(safeProps('button', { type: 'submit' }, listen)).toEqual({ type: 'button' });
  });
});
