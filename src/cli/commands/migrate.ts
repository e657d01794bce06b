import type { Command } from 'commander';
import { loadConfig } from '../../config/env.ts';
import { migrate } from '../../store/migrate.ts';
import { openStore } from '../../store/open.ts';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply pending schema migrations to the store')
    .action(async () => {
      const config = loadConfig();
      const store = await openStore(config, 'admin');
      try {
        const applied = await migrate(store);
        console.log(applied.length === 0 ? 'schema is up to date' : applied.map((m) => `applied ${m.version}_${m.name}`).join('\n'));
      } finally {
        await store.close();
      }
    });
}
