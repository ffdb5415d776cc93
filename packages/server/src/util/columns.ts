/** Rows of text as aligned columns, for the command line's help: every column but the last padded to its widest cell. */
export function columns(rows: readonly (readonly string[])[], { gap = 2 } = {}): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, -1).forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  const pad = ' '.repeat(gap);
  return rows.map((row) =>
    row
      .map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell))
      .join(pad)
      .trimEnd(),
  );
}
