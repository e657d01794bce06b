/**
 * GET /api/v1/analytics/supply/overview: both chains' supply in one answer — pow's emission against
 * its cap, pos's mint and burn, and how the migration splits the combined supply (docs/metrics.md,
 * "Supply"). Reads the two totals rows, 30 closed days of each chain, the node tips and a setting.
 */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import { CHAIN_INFO, PLANCK_PER_SHOR, type ChainId } from '../../../chain/chains.ts';
import { POW_EMISSION_SUPPLY_SHOR, POW_GENESIS_SUPPLY_SHOR } from '../../../chain/pow-emission.ts';
import type { Db } from '../../../store/store.ts';
import { addDays, dayIndex } from '../../../time.ts';
import { formatUnits, percentOf } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, Nullable } from '../../schemas/common.ts';
import { analyticsRoute } from '../route.ts';
import { chainEnds, coinsOf, NO_TOTALS, planckToShor, supplyTotals, type ChainEnds, type SupplyTotals } from './minted-days.ts';

/** The published QRL figures, in coins (theqrl.org/tokenomics; docs/metrics.md, "Supply"). */
const QRL = {
  maxCoins: 105_000_000,
  publicSaleCoins: 52_000_000,
  reservedCoins: 13_000_000,
  foundationEarmarkCoins: 8_000_000,
  genesisCoins: 65_000_000,
  miningPoolCoins: 40_000_000,
} as const;
const POW_CAP_SHOR = POW_GENESIS_SUPPLY_SHOR + POW_EMISSION_SUPPLY_SHOR;
/** The emission window: the closed days before the latest block's day. */
const EMISSION_DAYS = 30;
/** Digits kept past a coin's smallest unit when a per-day mean is converted to a number. */
const MEAN_DIGITS = 20;

const Signed = Type.String({ pattern: '^-?[0-9]+$', description: 'Signed integer in shor, as a decimal string.' });

const PowSupply = Type.Object({
  minted_shor: { ...Amount, description: 'pow supply: genesis allocations plus block rewards indexed.' },
  minted_coins: Type.Number(),
  genesis_coins: Type.Number({ description: 'Genesis allocations indexed.' }),
  mined_coins: Type.Number({ description: 'Block rewards indexed.' }),
  mining_pool_coins: Type.Number({ description: 'What the emission schedule mines over 200 years.' }),
  mining_remaining_coins: Type.Number(),
  cap_coins: Type.Number(),
  cap_pct: Type.Number(),
  remaining_coins: Type.Number(),
  emission_per_day_coins: Type.Number({ description: 'Mean block rewards per day over the 30 closed days before the latest block’s day.' }),
  inflation_annual_pct: Type.Number(),
  indexed_height: Nullable(Type.Integer()),
  node_tip_height: Nullable(Type.Integer({ description: 'The node’s tip as last seen by what feeds pow; null when unknown.' })),
  is_fully_indexed: Type.Boolean(),
});

const MaxSupply = Type.Object({
  max_coins: Type.Number(),
  public_sale_coins: Type.Number(),
  reserved_coins: Type.Number(),
  foundation_earmark_coins: Type.Number(),
  genesis_coins: Type.Number(),
  mining_pool_coins: Type.Number(),
  mined_coins: Type.Number(),
  unmined_coins: Type.Number(),
});

const PosSupply = Type.Object({
  minted_shor: { ...Amount, description: 'pos gross minted: genesis allocations, withdrawals and migration mints (planck ÷ 10^9, rounded down).' },
  minted_coins: Type.Number(),
  net_minted_shor: { ...Signed, description: 'Minted less the fee burn.' },
  net_minted_coins: Type.Number(),
  fee_burned_shor: Amount,
  fee_burned_coins: Type.Number(),
  cap_coins: Nullable(Type.Number({ description: 'null: pos has no cap.' })),
  emission_per_day_coins: Type.Number({ description: 'Mean net new issuance per day (minted less migration mints less burn) over the 30 closed days before the latest block’s day.' }),
  inflation_annual_pct: Type.Number(),
});

