/**
 * The oracle: per-address and per-day figures computed in plain TypeScript straight from the
 * canonical blocks of a chain, independently of Quarry's SQL. Tests compare the store against it.
 */
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { SENTINELS, type ChainId } from '../../src/chain/chains.ts';
import { utcDay } from './utc-day.ts';

export interface ExpectedAddress {
  balance: bigint;
  totalReceived: bigint;
  totalSent: bigint;
  totalFees: bigint;
  txCount: number;
  txIn: number;
  txOut: number;
  firstSeen: number | null;
  lastSeen: number | null;
  firstTx: string | null;
  lastTx: string | null;
  fundedBy: string | null;
  fundedTx: string | null;
  withdrawalCount: number;
  withdrawalTotal: bigint;
  internalCount: number;
  masterAddress: string | null;
  slaveCount: number;
  /** Time of the first positive credit (transaction, genesis allocation, withdrawal, tip, internal transfer). */
  fundedAt: number | null;
  /** First appearance: the earlier of the first transaction and the first credit. */
  appeared: number | null;
  deployedCount: number;
  isContract: boolean;
  /** pos: gas used by transactions sent. */
  gasUsed: number;
  /** pow: signatures made with the address's own key, and the highest one-time key index used. */
  otsUsed: number;
  otsMaxIndex: number | null;
}

export interface ExpectedDay {
  received: bigint;
  sentWithFees: bigint;
  txIn: number;
  txOut: number;
  fees: bigint;
  gasUsed: number;
}

export interface Expected {
  addresses: Map<string, ExpectedAddress>;
  /** address -> day -> figures */
  daily: Map<string, Map<string, ExpectedDay>>;
  /** `${address}|${contract}` -> balance */
  tokens: Map<string, bigint>;
  /** address -> counterparty -> logical transactions between them */
  counterparties: Map<string, Map<string, number>>;
  heatmap: Map<string, Map<string, { in: number; out: number; total: number }>>;
  blocks: number;
  transactions: number;
  burned: bigint;
}

/**
 * What a QRL node debits its zero address for the genesis coinbase: its reward formula at height 0,
 * remaining(-1) - remaining(0), as qrl/core/formulas.py computes it in 28-digit decimals. Written out.
 */
export const POW_GENESIS_COINBASE_DEBIT = 6_656_350_568n;

/**
 * The same on QRL's testnet, whose reward fork is at height 0 (`testnet_hard_fork_heights`, applied by
 * `--network-type testnet` in qrl/main.py): floor(0.4 x 6,656,350,568). Written out.
 */
export const POW_TESTNET_GENESIS_COINBASE_DEBIT = 2_662_540_227n;

/** The testnet's network id (qrl/network/testnet/config.yml), which its genesis block carries as its parent hash. */
export const POW_TESTNET_NETWORK_ID = 'Final Testnet';

/** The genesis debit of the network whose genesis block has `parentHash` (the network id's bytes, hex). */
export function powGenesisDebitOf(parentHash: string): bigint {
  return parentHash === Buffer.from(POW_TESTNET_NETWORK_ID, 'utf8').toString('hex') ? POW_TESTNET_GENESIS_COINBASE_DEBIT : POW_GENESIS_COINBASE_DEBIT;
}

/**
 * The oracle's figures for `blocks`, computed once per process for each chain and blocks array:
 * the files of a test process ask again and again for the same seeded world. An array that has
 * grown or whose ends changed since (a test extending or reorganising its chain) is computed afresh.
 * Callers only read what they get.
 */
export function expectedFromBlocks(chain: ChainId, blocks: CanonicalBlock[]): Expected {
  let byChain = computed.get(blocks);
  if (byChain === undefined) computed.set(blocks, (byChain = new Map()));
  const hit = byChain.get(chain);
  if (hit && hit.length === blocks.length && hit.first === blocks[0] && hit.last === blocks.at(-1)) return hit.expected;
  const expected = computeExpected(chain, blocks);
  byChain.set(chain, { length: blocks.length, first: blocks[0], last: blocks.at(-1), expected });
  return expected;
}

