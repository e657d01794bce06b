/**
 * GET /api/v1/pow/addresses/{address}/ots: an address's XMSS one-time keys (docs/api-ots.md): its
 * tree's keys, which indexes its signatures used (a page of QRL's bitfield at a time), the next
 * unused index as a QRL node's GetOTS computes it, the keys left, and every index used twice.
 */
import { Type, type Static } from 'typebox';
import { isMultiSigAddress, powHashFunction, powTreeHeight } from '../../../chain/addresses.ts';
import { isSentinel } from '../../../chain/chains.ts';
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { addressEcho } from '../../params/address.ts';
import { invalidParam, notFound } from '../../problem.ts';
import { AddressEchoFields, IntegerQuery, Nullable, PowAddressPathParams, problemResponse, STANDARD_ERRORS, Timestamp } from '../../schemas/common.ts';
import { readOtsReuses, readOtsSummary } from './ots.read.ts';

/** Keys per page: QRL's `ots_tracking_per_page`, the page of its bitfield (GetOTS). */
export const OTS_PAGE_KEYS = 8192;
/** Reused indexes listed, and signatures listed per reused index (docs/bounds.md). */
export const MAX_REUSED_LISTED = 100;
export const MAX_USES_LISTED = 100;
/** The largest tree a descriptor can name (P1 = 15): its page count bounds `page`. */
const MAX_PAGES = 2 ** 30 / OTS_PAGE_KEYS;

const ReuseSignature = Type.Object({
  tx_hash: Type.String(),
  height: Type.Integer(),
  tx_index: Type.Integer({ description: 'Position in its block.' }),
  timestamp: Timestamp,
  tx_type: Type.String(),
});

const Reuse = Type.Object({
  ots_index: Type.Integer({ description: 'The key index signed with more than once.' }),
  uses: Type.Integer({ description: 'Signatures made with it.' }),
  transactions: Type.Array(ReuseSignature, { description: `Those signatures in chain order (the first ${MAX_USES_LISTED}).` }),
});

const UsedRange = Type.Object({
  first: Type.Integer(),
  last: Type.Integer({ description: 'Inclusive.' }),
});

const OtsPage = Type.Object({
  number: Type.Integer({ description: `The page (from 1): keys (number - 1) × ${OTS_PAGE_KEYS} up.` }),
  first_index: Type.Integer({ description: 'The first key index of the page.' }),
  last_index: Type.Integer({ description: 'The last key index of the page (the tree\'s last key on its last page).' }),
  keys_used: Type.Integer({ description: 'Distinct key indexes of the page its signatures used.' }),
  used: Type.Array(UsedRange, { description: 'The used key indexes of the page, as runs of consecutive indexes, ascending.' }),
  bitfield: Type.String({
    description:
      `The page as QRL's node keeps it (GetOTS ots_bitfield, ${OTS_PAGE_KEYS / 8} bytes), in hex: key k of the page is bit k % 8 (least significant first) of byte k >> 3.`,
  }),
});

const OtsResponse = Type.Object({
  ...AddressEchoFields,
  tree_height: Type.Integer({ description: 'XMSS tree height, from the address descriptor (byte 1, low nibble × 2).' }),
  hash_function: Type.String({ description: 'sha2_256, shake_128 or shake_256, from the descriptor (byte 0, low nibble).' }),
  keys_total: Type.Integer({ description: 'One-time keys of the tree: 2^tree_height.' }),
  keys_used: Type.Integer({ description: 'Distinct key indexes the address\'s signatures used (a slave\'s signatures count for the slave, not its master).' }),
  keys_left: Type.Integer({ description: 'keys_total - keys_used.' }),
  signatures: Type.Integer({ description: 'Signatures made with the address\'s key, reuses included.' }),
  highest_used_index: Nullable(Type.Integer({ description: 'The highest key index used; null before the first signature.' })),
  next_unused_index: Nullable(
    Type.Integer({ description: 'The lowest key index no signature used, as a QRL node\'s GetOTS answers next_unused_ots_index; null when every key is used (unused_ots_index_found false).' }),
  ),
  reused_keys: Type.Integer({ description: 'Key indexes signed with more than once: each weakens the address.' }),
  reuses: Type.Array(Reuse, { description: `The reused indexes, ascending (the first ${MAX_REUSED_LISTED}; reused_keys counts them all).` }),
  pages: Type.Integer({ description: `Pages of ${OTS_PAGE_KEYS} keys the tree has.` }),
  page: OtsPage,
});

