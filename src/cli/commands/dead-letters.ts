/**
 * `quarry dead-letters list|resolve|retry`: what the indexers set aside (ingest/dead-letters.ts).
 *
 *   quarry dead-letters list [--chain C] [--all] [--limit N]
 *   quarry dead-letters resolve ID...
 *   quarry dead-letters retry ID [--yes]
 */
import type { Command } from 'commander';
import { isChainId } from '../../chain/chains.ts';
import { listDeadLetters, planRetry, resolveDeadLetters, retryDeadLetter } from '../../ingest/dead-letters.ts';
import { DEFAULT_MAX_REORG_DEPTH } from '../../ingest/indexer.ts';
import { withMigratedStore } from '../with-store.ts';
import { acquireWriterLock } from '../../store/writer-lock.ts';

function ids(raw: string[]): number[] {
  const bad = raw.filter((id) => !/^\d+$/.test(id));
  if (bad.length > 0) throw new Error(`dead letter ids are whole numbers (got ${bad.join(', ')})`);
  return raw.map(Number);
}

const when = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19) + 'Z';

export function registerDeadLetters(program: Command): void {
  const group = program.command('dead-letters').description('parts of blocks the indexers set aside (docs/ingest.md, "Dead letters")');

  group
    .command('list')
    .description('the open dead letters, newest first')
    .option('--chain <chain>', 'pow or pos')
    .option('--all', 'resolved ones too')
    .option('--limit <n>', 'at most this many', '100')
    .action(async (options: { chain?: string; all?: boolean; limit: string }) => {
      if (options.chain !== undefined && !isChainId(options.chain)) throw new Error(`--chain must be pow or pos (got ${options.chain})`);
      const [limit] = ids([options.limit]);
      const rows = await withMigratedStore((store) => listDeadLetters(store, { chain: options.chain as never, all: options.all, limit }));
      if (rows.length === 0) return console.log(options.all ? 'no dead letters' : 'no open dead letters');
      for (const r of rows) {
        const state = r.resolvedTs === null ? 'open' : `resolved ${when(r.resolvedTs)}`;
        console.log(`${r.id}\t${r.chain}\t${r.height ?? '-'}\t${r.item ?? '(block)'}\t${when(r.createdTs)}\t${state}\t${r.error}`);
      }
    });

  group
    .command('resolve')
    .description('mark dead letters as looked at (they leave the open count of the network health)')
    .argument('<id...>', 'dead letter ids (from list)')
    .action(async (raw: string[]) => {
      const wanted = ids(raw);
      const done = await withMigratedStore((store) => resolveDeadLetters(store, wanted));
      const missed = wanted.filter((id) => !done.includes(id));
      console.log(`resolved ${done.length} dead letter(s)${missed.length > 0 ? `; not open or not found: ${missed.join(', ')}` : ''}`);
    });

  group
    .command('retry')
    .description("rewind the letter's chain to just below its block, so that the next `quarry index` run fetches it and every later block again")
    .argument('<id>', 'dead letter id (from list)')
    .option('--yes', 'rewind even more blocks than the chain\'s default reorg limit')
    .action(async (raw: string, options: { yes?: boolean }) => {
      const [id] = ids([raw]);
      await withMigratedStore(async (store) => {
        const plan = await planRetry(store, id!);
        if (!plan) throw new Error(`dead letter ${id} does not exist or names no block`);
        const { chain } = plan.letter;
        const depth = plan.tip - plan.rewindTo;
        if (depth > DEFAULT_MAX_REORG_DEPTH[chain] && !options.yes) {
          throw new Error(`retrying ${id} rewinds ${chain} by ${depth} blocks (to height ${plan.rewindTo}), more than its reorg limit of ${DEFAULT_MAX_REORG_DEPTH[chain]}: add --yes to go ahead`);
        }
        const lock = await acquireWriterLock(store, [chain], { command: `dead-letters retry ${id}` });
        try {
          await retryDeadLetter(store, plan, (height) => console.log(`${chain} rewound to ${height}`));
        } finally {
          await lock.release();
        }
        console.log(`${chain} rewound to height ${plan.rewindTo} (${Math.max(0, depth)} blocks); run \`quarry index ${chain}\` to fetch block ${plan.letter.height} and the rest again`);
      });
    });
}
