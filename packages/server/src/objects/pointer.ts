/**
 * JSON Pointers (RFC 6901) for `FieldError.path`. Keys are escaped so a label key such as `app.example.com/tier`
 * stays one segment: `/metadata/labels/app.example.com~1tier`.
 */

/** Escapes one reference token: `~` first, so the `~` introduced for `/` is not escaped again. */
export function escapePointerToken(token: string | number): string {
  const text = String(token);
  // Most tokens need no escape; every write builds pointers for its labels whether or not one is wrong.
  if (!text.includes('~') && !text.includes('/')) return text;
  return text.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Appends unescaped segments to an already-escaped pointer (`''` is the whole document). */
export function joinPointer(base: string, ...segments: (string | number)[]): string {
  return segments.reduce<string>((path, segment) => `${path}/${escapePointerToken(segment)}`, base);
}
