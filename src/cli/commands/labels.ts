import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { isChainId } from '../../chain/chains.ts';
import { importCurated, listCurated } from '../../ingest/curated.ts';
import { LabelsFileInvalid, parseLabelsFile } from '../../ingest/labels-file.ts';
import { withMigratedStore } from '../with-store.ts';
import { acquireWriterLock } from '../../store/writer-lock.ts';
import { readChainNetworks } from '../../store/chain-network.ts';
import { CHAINS } from '../../chain/chains.ts';

/** Errors shown before the count of the rest, so a file of thousands of bad lines stays readable. */
const SHOWN_ERRORS = 50;

export function registerLabels(program: Command): void {
  const labels = program.command('labels').description('curated labels, exchange wallets and deposit relays (docs/labels.md)');

  labels
    .command('import')
    .description('import a labels file (CSV, docs/labels.md); nothing is written if any line is invalid')
    .argument('<file>', 'the labels file')
    .option('--replace', 'the file replaces every curated label and venue address of the chains it names')
    .action(async (file: string, options: { replace?: boolean }) => {
      const text = await readFile(file, 'utf8');
      await withMigratedStore(async (store) => {
        let records;
        try {
          // Addresses are read at the width the store's chains have (a 64-byte pos network's, say).
          records = parseLabelsFile(text, await readChainNetworks(store));
        } catch (error) {
          if (!(error instanceof LabelsFileInvalid)) throw error;
          for (const line of error.message.split('\n').slice(0, SHOWN_ERRORS)) console.error(`${file}: ${line}`);
          if (error.errors.length > SHOWN_ERRORS) console.error(`… and ${error.errors.length - SHOWN_ERRORS} more errors`);
          console.error(`nothing imported: ${error.errors.length} error${error.errors.length === 1 ? '' : 's'}`);
          process.exitCode = 1;
          return;
        }
        // The import rebuilds the exchange figures of the chains the file names: their writer locks.
        const named = CHAINS.filter((chain) => records.some((record) => record.chain === chain));
        const lock = await acquireWriterLock(store, named.length > 0 ? named : CHAINS, { command: 'labels import' });
        let result;
        try {
          result = await importCurated(store, records, { replace: options.replace });
        } finally {
          await lock.release();
        }
        const chains = Object.entries(result.addresses).filter(([, n]) => n > 0).map(([chain, n]) => `${chain} ${n}`).join(', ');
        console.log(`imported ${result.labels} labels of ${chains || 'no'} addresses (${result.exchangeWallets} venue addresses)${options.replace ? `; removed ${result.removed} curated rows not in the file` : ''}`);
        console.log('exchange figures rebuilt from the indexed blocks');
      });
    });

  labels
    .command('list')
    .description('list curated labels and venue addresses (tab-separated)')
    .option('--chain <chain>', 'pow or pos')
    .option('--exchange <name>', 'one venue')
    .option('--category <category>', 'one label category (exchange, mining_pool, treasury, …)')
    .option('--role <role>', 'hot, cold or deposit_relay')
    .option('--address <address>', 'one address (canonical form)')
    .option('--limit <n>', 'rows to print', '1000')
    .action(async (options: { chain?: string; exchange?: string; category?: string; role?: string; address?: string; limit: string }, command: Command) => {
      if (options.chain !== undefined && !isChainId(options.chain)) command.error(`--chain must be pow or pos (got ${options.chain})`);
      if (options.role !== undefined && !['hot', 'cold', 'deposit_relay'].includes(options.role)) command.error(`--role must be hot, cold or deposit_relay (got ${options.role})`);
      if (!/^[1-9][0-9]{0,6}$/.test(options.limit)) command.error(`--limit must be a positive integer (got ${options.limit})`);
      const chain = options.chain !== undefined && isChainId(options.chain) ? options.chain : undefined;
      await withMigratedStore(async (store) => {
        const { rows, total } = await listCurated(store, { chain, exchange: options.exchange, category: options.category, role: options.role, address: options.address, limit: Number(options.limit) });
        console.log(['chain', 'address', 'exchange', 'role', 'confirmed', 'label', 'category', 'primary'].join('\t'));
        for (const r of rows) {
          console.log([r.chain, r.address, r.exchange ?? '', r.role ?? '', r.confirmed === null ? '' : String(r.confirmed), r.label ?? '', r.category ?? '', r.primary === null ? '' : String(r.primary)].join('\t'));
        }
        console.error(rows.length < total ? `${rows.length} of ${total} rows (--limit)` : `${total} row${total === 1 ? '' : 's'}`);
      });
    });
}