/** The oracle's figures for a blocks array as it was when they were computed: its length and its two ends. */
interface Computed {
  length: number;
  first: CanonicalBlock | undefined;
  last: CanonicalBlock | undefined;
  expected: Expected;
}

const computed = new WeakMap<CanonicalBlock[], Map<ChainId, Computed>>();

function computeExpected(chain: ChainId, blocks: CanonicalBlock[]): Expected {
  const addresses = new Map<string, ExpectedAddress>();
  const daily = new Map<string, Map<string, ExpectedDay>>();
  const tokens = new Map<string, bigint>();
  const counterparties = new Map<string, Map<string, number>>();
  const heatmap = new Map<string, Map<string, { in: number; out: number; total: number }>>();
  let transactions = 0;
  let burned = 0n;

  const get = (address: string): ExpectedAddress => {
    let a = addresses.get(address);
    if (!a) {
      a = {
        balance: 0n, totalReceived: 0n, totalSent: 0n, totalFees: 0n, txCount: 0, txIn: 0, txOut: 0,
        firstSeen: null, lastSeen: null, firstTx: null, lastTx: null, fundedBy: null, fundedTx: null,
        withdrawalCount: 0, withdrawalTotal: 0n, internalCount: 0, masterAddress: null, slaveCount: 0,
        fundedAt: null, appeared: null, deployedCount: 0, isContract: false, gasUsed: 0, otsUsed: 0, otsMaxIndex: null,
      };
      addresses.set(address, a);
    }
    return a;
  };
  const dayOf = (address: string, ts: number): ExpectedDay => {
    let days = daily.get(address);
    if (!days) daily.set(address, (days = new Map()));
    const day = utcDay(ts);
    let d = days.get(day);
    if (!d) days.set(day, (d = { received: 0n, sentWithFees: 0n, txIn: 0, txOut: 0, fees: 0n, gasUsed: 0 }));
    return d;
  };
  const funded = new Set<string>();
  const receive = (address: string, amount: bigint, ts: number, from: string | null, txHash: string | null) => {
    const a = get(address);
    a.balance += amount;
    a.totalReceived += amount;
    if (amount > 0n && !funded.has(address)) {
      funded.add(address);
      a.fundedBy = from;
      a.fundedTx = txHash;
      a.fundedAt = ts;
      a.appeared ??= ts;
    }
    dayOf(address, ts).received += amount;
  };
  const debit = (address: string, amount: bigint, ts: number) => {
    get(address).balance -= amount;
    dayOf(address, ts).sentWithFees += amount;
  };
  const pair = (a: string, b: string) => {
    let m = counterparties.get(a);
    if (!m) counterparties.set(a, (m = new Map()));
    m.set(b, (m.get(b) ?? 0) + 1);
  };

  for (const block of blocks) {
    const ts = block.timestamp;
    for (const allocation of block.allocations) receive(allocation.address, allocation.amount, ts, null, null);
    // An opening balance (indexing from above genesis) is received like an allocation but funds nothing.
    for (const opening of block.openings ?? []) {
      const a = get(opening.address);
      a.balance += opening.amount ?? 0n;
      a.totalReceived += opening.amount ?? 0n;
      dayOf(opening.address, ts).received += opening.amount ?? 0n;
    }
    for (const tx of block.transactions) {
      transactions++;
      burned += tx.burned;
      const ok = tx.status !== 0;
      const mints = tx.type === 'coinbase' || tx.migration?.role === 'mint';
      const sender = get(tx.from);
      sender.totalSent += ok ? tx.value : 0n;
      sender.totalFees += tx.fee;
      sender.gasUsed += tx.gasUsed ?? 0;
      dayOf(tx.from, ts).fees += tx.fee;
      dayOf(tx.from, ts).gasUsed += tx.gasUsed ?? 0;
      // The pow coinbase sentinel pays each block's reward out of its genesis reserve, as a QRL
      // node's zero address does (at genesis the node charges its formula's reward of height 0).
      const reserve = chain === 'pow' && tx.type === 'coinbase' ? (block.height === 0 ? powGenesisDebitOf(block.parentHash) : block.reward) : 0n;
      debit(tx.from, tx.fee + (ok && !mints ? tx.value : 0n) + reserve, ts);
      if (tx.contractAddress) {
        sender.deployedCount++;
        get(tx.contractAddress).isContract = true;
      }
      // A factory's creations (with or without value) make it a deployer too.
      for (const creation of ok ? tx.creations : []) {
        get(creation.creator).deployedCount++;
        get(creation.address).isContract = true;
      }
      if (tx.otsIndex !== null) {
        const signer = get(tx.signer ?? tx.from);
        signer.otsUsed++;
        signer.otsMaxIndex = Math.max(signer.otsMaxIndex ?? -1, tx.otsIndex);
      }
      if (ok) {
        // A pow transfer lists every recipient, its `to` (set when there is one) among them.
        if (tx.recipients) {
          for (const r of tx.recipients) if (r.amount > 0n) receive(r.to, r.amount, ts, tx.from, tx.hash);
        } else {
          const single = tx.to ?? tx.contractAddress;
          if (single && tx.value > 0n) receive(single, tx.value, ts, tx.from, tx.hash);
        }
        for (const frame of tx.internal) {
          get(frame.from).balance -= frame.value;
          get(frame.from).totalSent += frame.value;
          dayOf(frame.from, ts).sentWithFees += frame.value;
          receive(frame.to, frame.value, ts, frame.from, tx.hash);
        }
        for (const t of tx.tokenTransfers) {
          for (const [holder, delta] of [[t.to, t.amount], [t.from, -t.amount]] as const) {
            if (SENTINELS[chain].includes(holder)) continue;
            tokens.set(`${holder}|${t.contract}`, (tokens.get(`${holder}|${t.contract}`) ?? 0n) + delta);
          }
        }
      }
      // Internal-transfer counts: every frame touching the address, a self-transfer once.
      for (const frame of tx.internal) {
        get(frame.from).internalCount++;
        if (frame.to !== frame.from) get(frame.to).internalCount++;
      }
      for (const s of tx.slaves) {
        get(s.slave).masterAddress = tx.from;
        get(tx.from).slaveCount++;
      }
      // Participation: one logical transaction per address, in and/or out.
      const ins = new Set<string>();
      const single = tx.to ?? tx.contractAddress;
      if (single) ins.add(single);
      for (const r of tx.recipients ?? []) ins.add(r.to);
      const outs = new Set<string>([tx.from]);
      if (tx.signer) outs.add(tx.signer);
      for (const address of new Set([...ins, ...outs])) {
        const a = get(address);
        a.txCount++;
        if (ins.has(address)) a.txIn++;
        if (outs.has(address)) a.txOut++;
        a.firstSeen ??= ts;
        a.appeared ??= ts;
        a.firstTx ??= tx.hash;
        a.lastSeen = ts;
        a.lastTx = tx.hash;
        const d = dayOf(address, ts);
        if (ins.has(address)) d.txIn++;
        if (outs.has(address)) d.txOut++;
        const slot = `${(Math.floor(ts / 86400) + 3) % 7}:${Math.floor((ts % 86400) / 3600)}`;
        let hm = heatmap.get(address);
        if (!hm) heatmap.set(address, (hm = new Map()));
        const cell = hm.get(slot) ?? { in: 0, out: 0, total: 0 };
        cell.total++;
        if (ins.has(address)) cell.in++;
        if (outs.has(address)) cell.out++;
        hm.set(slot, cell);
      }
      // Counterparties leave out the mint sentinels (coinbase, zero address): they are not wallets.
      for (const to of ins) {
        if (SENTINELS[chain].includes(tx.from) || SENTINELS[chain].includes(to)) continue;
        pair(tx.from, to);
        if (to !== tx.from) pair(to, tx.from);
      }
    }
    for (const w of block.withdrawals) {
      receive(w.address, w.amount, ts, null, null);
      const a = get(w.address);
      a.withdrawalCount++;
      a.withdrawalTotal += w.amount;
    }
    if (chain === 'pos' && block.miner) {
      const tips = block.transactions.reduce((sum, tx) => sum + tx.fee - tx.burned, 0n);
      if (tips > 0n) receive(block.miner, tips, ts, null, null);
    }
  }
  return { addresses, daily, tokens, counterparties, heatmap, blocks: blocks.length, transactions, burned };
}

