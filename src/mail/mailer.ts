import type { Config } from '../config.ts';
import { OutboxMailer } from './outbox.ts';
import { SmtpMailer } from './smtp.ts';

export { composeFields, MailDeliveryError, type Mailer, type MailMessage } from './message.ts';

import type { Mailer } from './message.ts';

/** The configured driver: SMTP when SMTP_URL is set, else `.eml` files in `<data dir>/outbox/`. */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'dataDir' | 'mailFrom'>): Mailer {
  if (config.smtpUrl) return new SmtpMailer(config.smtpUrl, config.mailFrom);
  return new OutboxMailer(`${config.dataDir}/outbox`, config.mailFrom);
}