type OtsAnswer = Static<typeof OtsResponse>;

/** Runs of consecutive indexes of an ascending list. */
function runs(indexes: readonly number[]): { first: number; last: number }[] {
  const out: { first: number; last: number }[] = [];
  for (const i of indexes) {
    const run = out.at(-1);
    if (run && run.last + 1 === i) run.last = i;
    else out.push({ first: i, last: i });
  }
  return out;
}

/** QRL's bitfield of a page's used indexes (PaginatedBitfield: key k in byte k >> 3, bit k % 8). */
function bitfield(indexes: readonly number[], first: number): string {
  const bits = Buffer.alloc(OTS_PAGE_KEYS / 8);
  for (const i of indexes) {
    const k = i - first;
    bits[k >> 3] = bits[k >> 3]! | (1 << (k % 8));
  }
  return bits.toString('hex');
}

export function otsRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/ots',
    {
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressOts',
        summary: 'One-time keys of a pow address: used indexes, the next unused one, keys left and reuses',
        params: PowAddressPathParams,
        querystring: Type.Object({
          page: IntegerQuery({
            minimum: 1,
            maximum: MAX_PAGES,
            default: 1,
            description: `Which page of ${OTS_PAGE_KEYS} keys the answer's \`page\` shows (from 1; at most the address's \`pages\`, a 400 beyond).`,
          }),
        }),
        response: {
          200: OtsResponse,
          ...STANDARD_ERRORS,
          404: problemResponse('Unknown route, or an address that signs with no one-time keys (a multi-signature address, the coinbase sentinel).'),
        },
      },
    },
    async (request): Promise<OtsAnswer> => {
      const echo = addressEcho(ctx, request, 'pow', request.params.address);
      const { address } = echo;
      if (isSentinel('pow', address)) throw notFound(`the pow coinbase sentinel ${address} signs with no key`);
      if (isMultiSigAddress(address)) throw notFound(`${address} is a multi-signature address: it has no one-time keys (its signatories sign; see /multisig)`);
      const height = powTreeHeight(address)!;
      const keysTotal = 2 ** height;
      const pages = Math.ceil(keysTotal / OTS_PAGE_KEYS);
      const page = request.query.page;
      if (page > pages) throw invalidParam('page', `must be at most ${pages}: a tree of height ${height} has ${keysTotal} keys, ${OTS_PAGE_KEYS} a page`);
      const first = (page - 1) * OTS_PAGE_KEYS;
      const last = Math.min(page * OTS_PAGE_KEYS, keysTotal) - 1;
      const s = await readOtsSummary(ctx.store, address, first, last);
      const reuses = s.reused === 0 ? [] : await readOtsReuses(ctx.store, address, MAX_REUSED_LISTED, MAX_USES_LISTED);
      const byIndex = new Map<number, OtsAnswer['reuses'][number]>();
      for (const r of reuses) {
        let entry = byIndex.get(r.ots_index);
        if (!entry) byIndex.set(r.ots_index, (entry = { ots_index: r.ots_index, uses: r.uses, transactions: [] }));
        entry.transactions.push({ tx_hash: r.tx_hash, height: r.height, tx_index: r.tx_index, timestamp: formatTimestamp(r.ts), tx_type: r.tx_type });
      }
      return {
        ...echo,
        tree_height: height,
        hash_function: powHashFunction(address),
        keys_total: keysTotal,
        keys_used: s.used,
        keys_left: Math.max(0, keysTotal - s.used),
        signatures: s.signatures,
        highest_used_index: s.highest,
        next_unused_index: s.first_gap < keysTotal ? s.first_gap : null,
        reused_keys: s.reused,
        reuses: [...byIndex.values()],
        pages,
        page: { number: page, first_index: first, last_index: last, keys_used: s.page_indexes.length, used: runs(s.page_indexes), bitfield: bitfield(s.page_indexes, first) },
      };
    },
  );
}
