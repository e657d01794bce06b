/**
 * A throwaway PostgreSQL server for tests and benchmarks, from the machine's PostgreSQL binaries
 * (Debian's postgresql package). It lives in a temporary directory, listens on 127.0.0.1 and a
 * free port, and is deleted on stop. As root, the server runs as the `postgres` user.
 */
import { execFile as execFileCb } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, chownSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCb);

export interface LocalCluster {
  /** Connection URL of the `postgres` database. */
  url: string;
  port: number;
  dir: string;
  /** A URL for another database of this server. */
  urlFor(database: string): string;
  /**
   * Stops the server but keeps it: its data directory and port stay, and `startServer` brings the
   * same server back (outage tests). `fast` (the default) ends every session as an operator's
   * restart does ("terminating connection due to administrator command"); `immediate` as a crash.
   */
  stopServer(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts the server `stopServer` stopped, on the same port. */
  startServer(): Promise<void>;
  /** Stops the server and deletes it. */
  stop(): Promise<void>;
}

export interface LocalClusterOptions {
  /** Server settings (`-c name=value`), e.g. `{ fsync: 'off' }` for tests. */
  settings?: Record<string, string>;
  /**
   * Makes the server a streaming replica (hot standby) of this local server: its data directory is
   * a `pg_basebackup -R` of the primary (which writes standby.signal and primary_conninfo), so it
   * replays the primary's WAL as it is written and answers reads only.
   */
  standbyOf?: { port: number };
}

/** The directory of the newest installed PostgreSQL binaries, or null. */
export function findPostgresBin(): string | null {
  const candidates: string[] = [];
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    for (const version of readdirSync(debian).sort((a, b) => Number(b) - Number(a))) {
      candidates.push(path.join(debian, version, 'bin'));
    }
  }
  candidates.push('/usr/local/pgsql/bin', '/usr/bin');
  return candidates.find((dir) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'))) ?? null;
}

/** A TCP port on 127.0.0.1 that nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startLocalCluster(options: LocalClusterOptions = {}): Promise<LocalCluster> {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL binaries not found: install the postgresql package (apt-get install postgresql)');
  const asRoot = process.getuid?.() === 0;
  const run = async (command: string, args: string[]) => {
    const file = path.join(bin, command);
    return asRoot ? execFile('runuser', ['-u', 'postgres', '--', file, ...args]) : execFile(file, args);
  };

  const dir = mkdtempSync(path.join(os.tmpdir(), 'quarry-pg-'));
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  if (asRoot) {
    const { stdout } = await execFile('id', ['-u', 'postgres']);
    const { stdout: gid } = await execFile('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  if (options.standbyOf) {
    // initdb's pg_hba.conf lets the replication connection in from 127.0.0.1 (trust).
    await run('pg_basebackup', ['-D', dataDir, '-h', '127.0.0.1', '-p', String(options.standbyOf.port), '-U', 'postgres', '-R', '-X', 'stream', '-c', 'fast', '--no-sync']);
  } else {
    await run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  }

  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: dir,
    max_connections: '200',
    shared_buffers: '256MB',
    ...options.settings,
  };
  writeFileSync(
    path.join(dir, 'settings.txt'),
    Object.entries(settings)
      .map(([key, value]) => `${key}=${value}`)
      .join('\n'),
  );
  const serverOptions = Object.entries(settings)
    .map(([key, value]) => `-c ${key}=${value}`)
    .join(' ');
  let running = false;
  const start = async () => {
    await run('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', serverOptions, '-w', '-t', '60', 'start']);
    running = true;
  };
  await start();

  const urlFor = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url: urlFor('postgres'),
    port,
    dir,
    urlFor,
    async stopServer(mode = 'fast') {
      await run('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);
      running = false;
    },
    async startServer() {
      await start();
    },
    async stop() {
      try {
        if (running) await run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