/**
 * The rank buckets (docs/metrics.md, "Ranks and percentiles") of the expected addresses, keyed
 * `metric|bucket`: written here from the definition, not from the SQL or the rollup code.
 */
export function expectedRankBuckets(e: Expected): Map<string, { addresses: number; balance: bigint }> {
  const bucketOf = (v: bigint): number => {
    if (v < 0n) return -1;
    if (v === 0n) return 0;
    if (v < 100n) return (v < 10n ? 100 : 200) + Number(v);
    const digits = v.toString();
    return digits.length * 100 + Number(digits.slice(0, 2));
  };
  const buckets = new Map<string, { addresses: number; balance: bigint }>();
  const add = (key: string, balance: bigint) => {
    const b = buckets.get(key) ?? { addresses: 0, balance: 0n };
    b.addresses++;
    b.balance += balance;
    buckets.set(key, b);
  };
  for (const a of e.addresses.values()) {
    add(`balance|${bucketOf(a.balance)}`, a.balance);
    add(`tx_count|${bucketOf(BigInt(a.txCount))}`, 0n);
    add(`age|${a.appeared === null ? 999_999_999_999 : Math.floor(a.appeared / 3600)}`, 0n);
  }
  return buckets;
}

/** How many expected addresses (all, or holders) contain each lowercase string of 1-4 characters, keyed `population|gram`. */
export function expectedGrams(e: Expected): Map<string, number> {
  const grams = new Map<string, number>();
  for (const [address, a] of e.addresses) {
    const own = new Set<string>();
    const text = address.toLowerCase();
    for (let n = 1; n <= 4; n++) for (let i = 0; i + n <= text.length; i++) own.add(text.slice(i, i + n));
    for (const gram of own) {
      grams.set(`all|${gram}`, (grams.get(`all|${gram}`) ?? 0) + 1);
      if (a.balance > 0n) grams.set(`holders|${gram}`, (grams.get(`holders|${gram}`) ?? 0) + 1);
    }
  }
  return grams;
}

