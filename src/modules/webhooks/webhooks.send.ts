import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolvePublic } from './webhooks.address.ts';

/** How one delivery attempt ended: the receiver's status, or why there was none. */
export type SendOutcome = { ok: boolean; status: number | null; error: string | null };

/**
 * A lookup that checks the addresses it answers (decision 218): the address connected to is the
 * one checked, so a name that resolves to a public address at registration and a private one now
 * (DNS rebinding) is refused at delivery.
 */
function checkedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolvePublic(hostname, allowPrivate).then(
      (addresses: LookupAddress[]) => {
        if ((options as { all?: boolean }).all)
          (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, '', 0),
    );
  };
}

/**
 * POSTs a signed delivery: no redirect is followed (a 3xx is a failed attempt), the whole exchange
 * must end within `timeoutMs`, and at most 64 KiB of the answer is read (then dropped).
 */
export async function sendDelivery(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendOutcome> {
  const url = new URL(target);
  // A literal address never goes through the lookup: check it here.
  if (/^\[.*\]$|^[\d.]+$/.test(url.hostname)) {
    try {
      await resolvePublic(url.hostname, options.allowPrivate);
    } catch (error) {
      return { ok: false, status: null, error: (error as Error).message };
    }
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const done = (outcome: SendOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        lookup: checkedLookup(options.allowPrivate),
        agent: false,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 65_536) response.destroy();
        });
        const end = () => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          const error = ok
            ? null
            : status >= 300 && status < 400
              ? `the endpoint answered ${status} (redirects are not followed)`
              : `the endpoint answered ${status}`;
          done({ ok, status, error });
        };
        response.on('end', end);
        response.on('close', end);
        response.on('error', end);
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      done({ ok: false, status: null, error: `no answer within ${options.timeoutMs / 1000} s` });
    }, options.timeoutMs);
    request.on('error', (error) => done({ ok: false, status: null, error: error.message }));
    request.end(body);
  });
}
