/**
 * A real EVM node for tests: Anvil from the @foundry-rs/anvil package (its platform binary ships
 * inside a registry package; nothing is downloaded at run time), and the test contracts of
 * test/fixtures/contracts compiled with solc-js.
 *
 * Anvil runs with auto-impersonation, so any address can send transactions by `from` alone:
 * tests drive traffic from many accounts without keys.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';
import { encodeDeployData, encodeFunctionData, type Abi } from 'viem';

const require = createRequire(import.meta.url);
const CONTRACTS_DIR = path.resolve(import.meta.dirname, '../fixtures/contracts');

export interface Anvil {
  url: string;
  port: number;
  pid: number;
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

export interface AnvilOptions {
  /** Seconds between automatically mined blocks (default: mine on each transaction or on request). */
  blockTime?: number;
  accounts?: number;
  extraArgs?: string[];
}

/** The path of the anvil binary of this platform, from its npm package. */
export function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const platform = process.platform === 'win32' ? 'win32' : process.platform;
  const pkg = `@foundry-rs/anvil-${platform}-${arch}`;
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  const binary = path.join(dir, 'bin', platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(binary)) throw new Error(`${pkg} has no binary at ${binary}`);
  return binary;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const port = await freePort();
  const args = ['--host', '127.0.0.1', '--port', String(port), '--accounts', String(options.accounts ?? 10), '--auto-impersonate', '--silent',
    // Anvil's default "fees" order drops a sender's later transactions when they pay higher
    // tips than its earlier ones in the same block; arrival order keeps them all.
    '--order', 'fifo'];
  if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
  args.push(...(options.extraArgs ?? []));
  const child: ChildProcess = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited: ${stderr}`);
    try {
      await rpc('eth_chainId');
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`anvil did not start: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    port,
    pid: child.pid!,
    rpc,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

// ---- contracts ---------------------------------------------------------------------------------

export interface Artifact {
  abi: Abi;
  bytecode: `0x${string}`;
}

let compiled: Record<string, Artifact> | undefined;

/**
 * Compiles every .sol file of test/fixtures/contracts (once per process) with solc-js. Under
 * `npm test` the artifacts are kept in the run's snapshot folder, by the sources' digest: the
 * processes after the first read them instead of loading and running the compiler again.
 */
export function compileContracts(): Record<string, Artifact> {
  if (compiled) return compiled;
  const sources = Object.fromEntries(
    readdirSync(CONTRACTS_DIR)
      .filter((file) => file.endsWith('.sol'))
      .sort()
      .map((file) => [file, { content: readFileSync(path.join(CONTRACTS_DIR, file), 'utf8') }]),
  );
  const runDir = process.env.QUARRY_TEST_SNAPSHOTS;
  const kept = runDir ? path.join(runDir, `contracts-${createHash('sha256').update(JSON.stringify(sources)).digest('hex').slice(0, 16)}.json`) : undefined;
  if (kept && existsSync(kept)) return (compiled = JSON.parse(readFileSync(kept, 'utf8')) as Record<string, Artifact>);
  compiled = compileSources(sources);
  if (kept) {
    // Written whole under another name, then renamed: a reader never sees half a file.
    writeFileSync(`${kept}.${process.pid}`, JSON.stringify(compiled));
    renameSync(`${kept}.${process.pid}`, kept);
  }
  return compiled;
}

function compileSources(sources: Record<string, { content: string }>): Record<string, Artifact> {
  const solc = require('solc') as { compile(input: string): string };
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const artifacts: Record<string, Artifact> = {};
  for (const file of Object.values(output.contracts)) {
    for (const [name, contract] of Object.entries(file)) artifacts[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  }
  return artifacts;
}

// ---- driving traffic ---------------------------------------------------------------------------

export interface TxRequest {
  from: string;
  to?: string;
  value?: bigint;
  data?: `0x${string}`;
  gas?: bigint;
  maxPriorityFeePerGas?: bigint;
  /** Needed for several transactions of one sender in a block (Anvil would reuse the nonce). */
  nonce?: number;
}

const hex = (n: bigint) => `0x${n.toString(16)}`;

/** Sends a transaction (mined now with automine on, or at the next `evm_mine`). */
export function sendTx(anvil: Anvil, tx: TxRequest): Promise<`0x${string}`> {
  return anvil.rpc('eth_sendTransaction', [
    {
      from: tx.from,
      ...(tx.to ? { to: tx.to } : {}),
      value: hex(tx.value ?? 0n),
      ...(tx.data ? { data: tx.data } : {}),
      ...(tx.gas ? { gas: hex(tx.gas) } : {}),
      ...(tx.nonce !== undefined ? { nonce: hex(BigInt(tx.nonce)) } : {}),
      ...(tx.maxPriorityFeePerGas !== undefined ? { maxPriorityFeePerGas: hex(tx.maxPriorityFeePerGas), maxFeePerGas: hex(tx.maxPriorityFeePerGas + 50_000_000_000n) } : {}),
    },
  ]);
}

export function deployData(artifact: Artifact, args: readonly unknown[] = []): `0x${string}` {
  return encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args });
}

export function callData(artifact: Artifact, functionName: string, args: readonly unknown[] = []): `0x${string}` {
  return encodeFunctionData({ abi: artifact.abi, functionName, args });
}

/** Deploys (with automine on) and returns the contract address. */
export async function deploy(anvil: Anvil, from: string, artifact: Artifact, args: readonly unknown[] = [], value = 0n): Promise<`0x${string}`> {
  const hash = await sendTx(anvil, { from, data: deployData(artifact, args), value, gas: 5_000_000n });
  const receipt = await waitForReceipt(anvil, hash);
  if (receipt.status !== '0x1') throw new Error(`deploying failed: ${hash}`);
  return receipt.contractAddress;
}

/** The receipt of `hash`, once mined (Anvil answers eth_sendTransaction before it mines). */
export async function waitForReceipt(anvil: Anvil, hash: string): Promise<{ contractAddress: `0x${string}`; status: string; blockNumber: string }> {
  for (let i = 0; ; i++) {
    const receipt = await anvil.rpc('eth_getTransactionReceipt', [hash]);
    if (receipt) return receipt;
    if (i > 500) throw new Error(`${hash} was not mined`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export async function mine(anvil: Anvil, blocks = 1): Promise<void> {
  for (let i = 0; i < blocks; i++) await anvil.rpc('evm_mine');
}
