/** The Markdown writer the report's sections share, and how they format numbers. */

type Cell = string | number | null | undefined;

export class Markdown {
  private readonly lines: string[] = [];

  line(text = ''): void {
    this.lines.push(text);
  }

  /** A table followed by a blank line; empty cells for null and undefined. */
  table(head: string[], rows: Cell[][]): void {
    this.line(`| ${head.join(' | ')} |`);
    this.line(`|${head.map(() => '---').join('|')}|`);
    for (const row of rows) this.line(`| ${row.map((v) => (v === null || v === undefined ? '' : String(v))).join(' | ')} |`);
    this.line();
  }

  text(): string {
    return this.lines.join('\n');
  }
}

export function verdict(pass: boolean | null): string {
  return pass === null ? '—' : pass ? 'pass' : '**FAIL**';
}

export function fmt(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en') : String(n);
}

export function pct(ratio: number): string {
  return `${Math.round(ratio * 100)} %`;
}

export function signedPct(change: number): string {
  const p = Math.round(change * 100);
  return `${p > 0 ? '+' : ''}${p} %`;
}

export function ratio(a: number, b: number): number {
  return Math.round((a / Math.max(0.01, b)) * 100) / 100;
}

export function short(address: string): string {
  return address.length > 14 ? `${address.slice(0, 10)}…` : address;
}
