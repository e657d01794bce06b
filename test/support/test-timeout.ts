/**
 * A time limit on every test and hook, so that a hang fails that test fast and names it, instead of
 * holding its file until the file's own limit. `npm test` loads this module into every test process
 * (`--import`, scripts/test.ts); node 20's runner has no per-test default of its own (its `timeout`
 * applies to a file's process as a whole, and `--test-timeout` only to `node --test`).
 *
 * It gives node:test's `it`/`test` a default `timeout` option (QUARRY_TEST_CASE_TIMEOUT milliseconds)
 * and hooks twice that; a test or hook that sets its own keeps it. Subtests inherit their test's limit.
 * node:test takes a test's location from the function that called `it`, which is now the one here:
 * a failing test's `test at …` line names this file, while its stack trace names the test's own lines.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

type TestFn = ((...args: unknown[]) => unknown) & { skip?: unknown; todo?: unknown; only?: unknown };

const limit = Number(process.env.QUARRY_TEST_CASE_TIMEOUT);
if (Number.isFinite(limit) && limit > 0) {
  // The CommonJS exports object is the one `import { it } from 'node:test'` reads, once synced.
  const nodeTest = createRequire(import.meta.url)('node:test') as Record<string, TestFn>;

  const limitTest = (original: TestFn): TestFn => {
    const limited = (...args: unknown[]) => {
      // it(fn) · it(name) · it(name, fn) · it(name, options, fn) · it(options, fn)
      const optionsAt = typeof args[0] === 'string' || args[0] === undefined ? 1 : 0;
      const given = args[optionsAt];
      if (typeof given === 'object' && given !== null) args[optionsAt] = { timeout: limit, ...given };
      else args.splice(optionsAt, 0, { timeout: limit });
      return original(...args);
    };
    return Object.assign(limited, { skip: original.skip, todo: original.todo, only: original.only });
  };
  // Hooks get twice as long: a suite's `before` loads its seed, or waits for another process to build it.
  const limitHook = (original: TestFn): TestFn => (...[fn, options]: unknown[]) => original(fn, { timeout: 2 * limit, ...(options as object | undefined) });

  const test = limitTest(nodeTest.test!);
  nodeTest.it = test;
  nodeTest.test = test;
  for (const hook of ['before', 'after', 'beforeEach', 'afterEach']) nodeTest[hook] = limitHook(nodeTest[hook]!);
  syncBuiltinESMExports();
}
