/**
 * ISO 8601 times as TIMESTAMP values accept them (extended format): a date `2025-04-01`
 * (midnight UTC), or a date and time `2025-04-01T10:00`, `…T10:00:00`, `…T10:00:00.123456`
 * with an optional offset `Z`, `+02:00`, `+0200` or `+02` (none: UTC). `T` may also be a
 * space, and letters may be lower case. Digits beyond milliseconds are cut off.
 */
const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

/** The instant an ISO 8601 time names, or null when the text is not one (or names no real time). */
export function parseTimestamp(text: string): Date | null {
  const m = ISO_TIME.exec(text);
  if (!m) return null;
  const n = (i: number) => Number(m[i] ?? 0);
  const [year, month, day, hour, minute, second] = [n(1), n(2), n(3), n(4), n(5), n(6)];
  const millis = Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'));
  const [offsetHours, offsetMinutes] = [n(9), n(10)];
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  // A day or month out of range rolls over (2025-02-30 becomes March 2): not a real date.
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  date.setUTCHours(hour, minute, second, millis);
  const offset = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  return new Date(date.getTime() - offset * 60_000);
}
