/** `quarry`: the one command-line entry point. Subcommands live in ./commands. */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/env.ts';
import { StoreLockedError } from '../store/pglite.ts';
import { WriterLockHeldError } from '../store/writer-lock.ts';
import { registerServe } from './commands/serve.ts';
import { registerMigrate } from './commands/migrate.ts';
import { registerKeys } from './commands/keys.ts';
import { registerGenerate } from './commands/generate.ts';
import { registerIndex } from './commands/index-pos.ts';
import { registerIndexPow } from './commands/index-pow.ts';
import { registerDemo } from './commands/demo.ts';
import { registerRefresh } from './commands/refresh.ts';
import { registerLabels } from './commands/labels.ts';
import { registerDeadLetters } from './commands/dead-letters.ts';

const program = new Command()
  .name('quarry')
  .description('Indexes the QRL pow and pos chains into PostgreSQL and serves the explorer read API.')
  .showHelpAfterError()
  .exitOverride();

registerServe(program);
registerMigrate(program);
registerKeys(program);
registerGenerate(program);
registerIndex(program);
registerIndexPow(program);
registerDemo(program);
registerRefresh(program);
registerLabels(program);
registerDeadLetters(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  if (error instanceof ConfigError || error instanceof StoreLockedError || error instanceof WriterLockHeldError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
}
