/**
 * The pos network's address width (20 or 64 bytes), learned from the node and kept with the
 * store's chain settings (store/chain-network.ts `address_bytes`). The store's width binds once it
 * has one: its row, or 20 bytes for a store that holds pos blocks from before widths were kept. A
 * store without either takes the node's. A node of another width is refused at start, never
 * indexed beside addresses of a different width (docs/indexing-pos.md, "Address width").
 */
import sql from 'sql-template-tag';
import { detectAddressWidth, type EvmNode } from '../sources/evm-rpc/methods.ts';
import { storedAddressBytes, writeChainNetwork } from '../store/chain-network.ts';
import type { Store } from '../store/store.ts';

/** The width the store's pos chain is bound to, or null when nothing binds it yet. */
export async function storedAddressWidth(store: Store): Promise<number | null> {
  const recorded = await storedAddressBytes(store, 'pos');
  if (recorded !== null) return recorded;
  const [block] = await store.query<{ one: number }>('address-width.blocks', sql`SELECT 1 AS one FROM blocks WHERE chain = 'pos' LIMIT 1`);
  return block ? 20 : null;
}

/**
 * The width of `node`'s addresses, checked against the store's: recorded when the store has none,
 * an Error naming both widths when they differ. `where` names the node in that message.
 */
export async function settleAddressWidth(store: Store, node: EvmNode, where: string): Promise<number> {
  const width = await detectAddressWidth(node);
  const stored = await storedAddressWidth(store);
  if (stored === null) {
    await writeChainNetwork(store, 'pos', { addressBytes: width });
  } else if (stored !== width) {
    throw new Error(
      `the node at ${where} has ${width}-byte addresses, but this store's pos chain holds ${stored}-byte addresses: ` +
        'a store holds one network; index this node into a store of its own',
    );
  }
  return width;
}
