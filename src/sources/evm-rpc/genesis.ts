/**
 * Balances that exist at genesis without a transaction. Two places name them:
 * - the node's own accounts (`eth_accounts`: development nodes fund these at genesis);
 * - the chain's genesis.json `alloc` (optional `--genesis FILE`).
 * Each named address gets its balance at block 0 from the node, which is authoritative; when the
 * node cannot answer for block 0 (pruned state) the file's amount stands, and an account listed
 * only by `eth_accounts` is left out (its funding then shows as ordinary history, or not at all).
 */
import { readFile } from 'node:fs/promises';
import type { GenesisAllocation } from '../../chain/model.ts';
import { parsePosAddress } from '../../chain/addresses.ts';
import { RpcError } from './errors.ts';
import { NodeDataError } from './errors.ts';
import { accounts, getBalance, type EvmNode } from './methods.ts';

/**
 * Reads the `alloc` of a geth-style genesis.json (keys with or without 0x/Z/Q, balances hex or
 * decimal); every key must be an address of `width` bytes, the node's.
 */
export async function readGenesisAlloc(file: string, width: number): Promise<GenesisAllocation[]> {
  const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
  return parseGenesisAlloc(parsed, width, file);
}

export function parseGenesisAlloc(genesis: unknown, width: number, where = 'genesis'): GenesisAllocation[] {
  if (typeof genesis !== 'object' || genesis === null) throw new NodeDataError(where, 'expected a JSON object');
  const alloc = (genesis as Record<string, unknown>).alloc;
  if (alloc === undefined) return [];
  if (typeof alloc !== 'object' || alloc === null) throw new NodeDataError(`${where}.alloc`, 'expected an object');
  const allocations: GenesisAllocation[] = [];
  for (const [key, entry] of Object.entries(alloc)) {
    const parsedAddress = parsePosAddress(/^(?:[0-9a-fA-F]{2})+$/.test(key) ? `Q${key}` : key, width);
    if (!parsedAddress.ok) throw new NodeDataError(`${where}.alloc.${key}`, `bad address: ${parsedAddress.reason}`);
    const balance = (entry as Record<string, unknown> | null)?.balance;
    if (typeof balance !== 'string' || !/^(0[xX][0-9a-fA-F]+|\d+)$/.test(balance)) {
      throw new NodeDataError(`${where}.alloc.${key}.balance`, 'expected a hex or decimal string', balance);
    }
    const amount = BigInt(balance);
    if (amount > 0n) allocations.push({ address: parsedAddress.address, amount });
  }
  return allocations;
}

export async function genesisAllocations(node: EvmNode, fromFile: GenesisAllocation[]): Promise<GenesisAllocation[]> {
  let nodeAccounts: string[] = [];
  try {
    nodeAccounts = await accounts(node);
  } catch (error) {
    // Public nodes often disable eth_accounts; that is not an error for us.
    if (error instanceof RpcError && error.retryable) throw error;
  }
  const fileAmounts = new Map(fromFile.map((a) => [a.address, a.amount]));
  const addresses = [...new Set([...fileAmounts.keys(), ...nodeAccounts])];
  const answers = await Promise.allSettled(addresses.map((a) => getBalance(node, a, 0)));
  const allocations: GenesisAllocation[] = [];
  addresses.forEach((a, i) => {
    const answer = answers[i]!;
    if (answer.status === 'rejected' && answer.reason instanceof RpcError && answer.reason.retryable) throw answer.reason;
    const amount = answer.status === 'fulfilled' ? answer.value : fileAmounts.get(a);
    if (amount !== undefined && amount > 0n) allocations.push({ address: a, amount });
  });
  return allocations.sort((x, y) => (x.address < y.address ? -1 : 1));
}
