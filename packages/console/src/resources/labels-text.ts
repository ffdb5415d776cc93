/** Labels as the object form edits them: `key=value`, one per line. Pure. */

export function labelsTextOf(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

/** The labels a text names; a line without `=` is a key with an empty value, blank lines are skipped. */
export function labelsOfText(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const line of (text ?? '').split('\n')) {
    const at = line.indexOf('=');
    if (line.trim() === '') continue;
    if (at < 0) labels[line.trim()] = '';
    else labels[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return labels;
}
