import assert from 'node:assert/strict';
import { it } from 'node:test';
import { apiWorkerExecArgv } from './worker-flags.ts';

it('API workers drop the bulk-load young generation and keep every other flag', () => {
  assert.deepEqual(apiWorkerExecArgv(['--max-semi-space-size=64', '--import', 'tsx', '--enable-source-maps']), ['--import', 'tsx', '--enable-source-maps']);
  assert.deepEqual(apiWorkerExecArgv(['--max-semi-space-size', '--max-old-space-size=4096']), ['--max-old-space-size=4096']);
  assert.deepEqual(apiWorkerExecArgv([]), []);
});
