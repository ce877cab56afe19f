import { type AccessAnswer, askForAccess, writeToken } from './api.ts';
import { problemText, timeText } from './format.ts';
import { say } from './language.ts';
import { $, pageNeedsEmail, pageNeedsPassword, setStatus } from './page.ts';
import type { AccessRequest, Granted, Problem } from './types.ts';

// The dashboard's gate: a password, an allowed e-mail address (a code is mailed, then entered),
// or both. A grant's token is kept for this tab; then the view is asked for again.

let pendingEmail = '';

const input = (id: string) => $<HTMLInputElement>(id);
const button = (id: string) => $<HTMLButtonElement>(id);

export function showGate(problem: Problem): void {
  const needsPassword = problem.requiresPassword ?? pageNeedsPassword;
  const needsEmail = problem.requiresEmail ?? pageNeedsEmail;
  setStatus('');
  $('filters').hidden = true;
  $('gate').hidden = false;
  $('password-field').hidden = !needsPassword;
  $('email-field').hidden = !needsEmail;
  $('gate-intro').textContent = say(
    needsEmail ? (needsPassword ? 'introBoth' : 'introEmail') : 'introPassword',
  );
  button('gate-submit').textContent = say(needsEmail ? 'sendCode' : 'open');
  $('gate-form').hidden = false;
  $('code-form').hidden = true;
  (needsEmail ? input('gate-email') : input('gate-password')).focus();
}

function gateError(text: string): void {
  const box = $('gate-error');
  box.textContent = text;
  box.hidden = !text;
}

/** The gate's words for a refusal. */
function refusal(answer: { status: number; problem: Problem; retryAfter: string | null }): string {
  if (answer.status === 429) {
    const wait = Number(answer.retryAfter);
    if (!Number.isFinite(wait) || wait <= 0) return say('tooManyLater');
    const minutes = Math.ceil(wait / 60);
    return minutes > 1 ? say('tooManyMinutes', { minutes }) : say('tooManySeconds', { seconds: wait });
  }
  if (answer.status === 403) return problemText(answer.problem, say('addressRefused'));
  if (answer.status === 401) return problemText(answer.problem, say('wrongAnswer'));
  return problemText(answer.problem, say('accessRefused', { status: answer.status }));
}

async function ask(payload: AccessRequest, submit: HTMLButtonElement): Promise<AccessAnswer | null> {
  gateError('');
  submit.disabled = true;
  try {
    const answer = await askForAccess(payload);
    if ('problem' in answer) {
      gateError(refusal(answer));
      return null;
    }
    return answer;
  } catch {
    gateError(say('serviceUnreachable'));
    return null;
  } finally {
    submit.disabled = false;
  }
}

const passwordPayload = (): AccessRequest =>
  $('password-field').hidden ? {} : { password: input('gate-password').value };

/** Wires the gate's forms; `onGranted` asks for the view again once a grant is kept. */
export function initGate(onGranted: () => Promise<void>): void {
  const granted = async (grant: Granted) => {
    writeToken(grant.accessToken);
    $('gate').hidden = true;
    input('gate-password').value = '';
    input('gate-code').value = '';
    await onGranted();
  };

  $('gate-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const payload = passwordPayload();
    if (!$('password-field').hidden && !payload.password) return gateError(say('enterPassword'));
    if (!$('email-field').hidden) {
      const email = input('gate-email').value.trim();
      if (!/^[^\s@]+@[^\s@]+$/.test(email)) return gateError(say('enterEmail'));
      payload.email = email;
    }
    const answer = await ask(payload, button('gate-submit'));
    if (!answer) return;
    if ('sent' in answer) {
      pendingEmail = answer.sent.email || payload.email || '';
      $('gate-form').hidden = true;
      $('code-form').hidden = false;
      const until = answer.sent.expiresAt
        ? ` ${say('codeValid', { time: timeText(answer.sent.expiresAt, false) })}`
        : '';
      $('code-intro').textContent = say('codeSent', { email: pendingEmail }) + until;
      input('gate-code').focus();
      return;
    }
    if ('granted' in answer) await granted(answer.granted);
  });

  $('code-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const code = input('gate-code').value.trim();
    if (!code) return gateError(say('enterCode'));
    const answer = await ask({ ...passwordPayload(), email: pendingEmail, code }, button('code-submit'));
    if (answer && 'granted' in answer) await granted(answer.granted);
  });

  $('code-back').addEventListener('click', () => {
    gateError('');
    $('code-form').hidden = true;
    $('gate-form').hidden = false;
    input('gate-email').focus();
  });
}
