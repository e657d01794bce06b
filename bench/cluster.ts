/**
 * The PostgreSQL server the benchmark runs on: the one `QUARRY_DATABASE_URL` names, or else a
 * local cluster of the machine's PostgreSQL binaries kept under bench/.work/pg, so that the tier
 * databases built in one run are there for the next (src/store/local-cluster.ts makes throwaway
 * clusters that are deleted on stop; this one is kept, and only stopped).
 */
import { execFile as execFileCb } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { findPostgresBin } from '../src/store/local-cluster.ts';
import { freePort, log, WORK_DIR } from './proc.ts';

const execFile = promisify(execFileCb);

export interface BenchServer {
  /** Where the server is: `local` (bench/.work/pg) or `external` (QUARRY_DATABASE_URL). */
  origin: 'local' | 'external';
  version: string;
  /** Server settings the benchmark depends on, as the server reports them. */
  settings: Record<string, string>;
  urlFor(database: string): string;
  databaseExists(name: string): Promise<boolean>;
  createDatabase(name: string): Promise<void>;
  dropDatabase(name: string): Promise<void>;
  listDatabases(prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * Settings of the local cluster: a modest production-like configuration for this machine (24 GB,
 * shared with other work), durable (fsync and synchronous commit on). The WAL budget is kept at
 * 2 GB: the disk is shared too, and the M tier's two copies take most of what it can spare.
 */
export const LOCAL_SETTINGS: Record<string, string> = {
  max_connections: '200',
  shared_buffers: '1GB',
  effective_cache_size: '6GB',
  maintenance_work_mem: '512MB',
  max_wal_size: '2GB',
  checkpoint_timeout: '30min',
  random_page_cost: '1.1',
};

const REPORTED = ['shared_buffers', 'work_mem', 'maintenance_work_mem', 'max_wal_size', 'fsync', 'synchronous_commit', 'jit', 'max_connections'];

export async function openBenchServer(): Promise<BenchServer> {
  const external = process.env.QUARRY_DATABASE_URL;
  if (external) {
    const server = serverAt(external, 'external', async () => {});
    return describe(server);
  }
  return describe(await startKeptCluster());
}

function serverAt(adminUrl: string, origin: BenchServer['origin'], stop: () => Promise<void>): Omit<BenchServer, 'version' | 'settings'> {
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  const checkName = (name: string) => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
    return name;
  };
  return {
    origin,
    urlFor(database) {
      const url = new URL(adminUrl);
      url.pathname = `/${database}`;
      return url.toString();
    },
    databaseExists: (name) => admin(async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1),
    createDatabase: (name) => admin(async (c) => void (await c.query(`CREATE DATABASE ${checkName(name)}`))),
    dropDatabase: (name) => admin(async (c) => void (await c.query(`DROP DATABASE IF EXISTS ${checkName(name)} WITH (FORCE)`))),
    listDatabases: (prefix) =>
      admin(async (c) => (await c.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY 1', [prefix])).rows.map((r) => r.datname)),
    stop,
  };
}

async function describe(server: Omit<BenchServer, 'version' | 'settings'>): Promise<BenchServer> {
  const client = new pg.Client({ connectionString: server.urlFor('postgres') });
  await client.connect();
  try {
    const version = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    const rows = (await client.query<{ name: string; value: string }>('SELECT name, current_setting(name) AS value FROM unnest($1::text[]) AS name', [REPORTED])).rows;
    const settings = Object.fromEntries(rows.map((r) => [r.name, r.value]));
    return { ...server, version, settings };
  } finally {
    await client.end();
  }
}

/** Starts the kept cluster (creating it on first use), or joins it if a previous run left it running. */
async function startKeptCluster(): Promise<Omit<BenchServer, 'version' | 'settings'>> {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL binaries not found: install the postgresql package, or set QUARRY_DATABASE_URL');
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]) => {
    const file = path.join(bin, command);
    return asRoot ? execFile('runuser', ['-u', 'postgres', '--', file, ...args]) : execFile(file, args);
  };
  const dir = path.join(WORK_DIR, 'pg');
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dir, { recursive: true });
    if (asRoot) {
      const uid = Number((await execFile('id', ['-u', 'postgres'])).stdout.trim());
      const gid = Number((await execFile('id', ['-g', 'postgres'])).stdout.trim());
      chownSync(dir, uid, gid);
    }
    log(`creating the benchmark's PostgreSQL cluster in ${path.relative(process.cwd(), dataDir)}`);
    await run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
  }

  let port: number;
  const running = await run('pg_ctl', ['-D', dataDir, 'status']).then(() => true, () => false);
  if (running) {
    // postmaster.pid: line 4 is the port.
    port = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
    log(`joining the benchmark's PostgreSQL cluster left running on port ${port}`);
  } else {
    port = await freePort();
    const settings = { listen_addresses: '127.0.0.1', port: String(port), unix_socket_directories: dir, ...LOCAL_SETTINGS };
    const options = Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`).join(' ');
    await run('pg_ctl', ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '120', 'start']);
  }
  return serverAt(`postgres://postgres@127.0.0.1:${port}/postgres`, 'local', async () => {
    await run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '120', 'stop']);
  });
}
