/**
 * The curated labels file (docs/labels.md): a CSV of venues' wallets, deposit relays and address
 * labels, parsed and validated line by line. Every error names its line and field; a file with any
 * error yields no records.
 */
import { CHAINS, isChainId, type ChainId } from '../chain/chains.ts';
import { parseAddress } from '../chain/addresses.ts';
import { DEFAULT_NETWORK, type ChainNetwork } from '../chain/network.ts';

export const LABEL_COLUMNS = ['chain', 'address', 'role', 'exchange', 'label', 'category', 'primary'] as const;
export const WALLET_ROLES = ['hot', 'cold', 'deposit_relay'] as const;
export type WalletRole = (typeof WALLET_ROLES)[number];

/** One line of the file: a label of an address and, for an exchange's address, its venue and role. */
export interface CuratedRecord {
  chain: ChainId;
  address: string;
  label: string;
  category: string;
  primary: boolean;
  exchange: { name: string; role: WalletRole } | null;
  /** The line of the file it came from (1-based). */
  line: number;
}

export interface LabelsFileError {
  line: number;
  field: string | null;
  message: string;
}

export class LabelsFileInvalid extends Error {
  constructor(readonly errors: LabelsFileError[]) {
    super(errors.map(formatLabelsError).join('\n'));
    this.name = 'LabelsFileInvalid';
  }
}

export function formatLabelsError(e: LabelsFileError): string {
  return `line ${e.line}${e.field ? `, ${e.field}` : ''}: ${e.message}`;
}

const MAX_LABEL = 200;
const MAX_EXCHANGE = 100;
const CATEGORY = /^[a-z][a-z0-9_]{0,39}$/;
const BOOLEANS: Record<string, boolean> = { '': true, true: true, '1': true, yes: true, false: false, '0': false, no: false };

/** Splits one CSV line (RFC 4180 quoting, no line breaks inside fields); null when a quote is unbalanced. */
function splitCsv(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return null;
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else {
          field += line[i++];
        }
      }
      if (i < line.length && line[i] !== ',') return null;
    } else {
      const end = line.indexOf(',', i);
      field = end < 0 ? line.slice(i) : line.slice(i, end);
      if (field.includes('"')) return null;
      i = end < 0 ? line.length : end;
    }
    fields.push(field.trim());
    if (i >= line.length) return fields;
    i++; // the comma
  }
}

/**
 * Parses and validates a labels file; throws LabelsFileInvalid listing every bad line. Addresses
 * must have the width of their chain's (`networks`: the store's network facts, store/chain-network.ts).
 */
