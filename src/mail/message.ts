/** One e-mail: plain text always, HTML optionally (sent as multipart/alternative). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Sends e-mail. `send` resolves once the message is handed over, and throws MailDeliveryError otherwise. */
export interface Mailer {
  /** `smtp` or `outbox`: which driver this is (for logs and the health of the set-up). */
  readonly kind: string;
  send(message: MailMessage): Promise<void>;
  /** Releases connections (SMTP); called when the app closes. */
  close?(): Promise<void> | void;
}

/** The message could not be handed over; `cause` holds the driver's error (for the log only). */
export class MailDeliveryError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MailDeliveryError';
  }
}

/** The fields nodemailer needs, with CRLF line ends in the bodies as RFC 5322 requires. */
export function composeFields(message: MailMessage) {
  const crlf = (value: string) => value.replace(/\r?\n/g, '\r\n');
  return {
    to: message.to,
    subject: message.subject,
    text: crlf(message.text),
    ...(message.html === undefined ? {} : { html: crlf(message.html) }),
  };
}
