import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer, MailDeliveryError, type MailMessage } from './mailer.ts';
import { OutboxMailer, readOutbox } from './outbox.ts';
import { SmtpMailer } from './smtp.ts';

const FROM = 'SDCS <no-reply@sdcs.test>';
const link = `https://sdcs.example.org/accept-invitation?token=sdcs_inv_${'x'.repeat(43)}`;
const message: MailMessage = {
  to: 'zoë@example.com',
  subject: 'Invitation à rejoindre Ökostrom',
  text: `Bonjour,\n\nAcceptez l’invitation : ${link}\n`,
  html: `<p>Acceptez l’invitation : <a href="${link}">${link}</a></p>`,
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sdcs-mail-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('outbox driver', () => {
  it('writes one RFC 822 .eml file per message, which reads back as sent', async () => {
    const outbox = join(dir, 'outbox');
    const mailer = new OutboxMailer(outbox, FROM);
    await mailer.send(message);
    await mailer.send({ to: 'plain@example.com', subject: 'Plain', text: 'short' });

    const files = (await readdir(outbox)).sort();
    expect(files).toHaveLength(2);
    expect(files.every((f) => f.endsWith('.eml'))).toBe(true);
    // Two messages may be written in the same millisecond: pick the first by its recipient.
    const invitation = files.find((f) => !f.includes('plain@example.com'));
    const raw = await readFile(join(outbox, invitation!), 'utf8');
    expect(raw).toMatch(/^From: SDCS <no-reply@sdcs\.test>\r$/m);
    expect(raw).toMatch(/^MIME-Version: 1\.0\r$/m);
    expect(raw).toMatch(/^Message-ID: <.+>\r$/m);
    expect(raw).toMatch(/^Content-Type: multipart\/alternative/m);
    expect(raw).not.toMatch(/[^\r]\n/); // CRLF line ends throughout

    const read = await readOutbox(outbox);
    const first = read.find((m) => m.subject === message.subject)!;
    expect(first).toMatchObject({ to: message.to, text: message.text, html: message.html });
    const second = read.find((m) => m.subject === 'Plain')!;
    expect(second).toMatchObject({ to: 'plain@example.com', text: 'short' });
    expect(second.html).toBeUndefined();
  });

  it('names files by recipient and keeps a long link whole on one line', async () => {
    const outbox = join(dir, 'outbox-links');
    const link = `http://127.0.0.1:3000/accept-invitation?token=${'a1B2'.repeat(16)}`;
    await new OutboxMailer(outbox, FROM).send({
      to: 'Ann.Lee@Example.com',
      subject: 'Join',
      text: `Open ${link}`,
    });
    const [file] = await readdir(outbox);
    expect(file).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z-ann\.lee@example\.com-[0-9a-f]{8}\.eml$/);
    const raw = await readFile(join(outbox, file!), 'utf8');
    expect(raw).toContain(`Open ${link}\r\n`);
    expect((await readOutbox(outbox))[0]!.text).toBe(`Open ${link}`);
  });

  it('reports a directory it cannot write to as a delivery error', async () => {
    const blocker = join(dir, 'not-a-directory');
    await writeFile(blocker, 'x');
    const mailer = new OutboxMailer(join(blocker, 'outbox'), FROM);
    await expect(mailer.send(message)).rejects.toBeInstanceOf(MailDeliveryError);
  });

  it('reads a missing outbox as empty', async () => {
    expect(await readOutbox(join(dir, 'nothing-here'))).toEqual([]);
  });
});

interface Received {
  from: string;
  to: string[];
  user: string | undefined;
  raw: string;
}

/** A real SMTP server on a free port that keeps what it receives; rejects `reject@…` recipients. */
async function startSmtpServer() {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'sdcs' && auth.password === 's3cret') return callback(null, { user: 'sdcs' });
      return callback(new Error('Invalid username or password'));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('reject@')) return callback(new Error('Mailbox unavailable'));
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { server, port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('SMTP driver', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp.close();
  });

  it('delivers the message to a real SMTP server, logging in with the URL’s credentials', async () => {
    const mailer = new SmtpMailer(`smtp://sdcs:s3cret@127.0.0.1:${smtp.port}`, FROM);
    try {
      await mailer.send(message);
    } finally {
      mailer.close();
    }
    expect(smtp.received).toHaveLength(1);
    const got = smtp.received[0]!;
    expect(got).toMatchObject({ from: 'no-reply@sdcs.test', to: ['zoë@example.com'], user: 'sdcs' });
    // The delivered message is the same RFC 822 text the outbox would hold.
    const inbox = join(dir, 'inbox');
    await rm(inbox, { recursive: true, force: true });
    await mkdir(inbox);
    await writeFile(join(inbox, 'received.eml'), got.raw);
    const [parsed] = await readOutbox(inbox);
    expect(parsed).toMatchObject({ subject: message.subject, text: message.text, html: message.html });
  });

  it('throws a delivery error when the server refuses the recipient', async () => {
    const mailer = new SmtpMailer(`smtp://127.0.0.1:${smtp.port}`, FROM);
    try {
      await expect(mailer.send({ ...message, to: 'reject@example.com' })).rejects.toBeInstanceOf(
        MailDeliveryError,
      );
    } finally {
      mailer.close();
    }
  });

  it('throws a delivery error when the credentials are wrong or no server listens', async () => {
    const wrong = new SmtpMailer(`smtp://sdcs:nope@127.0.0.1:${smtp.port}`, FROM);
    await expect(wrong.send(message)).rejects.toBeInstanceOf(MailDeliveryError);
    wrong.close();
    const closed = await startSmtpServer();
    await closed.close();
    const nobody = new SmtpMailer(`smtp://127.0.0.1:${closed.port}`, FROM);
    await expect(nobody.send(message)).rejects.toBeInstanceOf(MailDeliveryError);
    nobody.close();
  });
});

describe('createMailer', () => {
  it('uses SMTP when SMTP_URL is set, else the outbox in the data directory', () => {
    const smtp = createMailer({ smtpUrl: 'smtp://127.0.0.1:2525', dataDir: dir, mailFrom: FROM });
    expect(smtp.kind).toBe('smtp');
    smtp.close?.();
    const outbox = createMailer({ smtpUrl: undefined, dataDir: dir, mailFrom: FROM });
    expect(outbox).toBeInstanceOf(OutboxMailer);
    expect((outbox as OutboxMailer).dir).toBe(`${dir}/outbox`);
  });
});