export function parseLabelsFile(text: string, networks: Readonly<Record<ChainId, Pick<ChainNetwork, 'addressBytes'>>> = DEFAULT_NETWORK): CuratedRecord[] {
  const errors: LabelsFileError[] = [];
  const records: CuratedRecord[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let header: string[] | null = null;
  const seenLabel = new Map<string, number>();
  const primaryOf = new Map<string, number>();
  const walletOf = new Map<string, { line: number; key: string }>();

  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) return;
    const fields = splitCsv(raw);
    if (!fields) {
      errors.push({ line, field: null, message: 'unbalanced or misplaced double quote' });
      return;
    }
    if (!header) {
      const names = fields.map((f) => f.toLowerCase());
      const missing = LABEL_COLUMNS.filter((c) => !names.includes(c));
      const unknown = names.filter((n) => !(LABEL_COLUMNS as readonly string[]).includes(n));
      if (missing.length > 0 || unknown.length > 0 || new Set(names).size !== names.length) {
        errors.push({ line, field: null, message: `the header must name the columns ${LABEL_COLUMNS.join(',')} once each (in any order)${missing.length ? `; missing ${missing.join(', ')}` : ''}${unknown.length ? `; unknown ${unknown.join(', ')}` : ''}` });
        header = [];
      } else {
        header = names;
      }
      return;
    }
    if (header.length === 0) return; // a bad header: its error stands for the whole file
    if (fields.length !== header.length) {
      errors.push({ line, field: null, message: `expected ${header.length} fields, found ${fields.length}` });
      return;
    }
    const get = (column: (typeof LABEL_COLUMNS)[number]) => fields[header!.indexOf(column)]!;
    const bad = (field: string, message: string) => errors.push({ line, field, message });
    const before = errors.length;

    const chainText = get('chain');
    const chain = isChainId(chainText) ? chainText : null;
    if (!chain) bad('chain', `must be one of ${CHAINS.join(', ')} (got ${JSON.stringify(chainText)})`);
    let address = '';
    if (chain) {
      const parsed = parseAddress(chain, get('address'), networks[chain]);
      if (parsed.ok) address = parsed.address;
      else bad('address', `not a ${chain} address: ${parsed.reason}`);
    }
    const roleText = get('role');
    const role = roleText === '' ? null : (WALLET_ROLES as readonly string[]).includes(roleText) ? (roleText as WalletRole) : undefined;
    if (role === undefined) bad('role', `must be empty or one of ${WALLET_ROLES.join(', ')} (got ${JSON.stringify(roleText)})`);
    const exchange = get('exchange');
    if (role && exchange === '') bad('exchange', `required with role ${role}`);
    if (role === null && exchange !== '') bad('exchange', 'must be empty without a role');
    if (exchange.length > MAX_EXCHANGE) bad('exchange', `longer than ${MAX_EXCHANGE} characters`);
    const label = get('label');
    if (label === '') bad('label', 'required');
    if (label.length > MAX_LABEL) bad('label', `longer than ${MAX_LABEL} characters`);
    const category = get('category') === '' && role ? 'exchange' : get('category');
    if (category === '') bad('category', 'required for a label without a role');
    else if (!CATEGORY.test(category)) bad('category', 'must be lowercase letters, digits and _ (starting with a letter, at most 40)');
    else if (role && category !== 'exchange') bad('category', `must be exchange (or empty) for role ${role}`);
    const primaryText = get('primary').toLowerCase();
    const primary = BOOLEANS[primaryText];
    if (primary === undefined) bad('primary', `must be true, false, 1, 0, yes, no or empty (got ${JSON.stringify(get('primary'))})`);
    if (errors.length > before || !chain) return;

    const key = `${chain}|${address}`;
    const labelKey = `${key}|${label}`;
    if (seenLabel.has(labelKey)) bad('label', `the same label of this address is on line ${seenLabel.get(labelKey)}`);
    seenLabel.set(labelKey, line);
    if (primary) {
      if (primaryOf.has(key)) bad('primary', `this address already has a primary label on line ${primaryOf.get(key)}`);
      else primaryOf.set(key, line);
    }
    const walletKey = role ? `${role}|${exchange}` : '';
    const wallet = walletOf.get(key);
    if (wallet && wallet.key !== walletKey) bad('role', `line ${wallet.line} gives this address another venue or role (an address has one)`);
    else if (!wallet) walletOf.set(key, { line, key: walletKey });
    if (errors.length > before) return;
    records.push({ chain, address, label, category, primary: primary!, exchange: role ? { name: exchange, role } : null, line });
  });
  if (!header) errors.push({ line: 1, field: null, message: `empty file: a header (${LABEL_COLUMNS.join(',')}) is required` });
  if (errors.length > 0) throw new LabelsFileInvalid(errors);
  return records;
}

const quote = (field: string) => (/[",]/.test(field) || field !== field.trim() ? `"${field.replace(/"/g, '""')}"` : field);

/** Writes records as a labels file (what the demo imports; parseLabelsFile reads it back). */
export function formatLabelsFile(records: Omit<CuratedRecord, 'line'>[]): string {
  const lines = [LABEL_COLUMNS.join(',')];
  for (const r of records) {
    lines.push([r.chain, r.address, r.exchange?.role ?? '', r.exchange?.name ?? '', r.label, r.category, r.primary ? 'true' : 'false'].map(quote).join(','));
  }
  return lines.join('\n') + '\n';
}
