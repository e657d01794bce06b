/**
 * Measures the synthetic generator alone: blocks and transactions per second for each chain, and
 * what a world of the given size contains (blocks, transactions, distinct addresses, busiest address).
 *
 *   npx tsx scripts/measure-generator.ts [scale] [powDays] [posDays] [--census]
 *
 * Defaults: scale 5000, 400 pow days, 60 pos days. `--census` also counts distinct addresses and
 * per-address transactions (slower: it keeps a map of every address).
 */
import { readFileSync } from 'node:fs';
import { createSyntheticWorld } from '../src/sources/synthetic/index.ts';
import type { BlockSource, CanonicalTx } from '../src/chain/model.ts';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const census = process.argv.includes('--census');
const scale = Number(args[0] ?? 5000);
const powDays = Number(args[1] ?? 400);
const posDays = Number(args[2] ?? 60);

const t0 = performance.now();
const world = createSyntheticWorld({ seed: 1, scale, powDays, posDays, end: new Date('2026-01-01T00:00:00Z') });
console.log(`world planned in ${((performance.now() - t0) / 1000).toFixed(2)} s: ${world.curated.labels.length} labels, ${world.curated.exchangeWallets.length} exchange wallets`);

/**
 * CPU seconds of the main thread alone (Linux: /proc/self/task/PID/stat, in clock ticks of 10 ms):
 * what generation costs, without the garbage collector's helper threads and without the time other
 * processes take from a shared machine. Null where /proc is missing.
 */
function mainThreadSeconds(): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

function touched(tx: CanonicalTx, add: (address: string) => void): void {
  add(tx.from);
  if (tx.to) add(tx.to);
  if (tx.recipients) for (const r of tx.recipients) if (r.to !== tx.to) add(r.to);
  for (const i of tx.internal) {
    add(i.from);
    add(i.to);
  }
  for (const t of tx.tokenTransfers) add(t.to);
}

async function measure(source: BlockSource) {
  let blocks = 0;
  let txs = 0;
  let orphans = 0;
  // Rows the raw tables would get (approximately: address_txs as one row per sender and per recipient).
  let rows = 0;
  const seen = new Map<string, number>();
  const count = (address: string) => seen.set(address, (seen.get(address) ?? 0) + 1);
  const heights = new Set<number>();
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const mainStart = mainThreadSeconds();
  for await (const item of source.blocks(0)) {
    if (item.kind !== 'block') continue;
    const block = item.block;
    if (heights.has(block.height)) orphans++;
    heights.add(block.height);
    blocks++;
    txs += block.transactions.length;
    if (census) {
      rows += 1 + block.allocations.length + block.withdrawals.length;
      for (const tx of block.transactions) {
        const recipients = tx.recipients?.length ?? (tx.to ? 1 : 0);
        rows += 1 + 1 + recipients + (tx.recipients?.length ?? 0) + tx.internal.length * 3 + tx.tokenTransfers.length + tx.slaves.length;
      }
      for (const a of block.allocations) count(a.address);
      for (const tx of block.transactions) {
        const before = new Set<string>();
        touched(tx, (address) => before.add(address));
        for (const address of before) count(address);
      }
    }
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const mainEnd = mainThreadSeconds();
  const main = mainStart !== null && mainEnd !== null ? mainEnd - mainStart : null;
  console.log(
    `${source.chain}: ${blocks} blocks (${orphans} re-emitted after reorgs), ${txs} txs in ${seconds.toFixed(1)} s = ${Math.round(txs / seconds).toLocaleString('en')} tx/s wall;` +
      ` ${Math.round(txs / cpuSeconds).toLocaleString('en')} tx per CPU second of all threads` +
      (main ? `, ${Math.round(txs / main).toLocaleString('en')} per CPU second of the main thread` : ''),
  );
  if (census) {
    console.log(`  about ${(rows / 1e6).toFixed(2)} M raw rows (blocks, transactions, recipients, address index, internal, token, withdrawals, slaves)`);
    const top = [...seen.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5);
    console.log(`  distinct addresses ${seen.size}; busiest: ${top.map(([a, n]) => `${a.slice(0, 12)}… ${n}`).join(', ')}`);
  }
  return { txs, seconds, addresses: seen.size, rows };
}

const pow = await measure(world.pow);
const pos = await measure(world.pos);
const total = pow.txs + pos.txs;
console.log(`total ${total} txs in ${(pow.seconds + pos.seconds).toFixed(1)} s = ${Math.round(total / (pow.seconds + pos.seconds)).toLocaleString('en')} tx/s`);
if (census) console.log(`distinct addresses: ${pow.addresses + pos.addresses}; about ${((pow.rows + pos.rows) / 1e6).toFixed(2)} M raw rows`);
const notable = world.describe();
console.log(`busiest hot wallets: pow ${notable.pow.busiestHotWallet.slice(0, 14)}…, pos ${notable.pos.busiestHotWallet}`);