const Split = Type.Object({
  legacy_shor: { ...Signed, description: 'pow supply less the coins claimed on pos.' },
  legacy_coins: Type.Number(),
  legacy_pct: Type.Number(),
  claimed_shor: Signed,
  claimed_coins: Type.Number(),
  claimed_pct: Type.Number(),
  pos_net_shor: { ...Signed, description: 'pos net supply less the claimed coins: its own issuance less the burn.' },
  pos_net_coins: Type.Number(),
  pos_net_pct: Type.Number(),
});

const OverviewResponse = Type.Object({
  available: Type.Boolean({ description: 'false when no chain has an indexed block (every measured figure is then zero).' }),
  combined_supply_shor: { ...Signed, description: 'pow supply plus pos net supply, the mirrored (claimed) coins once.' },
  combined_supply_coins: Type.Number(),
  emission_per_day_coins: Type.Number(),
  inflation_annual_pct: Type.Number(),
  mirror_shor: { ...Amount, description: 'Coins minted on pos by the migration: counted by both chains.' },
  migration_measurable: Type.Boolean(),
  is_sparse: Type.Boolean(),
  pow: PowSupply,
  max_supply: MaxSupply,
  pos: PosSupply,
  split: Split,
});
type Overview = Static<typeof OverviewResponse>;

/** A fraction of two integers. */
interface Ratio {
  num: bigint;
  den: bigint;
}

/** num ÷ den of the chain's smallest unit, in coins, as a number (0 when den is 0). */
function coinsRatio(chain: ChainId, r: Ratio): number {
  if (r.den === 0n) return 0;
  const scaled = (r.num * 10n ** BigInt(MEAN_DIGITS)) / r.den;
  return Number(formatUnits(scaled.toString(), CHAIN_INFO[chain].decimals + MEAN_DIGITS));
}

/** Annual inflation: a per-day ratio × 365 over a supply, in percent (0 without a positive supply). */
function annualPct(r: Ratio, supply: bigint): number {
  if (r.den === 0n) return 0;
  return percentOf(r.num * 365n, r.den * supply);
}

/** What a chain minted (and pos burned) over its emission window, and the days it covers. */
interface EmissionWindow {
  days: number;
  minted: bigint;
  burned: bigint;
  migrationMinted: bigint;
  /** The window reaches before the chain's first indexed day. */
  clipped: boolean;
}

async function emissionWindow(db: Db, chain: ChainId, ends: ChainEnds): Promise<EmissionWindow> {
  const start = addDays(ends.tipDay, -EMISSION_DAYS);
  const from = start < ends.firstDay ? ends.firstDay : start;
  const to = addDays(ends.tipDay, -1);
  const days = Math.max(0, dayIndex(to) - dayIndex(from) + 1);
  const [row] = await db.query<{ minted: string; burned: string; migration_minted: string }>(
    'analytics.supply.emission_window',
    sql`SELECT (SELECT coalesce(sum(minted), 0) FROM chain_daily WHERE chain = ${chain} AND day BETWEEN ${from}::date AND ${to}::date)::text AS minted,
               (SELECT coalesce(sum(burned), 0) FROM chain_daily WHERE chain = ${chain} AND day BETWEEN ${from}::date AND ${to}::date)::text AS burned,
               (SELECT coalesce(sum(minted), 0) FROM chain_migration_daily WHERE chain = ${chain} AND day BETWEEN ${from}::date AND ${to}::date)::text AS migration_minted`,
    { reusePlan: true }, // primary-key ranges of at most 30 rows
  );
  return { days, minted: BigInt(row!.minted), burned: BigInt(row!.burned), migrationMinted: BigInt(row!.migration_minted), clipped: start < ends.firstDay };
}

const NO_WINDOW: EmissionWindow = { days: 0, minted: 0n, burned: 0n, migrationMinted: 0n, clipped: false };

