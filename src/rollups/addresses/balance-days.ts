/**
 * An address's balance day by day, in one place for the balance history (Addresses API) and the
 * whale endpoints: address_daily holds every credit and debit of an address per UTC day (transfers,
 * each recipient of a multi-recipient transfer, coinbase, internal transfers, withdrawals, tips,
 * genesis allocations; fees; a mint's sender is not debited, except the pow coinbase sentinel, which
 * pays each block's reward), so the balance at the end of a day is
 * the current balance less the net flows of the later days. Reading only the days asked for keeps
 * a window's cost independent of the address's history.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { eachDay } from '../../time.ts';

/** One address_daily row. */
export interface FlowDay {
  day: string;
  received: bigint;
  /** Value sent, fees excluded. */
  sent: bigint;
  /** Value sent plus fees: what the day debited. */
  sentWithFees: bigint;
  /** received − sentWithFees: the day's balance change. */
  net: bigint;
  txIn: number;
  txOut: number;
}

/** The address_daily rows of `addresses` from `from` to `to` (days, inclusive), per address, oldest first: a primary-key range per address. */
export async function flowDays(db: Db, chain: ChainId, addresses: readonly string[], from: string, to: string): Promise<Map<string, FlowDay[]>> {
  const out = new Map<string, FlowDay[]>();
  if (addresses.length === 0 || from > to) return out;
  const rows = await db.query<{ address: string; day: string; received: string; sent: string; fees: string; tx_in: number; tx_out: number }>(
    'api.balance_days.flows',
    sql`SELECT address, day::text AS day, received::text AS received, sent::text AS sent, fees::text AS fees, tx_in, tx_out
        FROM address_daily
        WHERE chain = ${chain} AND address = ANY(${[...addresses]}::text[]) AND day BETWEEN ${from}::date AND ${to}::date
        ORDER BY address, day`,
  );
  for (const r of rows) {
    let days = out.get(r.address);
    if (!days) out.set(r.address, (days = []));
    const received = BigInt(r.received);
    const sent = BigInt(r.sent);
    const sentWithFees = sent + BigInt(r.fees);
    days.push({ day: r.day, received, sent, sentWithFees, net: received - sentWithFees, txIn: Number(r.tx_in), txOut: Number(r.tx_out) });
  }
  return out;
}

/** The sum of the net flows of `days`. */
export function netOf(days: readonly FlowDay[] | undefined): bigint {
  let sum = 0n;
  for (const d of days ?? []) sum += d.net;
  return sum;
}

/**
 * Every day from `from` to `to` (the tip's day), oldest first, with the day's row (or null) and the
 * balance at the end of the day: `current` less the net flows of the days after it. `days` must
 * hold the rows of the days after `from` up to `to`.
 */
export function endOfDayBalances(current: bigint, days: readonly FlowDay[] | undefined, from: string, to: string): { day: string; row: FlowDay | null; balance: bigint }[] {
  const byDay = new Map((days ?? []).map((d) => [d.day, d]));
  const window = eachDay(from, to);
  const out = new Array<{ day: string; row: FlowDay | null; balance: bigint }>(window.length);
  let balance = current;
  for (let i = window.length - 1; i >= 0; i--) {
    const day = window[i]!;
    const row = byDay.get(day) ?? null;
    out[i] = { day, row, balance };
    balance -= row?.net ?? 0n;
  }
  return out;
}
