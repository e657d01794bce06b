import type { Command } from 'commander';
import { loadConfig } from '../../config/env.ts';
import { isChainId } from '../../chain/chains.ts';
import { migrate } from '../../store/migrate.ts';
import { openStore } from '../../store/open.ts';
import { acquireWriterLock, type WriterLock } from '../../store/writer-lock.ts';
import { refreshRollups } from '../../ingest/refresh.ts';
import { createProgress, type Progress } from '../progress.ts';

function height(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new Error(`--${name} must be a block height (got ${raw})`);
  return Number(raw);
}

export function registerRefresh(program: Command): void {
  program
    .command('refresh')
    .description('rebuild the rollups a block range touched from the stored raw rows (default: all of the chain)')
    .requiredOption('--chain <chain>', 'pow or pos')
    .option('--from <height>', 'first height of the range')
    .option('--to <height>', 'last height of the range')
    .action(async (options: { chain: string; from?: string; to?: string }) => {
      if (!isChainId(options.chain)) throw new Error(`--chain must be pow or pos (got ${options.chain})`);
      const config = loadConfig();
      const store = await openStore(config, 'indexer');
      let bar: Progress | undefined;
      let lock: WriterLock | undefined;
      try {
        await migrate(store);
        lock = await acquireWriterLock(store, [options.chain], { command: `refresh --chain ${options.chain}` });
        const result = await refreshRollups(store, options.chain, {
          fromHeight: height('from', options.from),
          toHeight: height('to', options.to),
          onStep: (done, total) => {
            bar ??= createProgress(`refresh ${options.chain}`, total);
            bar.update(done);
          },
        });
        bar?.stop();
        console.log(
          result
            ? `refreshed the ${options.chain} rollups touched by heights ${result.fromHeight}..${result.toHeight} (${result.addresses} addresses)`
            : `no ${options.chain} blocks are indexed`,
        );
      } finally {
        bar?.stop();
        await lock?.release();
        await store.close();
      }
    });
}