function zeroed(): Overview {
  return {
    available: false,
    combined_supply_shor: '0',
    combined_supply_coins: 0,
    emission_per_day_coins: 0,
    inflation_annual_pct: 0,
    mirror_shor: '0',
    migration_measurable: false,
    is_sparse: false,
    pow: {
      minted_shor: '0', minted_coins: 0, genesis_coins: 0, mined_coins: 0, mining_pool_coins: QRL.miningPoolCoins, mining_remaining_coins: 0,
      cap_coins: QRL.maxCoins, cap_pct: 0, remaining_coins: 0, emission_per_day_coins: 0, inflation_annual_pct: 0,
      indexed_height: null, node_tip_height: null, is_fully_indexed: false,
    },
    max_supply: {
      max_coins: QRL.maxCoins, public_sale_coins: QRL.publicSaleCoins, reserved_coins: QRL.reservedCoins, foundation_earmark_coins: QRL.foundationEarmarkCoins,
      genesis_coins: QRL.genesisCoins, mining_pool_coins: QRL.miningPoolCoins, mined_coins: 0, unmined_coins: 0,
    },
    pos: {
      minted_shor: '0', minted_coins: 0, net_minted_shor: '0', net_minted_coins: 0, fee_burned_shor: '0', fee_burned_coins: 0,
      cap_coins: null, emission_per_day_coins: 0, inflation_annual_pct: 0,
    },
    split: {
      legacy_shor: '0', legacy_coins: 0, legacy_pct: 0, claimed_shor: '0', claimed_coins: 0, claimed_pct: 0,
      pos_net_shor: '0', pos_net_coins: 0, pos_net_pct: 0,
    },
  };
}

async function nodeTips(db: Db): Promise<Map<string, number>> {
  const rows = await db.query<{ chain: string; height: string }>('analytics.supply.node_tips', sql`SELECT chain, height FROM chain_node_tips`);
  return new Map(rows.map((r) => [r.chain, Number(r.height)]));
}

async function hasMigrationAddress(db: Db): Promise<boolean> {
  const rows = await db.query('analytics.supply.migration_address', sql`SELECT 1 FROM chain_settings WHERE chain = 'pow' AND key = 'migration_address'`);
  return rows.length > 0;
}

