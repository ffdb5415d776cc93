/** A timestamp as people read it on these pages, the same in every browser and time zone: `2026-11-23 22:58 UTC`. */
export function formatTime(iso: string | undefined, none = 'never'): string {
  if (!iso) return none;
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
