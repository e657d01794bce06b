import type { Command } from 'commander';
import { loadConfig } from '../../config/env.ts';
import { createLogger } from '../../log.ts';
import { migrate } from '../../store/migrate.ts';
import { openStore } from '../../store/open.ts';
import { acquireWriterLock, type WriterLock } from '../../store/writer-lock.ts';
import { loadSyntheticWorld } from '../../ingest/load-synthetic.ts';
import { createProgress, type Progress } from '../progress.ts';

export interface GenerateCliOptions {
  seed: string;
  powDays: string;
  posDays: string;
  end?: string;
  scale: string;
  reorgEvery: string;
  malformedEvery: string;
  noMigration?: boolean;
}

function positive(name: string, raw: string, integer = false): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`--${name} must be a ${integer ? 'whole ' : ''}number ≥ 0 (got ${raw})`);
  }
  return value;
}

export function registerGenerate(program: Command): void {
  program
    .command('generate')
    .description('generate both chains deterministically and bulk-load them into an empty store')
    .option('--seed <n>', 'seed: the same seed gives the same chains', '1')
    .option('--pow-days <n>', 'days of pow history', '400')
    .option('--pos-days <n>', 'days of pos history (pos launched after pow)', '60')
    .option('--end <iso>', 'time of the last block (default: now)')
    .option('--scale <n>', 'size knob: mean user transactions per day per chain', '2000')
    .option('--reorg-every <n>', 'mean blocks between reorgs of depth 1-3 (0: none)', '2000')
    .option('--malformed-every <n>', 'mean blocks between garbled answers and set-aside items (0: none)', '0')
    .option('--no-migration', 'no pow-to-pos migration')
    .action(async (options: GenerateCliOptions & { migration: boolean }) => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
      const end = options.end ? new Date(options.end) : undefined;
      if (end && Number.isNaN(end.getTime())) throw new Error(`--end must be an ISO date (got ${options.end})`);
      const store = await openStore(config, 'indexer');
      let bar: Progress | undefined;
      let lock: WriterLock | undefined;
      try {
        await migrate(store);
        lock = await acquireWriterLock(store, ['pow', 'pos'], { command: 'generate', logger });
        const report = await loadSyntheticWorld(
          store,
          {
            seed: positive('seed', options.seed, true),
            powDays: positive('pow-days', options.powDays),
            posDays: positive('pos-days', options.posDays),
            scale: positive('scale', options.scale),
            reorgEvery: positive('reorg-every', options.reorgEvery, true),
            malformedEvery: positive('malformed-every', options.malformedEvery, true),
            ...(end ? { end } : {}),
            ...(options.migration === false ? { migrationCutover: null } : {}),
          },
          {
            logger,
            onPhase: (phase) => {
              bar?.stop();
              bar = undefined;
              if (phase === 'rollups') console.error('building rollups and indexes…');
            },
            onProgress: (progress, lastHeight) => {
              bar ??= createProgress(`${progress.chain}`, lastHeight + 1);
              bar.update(progress.height + 1, {});
            },
          },
        );
        bar?.stop();
        const txs = report.chains.pow.transactions + report.chains.pos.transactions;
        console.log(
          `generated ${report.chains.pow.blocks} pow and ${report.chains.pos.blocks} pos blocks, ${txs} transactions ` +
            `in ${report.seconds.total.toFixed(1)} s (${Math.round(txs / (report.seconds.pow + report.seconds.pos))} tx/s written; ` +
            `rollups and indexes ${report.seconds.finish.toFixed(1)} s)`,
        );
      } finally {
        bar?.stop();
        await lock?.release();
        await store.close();
      }
    });
}
