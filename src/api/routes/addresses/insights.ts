/**
 * GET /api/v1/{chain}/addresses/{address}/insights: badges, reputation, ranks, holdings
 * concentration and (pow) XMSS key use of one address. Definitions: docs/metrics.md.
 */
import { Type, type Static } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { addressParam } from '../../params/address.ts';
import { AddressPathParams, Nullable, StringEnum, STANDARD_ERRORS } from '../../schemas/common.ts';
import { percentOf } from '../../amounts.ts';
import { badgesOf } from './profile/badges.ts';
import { loadAddressFacts } from './profile/facts.ts';
import { loadRanks } from './profile/ranks.ts';
import { reputation } from './profile/reputation.ts';
import { classifyWallet } from '../../../domain/wallet-class.ts';
import { xmssFigures } from './profile/xmss.ts';

const BadgeSchema = Type.Object({
  key: Type.String({ description: 'Stable identifier, e.g. tier_whale, sig_xmss, role_exchange, active, veteran.' }),
  label: Type.String(),
  emoji: Type.String(),
  tone: Type.String({ description: 'Display hint: neutral, info, positive, warning or negative.' }),
  category: Type.String({ description: 'holdings, signature, role, activity or age.' }),
  tier: Type.String({ description: 'Holder tier name (holdings badges), bronze/silver/gold (graded badges) or standard.' }),
  description: Type.String({ description: 'The rule the badge stands for.' }),
  reason: Nullable(Type.String({ description: 'Why this address has it.' })),
});

const RankSchema = (what: string) =>
  Type.Object({
    rank: Type.Integer({ description: `1 + addresses with a strictly ${what} (ties share a rank).` }),
    percentile: Type.Number({ description: 'Percent of the population ranked strictly below the address (0 to 100).' }),
    total: Type.Integer({ description: 'Addresses of the chain.' }),
  });

const InsightsResponse = Type.Object({
  address: Type.String(),
  chain: Type.String(),
  network: Type.String(),
  exists: Type.Boolean({ description: 'The address was touched by an indexed block.' }),
  badges: Type.Array(BadgeSchema),
  reputation: Type.Object({
    score: Type.Integer({ minimum: 0, maximum: 100 }),
    classification: Type.String({ description: 'trusted, established, moderate, limited, minimal; unknown (never seen) or protocol (a sentinel).' }),
  }),
  rank: Type.Object({
    by_balance: RankSchema('larger balance'),
    by_tx_count: RankSchema('larger logical transaction count'),
    by_age: RankSchema('earlier first appearance'),
    supply_pct: Type.Number({ description: 'Balance as a percent of the total supply (positive balances, sentinels excluded).' }),
  }),
  concentration: Nullable(
    Type.Object(
      {
        holders: Type.Integer({ description: 'Addresses with a positive balance.' }),
        richer_holders: Type.Integer({ description: 'Addresses with a strictly larger balance.' }),
        richer_supply_pct: Type.Number({ description: 'Percent of the supply they hold.' }),
        cumulative_supply_pct: Type.Number({ description: 'Percent of the supply they and this address hold.' }),
        holder_top_pct: Type.Number({ description: 'The address is in the top this-percent of holders: 100 * (richer_holders + 1) / holders.' }),
      },
      { description: 'Where the address sits in the distribution of balances; null without a positive balance.' },
    ),
  ),
  xmss: Nullable(
    Type.Object(
      {
        tree_height: Type.Integer(),
        hash_function: Type.String({ description: 'sha2_256, shake_128 or shake_256, from the address descriptor.' }),
        ots_keys_total: Type.Integer({ description: '2^tree_height one-time keys.' }),
        ots_keys_used: Type.Integer({ description: 'Signatures made with the address’s own key.' }),
        ots_keys_remaining: Type.Integer(),
        ots_max_index: Nullable(Type.Integer({ description: 'Highest one-time key index used.' })),
        ots_used_pct: Type.Number(),
        status: StringEnum(['unused', 'ok', 'low', 'exhausted'] as const),
        slave_keys: Type.Integer({ description: 'Slave keys the address registered (they sign for it with keys of their own).' }),
      },
      { description: 'pow only (null on pos and for the coinbase sentinel).' },
    ),
  ),
});

export function insightsRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/insights',
    {
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressInsights',
        summary: 'Badges, reputation, ranks, concentration and XMSS key use of an address',
        params: AddressPathParams,
        response: { 200: InsightsResponse, ...STANDARD_ERRORS },
      },
    },
    async (request): Promise<Static<typeof InsightsResponse>> => {
      const { chain } = request.params;
      const address = addressParam(request, chain, request.params.address);
      const facts = await loadAddressFacts(ctx, chain, address);
      const ranks = await loadRanks(ctx.store, chain, { balance: facts.balance, txCount: facts.txCount, appeared: facts.appeared });
      const walletClass = classifyWallet(facts);
      const xmss = xmssFigures(facts);
      const positive = facts.balance > 0n;
      return {
        address,
        chain,
        network: ctx.network(chain),
        exists: facts.exists,
        badges: badgesOf(facts, walletClass, xmss),
        reputation: reputation(facts, xmss),
        rank: {
          by_balance: ranks.byBalance,
          by_tx_count: ranks.byTxCount,
          by_age: ranks.byAge,
          supply_pct: percentOf(facts.balance, ranks.supply),
        },
        concentration: positive
          ? {
              holders: ranks.holders,
              richer_holders: ranks.richer.addresses,
              richer_supply_pct: percentOf(ranks.richer.balance, ranks.supply),
              cumulative_supply_pct: percentOf(ranks.richer.balance + facts.balance, ranks.supply),
              holder_top_pct: percentOf(BigInt(ranks.richer.addresses + 1), BigInt(ranks.holders)),
            }
          : null,
        xmss,
      };
    },
  );
}
