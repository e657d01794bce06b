/**
 * A throwaway Redis server for tests, from Debian's redis-server: on 127.0.0.1 and a free port,
 * without persistence (`--save "" --appendonly no`), in a temporary directory deleted on stop.
 * `QUARRY_TEST_REDIS=require` (CI) makes a missing redis-server a failure instead of a skip.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/store/local-cluster.ts';

export const REDIS_SERVER = process.env.QUARRY_TEST_REDIS_SERVER ?? '/usr/bin/redis-server';

export interface TestRedis {
  url: string;
  port: number;
  /** The server's process id while it runs. */
  pid(): number | undefined;
  /** Stops the server (outage tests); `start` brings it back on the same port, empty. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** Stops the server and deletes its directory. */
  stop(): Promise<void>;
}

/**
 * Why the Redis tests cannot run here, or null when they can. Without redis-server they are
 * skipped with this message, unless QUARRY_TEST_REDIS=require, where the caller fails instead.
 */
export function redisUnavailable(): string | null {
  if (existsSync(REDIS_SERVER)) return null;
  const message = `${REDIS_SERVER} not found: install Debian's redis-server to run the Redis tests`;
  if (process.env.QUARRY_TEST_REDIS === 'require') throw new Error(`QUARRY_TEST_REDIS=require but ${message}`);
  return message;
}

/** Resolves once something accepts connections on `port`. */
async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: '127.0.0.1' });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port}: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startTestRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quarry-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = '';

  const startServer = async () => {
    output = '';
    const started = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.stdout!.on('data', (chunk) => (output += chunk));
    started.stderr!.on('data', (chunk) => (output += chunk));
    child = started;
    await waitForPort(port, started, () => output);
  };
  const stopServer = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };

  await startServer();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: () => (child && child.exitCode === null ? child.pid : undefined),
    startServer,
    stopServer,
    stop: async () => {
      await stopServer();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
