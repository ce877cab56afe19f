import nodemailer, { type Transporter } from 'nodemailer';
import { composeFields, MailDeliveryError, type Mailer, type MailMessage } from './message.ts';

// Bounds on a stalled server: a request waiting for its e-mail must not hang for minutes.
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/** Sends through an SMTP server given as `smtp://user:pass@host:port` (or `smtps://`). */
export class SmtpMailer implements Mailer {
  readonly kind = 'smtp';
  private readonly transport: Transporter;

  constructor(url: string, from: string) {
    // Options in the URL's query string (`?connectionTimeout=…`) override these defaults.
    this.transport = nodemailer.createTransport({ url, ...TIMEOUTS }, { from });
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.transport.sendMail(composeFields(message));
    } catch (err) {
      throw new MailDeliveryError(`SMTP delivery to ${message.to} failed`, { cause: err });
    }
  }

  close(): void {
    this.transport.close();
  }
}