/** Rows of address_rank_buckets and address_grams of a chain, in the keys of the two functions above. */
export function rankRowsByKey(
  buckets: { metric: string; bucket: number; addresses: number; balance: string }[],
  grams: { population: string; gram: string; addresses: number }[],
): { buckets: Map<string, { addresses: number; balance: bigint }>; grams: Map<string, number> } {
  return {
    buckets: new Map(buckets.map((b) => [`${b.metric}|${b.bucket}`, { addresses: Number(b.addresses), balance: BigInt(b.balance) }])),
    grams: new Map(grams.map((g) => [`${g.population}|${g.gram}`, Number(g.addresses)])),
  };
}

/** Addresses that paid fees in the `days` UTC days ending with the tip's day: fees, gas and every transaction sent. */
export function expectedFeePayers(e: Expected, tipTs: number, days: number): { address: string; fees: bigint; gas: number; txs: number }[] {
  const from = utcDay(tipTs - (days - 1) * 86_400);
  const payers: { address: string; fees: bigint; gas: number; txs: number }[] = [];
  for (const [address, byDay] of e.daily) {
    let fees = 0n;
    let gas = 0;
    let txs = 0;
    for (const [day, d] of byDay) {
      if (day < from) continue;
      fees += d.fees;
      gas += d.gasUsed;
      txs += d.txOut;
    }
    if (fees > 0n) payers.push({ address, fees, gas, txs });
  }
  return payers;
}

/**
 * address_fee_windows of a chain (docs/metrics.md, "Top burners"): per window of `windows` UTC
 * days ending with the tip's day, per address that paid fees in it, `fees|gas|txs`, keyed `days|address`.
 */
export function expectedFeeWindows(e: Expected, tipTs: number, windows: readonly number[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const days of windows) {
    for (const p of expectedFeePayers(e, tipTs, days)) out.set(`${days}|${p.address}`, `${p.fees}|${p.gas}|${p.txs}`);
  }
  return out;
}
