import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/**
 * Browser tests drive Debian's Chromium (`apt-get install chromium`) through playwright-core,
 * which downloads nothing: without the binary they are skipped, and say so.
 */
export const CHROMIUM = process.env['SDCS_CHROMIUM'] || '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const NO_CHROMIUM = `skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`;

/** A headless Chromium on a fresh profile (playwright-core gives each launch its own). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The page's console errors and uncaught exceptions (a CSP refusal is a console error). */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}
