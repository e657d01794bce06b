import type { Command } from 'commander';
import { loadConfig } from '../../config/env.ts';
import { issueKey, listKeys, revokeKey } from '../../auth/keys.ts';
import { migrate } from '../../store/migrate.ts';
import { openStore } from '../../store/open.ts';
import type { Store } from '../../store/store.ts';

async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config, 'admin');
  try {
    if (store.kind === 'pglite') await migrate(store);
    return await fn(store);
  } finally {
    await store.close();
  }
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('issue, list and revoke API keys (stored as hashes only)');

  keys
    .command('create')
    .description('issue a new API key and print it once')
    .requiredOption('-n, --name <name>', 'who or what the key is for')
    .action(async (options: { name: string }) => {
      await withStore(async (store) => {
        const { key, record } = await issueKey(store, options.name);
        console.log(`issued key ${record.id} (${record.prefix}…) for ${record.name}`);
        console.log(key);
        console.error('store it now: only its hash is kept');
      });
    });

  keys
    .command('list')
    .description('list issued keys (prefixes only)')
    .action(async () => {
      await withStore(async (store) => {
        const rows = await listKeys(store);
        if (rows.length === 0) console.log('no issued keys');
        for (const row of rows) {
          const state = row.revoked_ts ? `revoked ${new Date(row.revoked_ts * 1000).toISOString()}` : 'active';
          console.log(`${row.id}\t${row.prefix}…\t${row.name}\tcreated ${new Date(row.created_ts * 1000).toISOString()}\t${state}`);
        }
      });
    });

  keys
    .command('revoke')
    .description('revoke a key by id or prefix')
    .argument('<key>', 'key id, or its prefix as shown by keys list')
    .action(async (idOrPrefix: string) => {
      await withStore(async (store) => {
        const count = await revokeKey(store, idOrPrefix.replace(/…$/, ''));
        if (count === 0) {
          console.error(`no active key matches ${idOrPrefix}`);
          process.exitCode = 1;
        } else {
          console.log(`revoked ${count} key${count === 1 ? '' : 's'}; running servers stop accepting it within seconds`);
        }
      });
    });
}
