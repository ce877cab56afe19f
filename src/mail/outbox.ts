import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { composeFields, MailDeliveryError, type Mailer, type MailMessage } from './message.ts';

/**
 * Writes each message as an RFC 5322 `.eml` file into a directory instead of sending it: the
 * default when no SMTP server is configured. Any mail client opens these files, and so does a
 * text editor: the bodies are written as 8-bit UTF-8 text, so a link stays whole on its line
 * (quoted-printable, which SMTP delivery uses, would cut it and turn `=` into `=3D`). Files are
 * named `<time>-<recipient>-<random>.eml`, so the newest message to a person is easy to find.
 */
export class OutboxMailer implements Mailer {
  readonly kind = 'outbox';

  constructor(
    readonly dir: string,
    private readonly from: string,
  ) {}

  async send(message: MailMessage): Promise<void> {
    try {
      const raw = await composeEml(this.from, message);
      await mkdir(this.dir, { recursive: true });
      const time = new Date().toISOString().replace(/[:.]/g, '-');
      const recipient = message.to
        .toLowerCase()
        .replace(/[^a-z0-9@._+-]/g, '_')
        .slice(0, 100);
      const name = `${time}-${recipient}-${randomBytes(4).toString('hex')}.eml`;
      // Written under a temporary name and renamed, so a reader never sees half a message.
      const partial = join(this.dir, `.${name}.tmp`);
      await writeFile(partial, raw, { mode: 0o600 });
      await rename(partial, join(this.dir, name));
    } catch (err) {
      throw new MailDeliveryError(`Could not write the e-mail to ${message.to} into ${this.dir}`, {
        cause: err,
      });
    }
  }
}

/**
 * The message as an `.eml` document, composed by nodemailer's MailComposer (the composer its
 * SMTP transport uses): it encodes and folds every header, so no field of the message can end
 * a header line and start another. Text parts are written as 8-bit UTF-8 rather than the
 * composer's quoted-printable, so a long link stays whole on its line.
 */
export function composeEml(from: string, message: MailMessage): Promise<Buffer> {
  const root = new MailComposer({ from, ...composeFields(message) }).compile();
  const parts = root.childNodes.length > 0 ? root.childNodes : [root];
  for (const part of parts) {
    if (/^text\//i.test(String(part.getHeader('Content-Type') ?? '')))
      part.getTransferEncoding = () => '8bit';
  }
  return root.build();
}

/** A message read back from an outbox directory. */
export interface OutboxMessage {
  file: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * Reads the `.eml` files of an outbox directory, oldest first, decoding the parts this
 * service writes (text and HTML; 7bit, quoted-printable or base64). For tests and operators.
 */
export async function readOutbox(dir: string): Promise<OutboxMessage[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const files = names.filter((n) => n.endsWith('.eml') && !n.startsWith('.')).sort();
  return Promise.all(
    files.map(async (file) => {
      const { headers, body } = splitHeaders(await readFile(join(dir, file), 'utf8'));
      const parts = textParts(headers, body.replace(/\r?\n$/, ''));
      return {
        file,
        to: decodeWords(headers.get('to') ?? ''),
        subject: decodeWords(headers.get('subject') ?? ''),
        text: parts.text ?? '',
        ...(parts.html === undefined ? {} : { html: parts.html }),
      };
    }),
  );
}

function splitHeaders(raw: string): { headers: Map<string, string>; body: string } {
  const end = /\r?\n\r?\n/.exec(raw);
  const head = end ? raw.slice(0, end.index) : raw;
  const body = end ? raw.slice(end.index + end[0].length) : '';
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function textParts(headers: Map<string, string>, body: string): { text?: string; html?: string } {
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const out: { text?: string; html?: string } = {};
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const part = splitHeaders(chunk.replace(/^\r?\n/, ''));
      const found = textParts(part.headers, part.body.replace(/\r?\n$/, ''));
      out.text ??= found.text;
      out.html ??= found.html;
    }
    return out;
  }
  const decoded = decodeBody(headers.get('content-transfer-encoding') ?? '7bit', body).replace(/\r\n/g, '\n');
  return /^text\/html/i.test(type) ? { html: decoded } : { text: decoded };
}

function decodeBody(encoding: string, body: string): string {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return decodeQuotedPrintable(body.replace(/=\r?\n/g, ''));
    default:
      return body;
  }
}

function decodeQuotedPrintable(value: string): string {
  const bytes = value.replace(/=([0-9A-F]{2})/gi, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?Q?…?=`) in a header value. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?[^?]+\?([BbQq])\?([^?]*)\?=/g, (_, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}
