/** `quarry`: the one command-line entry point. Subcommands live in ./commands. */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/env.ts';
import { StoreLockedError } from '../store/errors.ts';
import { WriterLockHeldError } from '../store/writer-lock.ts';

type Register = (program: Command) => void;

/**
 * Each top-level command's module(s), in the order help lists them. A start loads only the modules
 * of the command it runs (help loads them all): the indexers' modules bring the node clients (viem,
 * gRPC), which `quarry serve` and a demo's second start would otherwise load for nothing.
 */
const COMMANDS: Record<string, () => Promise<Register[]>> = {
  serve: async () => [(await import('./commands/serve.ts')).registerServe],
  migrate: async () => [(await import('./commands/migrate.ts')).registerMigrate],
  keys: async () => [(await import('./commands/keys.ts')).registerKeys],
  generate: async () => [(await import('./commands/generate.ts')).registerGenerate],
  index: async () => [(await import('./commands/index-pos.ts')).registerIndex, (await import('./commands/index-pow.ts')).registerIndexPow],
  demo: async () => [(await import('./commands/demo.ts')).registerDemo],
  refresh: async () => [(await import('./commands/refresh.ts')).registerRefresh],
  labels: async () => [(await import('./commands/labels.ts')).registerLabels],
  'dead-letters': async () => [(await import('./commands/dead-letters.ts')).registerDeadLetters],
};

const program = new Command()
  .name('quarry')
  .description('Indexes the QRL pow and pos chains into PostgreSQL and serves the explorer read API.')
  .showHelpAfterError()
  .exitOverride();

try {
  const named = process.argv[2];
  const modules = named !== undefined && Object.hasOwn(COMMANDS, named) ? [COMMANDS[named]!] : Object.values(COMMANDS);
  for (const load of modules) for (const register of await load()) register(program);
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