async function overview(db: Db): Promise<Overview> {
  const powEnds = await chainEnds(db, 'pow');
  const posEnds = await chainEnds(db, 'pos');
  if (!powEnds && !posEnds) return zeroed();
  const powTotals: SupplyTotals = powEnds ? await supplyTotals(db, 'pow') : NO_TOTALS;
  const posTotals: SupplyTotals = posEnds ? await supplyTotals(db, 'pos') : NO_TOTALS;
  const powWindow = powEnds ? await emissionWindow(db, 'pow', powEnds) : NO_WINDOW;
  const posWindow = posEnds ? await emissionWindow(db, 'pos', posEnds) : NO_WINDOW;
  const tips = await nodeTips(db);
  const migrationAddress = await hasMigrationAddress(db);

  // pow, in shor.
  const powSupply = powTotals.genesis + powTotals.minted;
  const mined = powTotals.minted;
  const powEmission: Ratio = { num: powWindow.minted, den: BigInt(powWindow.days) };
  const indexedHeight = powEnds?.tipHeight ?? null;
  const nodeTip = tips.get('pow') ?? null;

  // pos, in planck.
  const posMinted = posTotals.genesis + posTotals.minted;
  const posNet = posMinted - posTotals.feeBurned;
  const posEmission: Ratio = { num: posWindow.minted - posWindow.migrationMinted - posWindow.burned, den: BigInt(posWindow.days) };

  // Both, in planck.
  const claimed = posTotals.migrationMinted;
  const powPlanck = powSupply * PLANCK_PER_SHOR;
  const combined = powPlanck + posNet - claimed;
  const legacy = powPlanck - claimed;
  const posOwn = posNet - claimed;
  const combinedShor = planckToShor(combined);
  const legacyShor = planckToShor(legacy);
  const claimedShor = planckToShor(claimed);
  // The per-day means of both chains over a common denominator, in planck.
  const both: Ratio =
    powEmission.den === 0n ? posEmission
    : posEmission.den === 0n ? { num: powEmission.num * PLANCK_PER_SHOR, den: powEmission.den }
    : { num: powEmission.num * PLANCK_PER_SHOR * posEmission.den + posEmission.num * powEmission.den, den: powEmission.den * posEmission.den };

  return {
    available: true,
    combined_supply_shor: combinedShor.toString(),
    combined_supply_coins: coinsOf('pos', combined),
    emission_per_day_coins: coinsRatio('pos', both),
    inflation_annual_pct: annualPct(both, combined),
    mirror_shor: claimedShor.toString(),
    migration_measurable: Boolean(powEnds && posEnds && migrationAddress),
    is_sparse: !powEnds || !posEnds || powEnds.firstHeight !== 0 || powWindow.clipped || posWindow.clipped,
    pow: {
      minted_shor: powSupply.toString(),
      minted_coins: coinsOf('pow', powSupply),
      genesis_coins: coinsOf('pow', powTotals.genesis),
      mined_coins: coinsOf('pow', mined),
      mining_pool_coins: QRL.miningPoolCoins,
      mining_remaining_coins: coinsOf('pow', POW_EMISSION_SUPPLY_SHOR - mined),
      cap_coins: QRL.maxCoins,
      cap_pct: percentOf(powSupply, POW_CAP_SHOR),
      remaining_coins: coinsOf('pow', POW_CAP_SHOR - powSupply),
      emission_per_day_coins: coinsRatio('pow', powEmission),
      inflation_annual_pct: annualPct(powEmission, powSupply),
      indexed_height: indexedHeight,
      node_tip_height: nodeTip,
      is_fully_indexed: nodeTip !== null && indexedHeight !== null && indexedHeight >= nodeTip,
    },
    max_supply: {
      max_coins: QRL.maxCoins,
      public_sale_coins: QRL.publicSaleCoins,
      reserved_coins: QRL.reservedCoins,
      foundation_earmark_coins: QRL.foundationEarmarkCoins,
      genesis_coins: QRL.genesisCoins,
      mining_pool_coins: QRL.miningPoolCoins,
      mined_coins: coinsOf('pow', mined),
      unmined_coins: coinsOf('pow', POW_EMISSION_SUPPLY_SHOR - mined),
    },
    pos: {
      minted_shor: planckToShor(posMinted).toString(),
      minted_coins: coinsOf('pos', posMinted),
      net_minted_shor: planckToShor(posNet).toString(),
      net_minted_coins: coinsOf('pos', posNet),
      fee_burned_shor: planckToShor(posTotals.feeBurned).toString(),
      fee_burned_coins: coinsOf('pos', posTotals.feeBurned),
      cap_coins: null,
      emission_per_day_coins: coinsRatio('pos', posEmission),
      inflation_annual_pct: annualPct(posEmission, posNet),
    },
    split: {
      legacy_shor: legacyShor.toString(),
      legacy_coins: coinsOf('pos', legacy),
      legacy_pct: percentOf(legacy, combined),
      claimed_shor: claimedShor.toString(),
      claimed_coins: coinsOf('pos', claimed),
      claimed_pct: percentOf(claimed, combined),
      // The total less the other two, so that the three add up in shor.
      pos_net_shor: (combinedShor - legacyShor - claimedShor).toString(),
      pos_net_coins: coinsOf('pos', posOwn),
      pos_net_pct: percentOf(posOwn, combined),
    },
  };
}

export function supplyOverviewRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/supply/overview',
    operationId: 'getSupplyOverview',
    summary: 'Supply of both chains: pow emission and cap, pos mint and burn, the migration split',
    response: OverviewResponse,
    handler: () => overview(ctx.store),
  });
}
