/**
 * Encoding of rows for `COPY … FROM STDIN` in PostgreSQL's text format: tab-separated columns,
 * `\N` for null, backslash escapes for the few characters that would break a line.
 */
export type CopyValue = string | number | bigint | boolean | null | undefined;

const SPECIAL = /[\\\t\n\r]/;

function encodeCopyValue(value: CopyValue): string {
  if (value === null || value === undefined) return '\\N';
  switch (typeof value) {
    case 'string':
      return SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, escapeChar) : value;
    case 'boolean':
      return value ? 't' : 'f';
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`cannot COPY a non-finite number: ${value}`);
      return String(value);
    default:
      return value.toString();
  }
}

function escapeChar(char: string): string {
  switch (char) {
    case '\\':
      return '\\\\';
    case '\t':
      return '\\t';
    case '\n':
      return '\\n';
    default:
      return '\\r';
  }
}

export function encodeCopyRows(rows: Iterable<readonly CopyValue[]>): { tsv: string; count: number } {
  const lines: string[] = [];
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < row.length; i++) {
      if (i > 0) line += '\t';
      line += encodeCopyValue(row[i]);
    }
    lines.push(line);
  }
  return { tsv: lines.length > 0 ? lines.join('\n') + '\n' : '', count: lines.length };
}
