/**
 * The execution node's pool as the pending poller reads it (ingest/pending.ts): `txpool_content`,
 * pending and queued, typed by the rule of the block's transactions (normalise.ts `txType`) without
 * a receipt: a creation, a call with input, or a transfer unless its target has code, which is
 * asked of the node (`getCode` at `latest`) once per transaction while it stays in the pool. The
 * whole pool comes in one answer, so every read is complete; its size is bounded by the node's pool
 * limits (go-qrl's legacypool: 5,120 executable and 1,024 queued slots by default).
 */
import type { PoolReader, PoolTx, PosTxType } from '../../chain/model.ts';
import { decodeTxpoolContent, type NodePoolTx } from './decode.ts';
import { addressBytesOf, getCode, txpoolContent, type EvmNode } from './methods.ts';
import { txType } from './normalise.ts';

export function createEvmPoolReader(node: EvmNode): PoolReader {
  // The types of the last read's transactions: a transaction's type does not change while it waits.
  let typed = new Map<string, PosTxType>();
  return {
    chain: 'pos',
    method: 'txpool_content',
    async read() {
      const seen = new Set<string>();
      const txs = decodeTxpoolContent(await txpoolContent(node), addressBytesOf(node)).filter((tx) => !seen.has(tx.hash) && seen.add(tx.hash));
      const hasCode = await targetsWithCode(node, txs.filter((tx) => !typed.has(tx.hash)));
      const types = new Map(txs.map((tx) => [tx.hash, typed.get(tx.hash) ?? txType(tx, undefined, (t) => hasCode.has(t.to!))]));
      typed = types;
      return { txs: txs.map((tx) => poolTx(tx, types.get(tx.hash)!)), complete: true, poolSize: txs.length };
    },
  };
}

/** The targets of the empty-input transfers among `txs` that hold code now. */
async function targetsWithCode(node: EvmNode, txs: NodePoolTx[]): Promise<Set<string>> {
  const targets = [...new Set(txs.filter((tx) => tx.to !== null && tx.input === '0x').map((tx) => tx.to!))];
  const codes = await Promise.all(targets.map((target) => getCode(node, target, 'latest')));
  return new Set(targets.filter((_, i) => codes[i] !== '0x'));
}

function poolTx(tx: NodePoolTx, type: PosTxType): PoolTx {
  return {
    hash: tx.hash,
    pool: tx.pool,
    type,
    typeEvm: tx.type,
    from: tx.from,
    to: tx.to,
    value: tx.value,
    recipientCount: 1,
    fee: null,
    nonce: tx.nonce,
    gas: tx.gas,
    gasPrice: tx.gasPrice,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
  };
}
