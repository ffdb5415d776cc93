/**
 * RFC 3339 UTC text of an instant (`2026-11-27T06:00:00.123Z`, as `Date#toISOString` writes it), for the two
 * timestamps of every audit event: the text up to the second is kept and reused for the rest of that second, since
 * formatting a Date costs more than building the rest of an event.
 */
let second = Number.NaN;
let prefix = '';

export function isoTime(epochMs: number): string {
  const ms = Math.floor(epochMs);
  const s = Math.floor(ms / 1000);
  if (s !== second) {
    second = s;
    prefix = new Date(s * 1000).toISOString().slice(0, 20);
  }
  const milli = ms - s * 1000;
  return `${prefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
