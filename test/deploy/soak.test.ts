/**
 * The short soak in the suite: `npm run bench -- --parts soak --minutes 2.5` (bench/parts/soak.ts),
 * every fault of the long one once, on its own PostgreSQL primary and standby, Redis, both
 * indexers following growing fake nodes with reorgs, and both APIs under the case mix with event
 * streams open. It passes when every check of the soak does (the store equals a clean index of the
 * final chains, every event reached every stream once and in order, no answer but those the
 * faults allow, memory, size, lag, clean exits); and the faults must have shown where an operator
 * looks, so that a soak whose faults did nothing cannot pass.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { BenchResults } from '../../bench/results.ts';
import { ownClusterSkip } from '../support/own-cluster.ts';
import { redisUnavailable } from '../support/redis.ts';

// The repository itself, also under `npm test`, whose compiled tree links package.json to it: the
// benchmark runs from its TypeScript and finds the fakes and bin/ beside it, as `npm run bench` does.
const root = path.dirname(realpathSync(path.resolve(import.meta.dirname, '../../package.json')));
const skip = ownClusterSkip() || redisUnavailable() || false;
const MINUTES = 2.5;

/** Runs the soak part as `npm run bench` does, its results as JSON on stdout. */
function runSoak(): Promise<{ results: BenchResults; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-old-space-size=4096', '--import', 'tsx', 'bench/run.ts', '--parts', 'soak', '--minutes', String(MINUTES), '--no-write'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        resolve({ results: JSON.parse(stdout) as BenchResults, stderr, code });
      } catch {
        reject(new Error(`the soak printed no results (exit ${code}): ${stderr.slice(-3000)}`));
      }
    });
  });
}

describe('the short soak: every fault once, on PostgreSQL with a standby and Redis', { skip }, () => {
  it('passes every check, and each fault showed', { timeout: 9.5 * 60_000 }, async () => {
    const { results, stderr, code } = await runSoak();
    const soak = results.soak;
    assert.ok(soak, `no soak figures: ${JSON.stringify(results.errors)}\n${stderr.slice(-3000)}`);
    const failed = soak.checks.verdicts.filter((v) => !v.pass).map((v) => `${v.check}: ${v.measured}`);
    assert.deepEqual(failed, []);
    assert.equal(code, 0, stderr.slice(-3000));

    const c = soak.checks;
    const view = (phase: string) => c.operator.find((v) => v.phase === phase)!;
    const logged = (phase: string, process: string, msg: RegExp) => view(phase).logs.some((l) => l.process === process && msg.test(l.msg));
    const readyz = (phase: string, target: string) => view(phase).readyz.find((r) => r.target === target)!.statuses;
    // Each fault was felt where docs/deploy.md says an operator sees it.
    assert.ok((readyz('postgres-restart', 'primary')['503'] ?? 0) > 0, 'the primary\'s API was unready while PostgreSQL restarted');
    assert.ok(logged('postgres-restart', 'indexer pow', /the store does not answer/), 'the pow indexer waited for the store');
    assert.ok(logged('redis-restart', 'api primary', /Redis unreachable/), 'the API fell back to counting in memory');
    assert.ok((readyz('standby-restart', 'standby')['503'] ?? 0) > 0, 'the standby\'s API was unready while the standby restarted');
    assert.ok(logged('kill-api-worker', 'api primary', /API worker died/), 'the primary replaced its worker');
    for (const name of ['indexer pow', 'indexer pos']) assert.equal(c.processes.find((p) => p.name === name)!.starts, 2, `${name} was killed and started once more`);
    // A killed or slowed indexer falls further behind than it ever is in a steady phase.
    const steadyMax = Math.max(...c.steadyLag.filter((l) => l.chain === 'pow').map((l) => l.max));
    for (const fault of ['kill-pow-indexer', 'slow-nodes']) {
      const lag = c.lag.find((l) => l.fault === fault && l.chain === 'pow')!;
      assert.ok((lag.maxLag ?? 0) > steadyMax, `pow during ${fault}: ${lag.maxLag} blocks behind, ${steadyMax} at most when steady`);
    }
    for (const chain of ['pow', 'pos'] as const) assert.ok(soak.proxies[chain].reset > 0, `${chain}: the dropping node reset no connection`);
    // The chains went through what a week brings: reorgs and closed days on both.
    for (const chain of ['pow', 'pos'] as const) {
      assert.ok(soak.chains[chain].reorgs > 0, `${chain}: no reorg`);
      assert.ok(soak.chains[chain].days > 0, `${chain}: no closed day`);
    }
    // Every stream reconnected, and resumed without a hole each time.
    for (const s of c.streams) assert.ok(s.connects >= 3 && s.missing === 0, `${s.name}: ${s.connects} connections, ${s.missing} missed`);
  });
});
