/**
 * What is known about which addresses hold code, to type a pos transaction without asking the node
 * for every call: an address with code at height h has it at every later height, one without code
 * at h had none before (pre-Cancun SELFDESTRUCT could break the first; QRL 2.0 started after
 * Cancun). Forgotten on reorgs.
 */
import type { NodeBlock, NodeReceipt } from './decode.ts';
import { getCode, type EvmNode } from './methods.ts';
import { needsCodeCheck, type TraceResult } from './normalise.ts';

const MAX_CACHE = 500_000;

export class CodeKnowledge {
  /** Lowest height known to have code. */
  private readonly codeFrom = new Map<string, number>();
  /** Highest height known to have no code. */
  private readonly noCodeUntil = new Map<string, number>();

  /** A contract created at `height`. */
  created(address: string, height: number): void {
    this.codeFrom.set(address, Math.min(this.codeFrom.get(address) ?? Infinity, height));
  }

  forget(): void {
    this.codeFrom.clear();
    this.noCodeUntil.clear();
  }

  /** The hashes of the block's empty-input calls that went to an address with code (see `txType`). */
  async targets(node: EvmNode, height: number, block: NodeBlock, receipts: Map<string, NodeReceipt>, traces: Map<string, TraceResult> | null): Promise<Set<string>> {
    const { codeFrom, noCodeUntil } = this;
    const withCode = new Set<string>();
    const parent = height - 1;
    // Contracts created earlier in this block count as having code for later transactions.
    const createdBefore = new Map<string, number>();
    for (const tx of block.transactions) {
      const receipt = receipts.get(tx.hash);
      if (receipt?.status === 0) continue;
      if (receipt?.contractAddress) createdBefore.set(receipt.contractAddress, Math.min(createdBefore.get(receipt.contractAddress) ?? Infinity, tx.index));
      for (const c of traces?.get(tx.hash)?.creations ?? []) createdBefore.set(c.address, Math.min(createdBefore.get(c.address) ?? Infinity, tx.index));
    }
    const ask = new Set<string>();
    for (const tx of block.transactions) {
      if (!needsCodeCheck(tx, receipts.get(tx.hash))) continue;
      const to = tx.to!;
      if ((createdBefore.get(to) ?? Infinity) < tx.index) withCode.add(`${tx.hash}`);
      else if ((codeFrom.get(to) ?? Infinity) <= parent) withCode.add(tx.hash);
      else if ((noCodeUntil.get(to) ?? -1) >= parent) continue;
      else ask.add(to);
    }
    if (ask.size > 0 && parent >= 0) {
      const targets = [...ask];
      const codes = await Promise.all(targets.map((a) => getCode(node, a, parent)));
      if (codeFrom.size > MAX_CACHE) codeFrom.clear();
      if (noCodeUntil.size > MAX_CACHE) noCodeUntil.clear();
      targets.forEach((a, i) => {
        if (codes[i] !== '0x') codeFrom.set(a, Math.min(codeFrom.get(a) ?? Infinity, parent));
        else noCodeUntil.set(a, Math.max(noCodeUntil.get(a) ?? -1, parent));
      });
      for (const tx of block.transactions) {
        if (tx.to !== null && ask.has(tx.to) && needsCodeCheck(tx, receipts.get(tx.hash)) && (codeFrom.get(tx.to) ?? Infinity) <= parent) withCode.add(tx.hash);
      }
    }
    return withCode;
  }
}
