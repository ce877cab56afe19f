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

/** A header value on one line: CR and LF (and runs of them) become one space. */
export const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ');

/**
 * The fields nodemailer needs, with CRLF line ends in the bodies as RFC 5322 requires. Header
 * values never carry a line break (a form named `x\r\nBcc: …` cannot add a header): besides the
 * composer's own encoding, they are put on one line here, for every driver.
 */
export function composeFields(message: MailMessage) {
  const crlf = (value: string) => value.replace(/\r?\n/g, '\r\n');
  return {
    to: oneLine(message.to),
    subject: oneLine(message.subject),
    text: crlf(message.text),
    ...(message.html === undefined ? {} : { html: crlf(message.html) }),
  };
}
