/**
 * PGlite answers as PostgreSQL does. The API suites run on one store kind, PostgreSQL when the run
 * has it (`singleStoreKinds`, test/support/seeded-app.ts): this file asks
 * every /api/v1 route of the OpenAPI document on both kinds, over each of those seeds loaded into
 * each, and holds every answer of PGlite equal to PostgreSQL's: the status, the content type and
 * the body, as JSON and as CSV. Per route: its defaults on every path it can be filled for, each
 * value of every enumerated query parameter, a page of two rows and the page after it by cursor
 * or by offset. The suites that read a seed compare PostgreSQL's answers with oracles; an answer
 * of PGlite that differed from PostgreSQL's would fail here.
 *
 * A new snapshot seed that an API suite reads joins SEEDS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import type { Store } from '../../src/store/store.ts';
import { ANALYTICS_WORLD, analyticsWorld, loadAnalyticsWorld } from '../support/analytics-world.ts';
import { buildTestApp, type TestApp } from '../support/app.ts';
import { apiOperations, candidateAddresses, get, openApiDoc, requestsOf, type Candidates, type Operation } from '../support/api-routes.ts';
import { loadActivityChains } from '../support/expected-activity.ts';
import { openSeededStore, type SnapshotSeed } from '../support/snapshots.ts';
import { emptyStore } from '../support/seeded-app.ts';
import { storeKinds } from '../support/stores.ts';
import { loadHoldingsChains } from './addresses/holdings-fixtures.ts';
import { loadProfileExpected, posProfileChain, powProfileChain } from './addresses/profile-fixtures.ts';
import { loadRollupChains } from './addresses/rollup-fixtures.ts';
import { loadTransactionChains } from './transactions/fixtures.ts';

type Blocks = Record<ChainId, CanonicalBlock[]>;

interface ParitySeed {
  name: string;
  seed: SnapshotSeed<unknown>;
  /** The seed's canonical blocks, to fill the routes' path parameters from. */
  blocks(): Promise<Blocks>;
  /** Every route must be asked: each path parameter can be filled from the blocks. */
  everyRoute?: boolean;
}

const builders = (chains: { pow: { blocks: CanonicalBlock[] }; pos: { blocks: CanonicalBlock[] } }): Blocks => ({ pow: chains.pow.blocks, pos: chains.pos.blocks });
const worldBlocks = (seed: SnapshotSeed<{ blocks: Blocks }>) => async () => (await seed.snapshot.expect()).blocks;

/** Every snapshot seed an API suite reads (`describeSeededApp` with a seed of test/support/snapshots.ts). */
const SEEDS: ParitySeed[] = [
  { name: 'the analytics world', seed: loadAnalyticsWorld, blocks: worldBlocks(loadAnalyticsWorld), everyRoute: true },
  // The worlds of test/api/analytics/network/active-addresses-daily.test.ts and timeline/timeline.test.ts.
  ...[analyticsWorld({ ...ANALYTICS_WORLD, powDays: 10, posDays: 1 }), analyticsWorld({ ...ANALYTICS_WORLD, migrationCutover: null, posDays: 1 })].map(
    (seed, i) => ({ name: `analytics world variant ${i + 1}`, seed, blocks: worldBlocks(seed) }),
  ),
  { name: 'the transaction chains', seed: loadTransactionChains, blocks: async () => builders(await loadTransactionChains.snapshot.expect()) },
  { name: 'the rollup chains', seed: loadRollupChains, blocks: async () => builders(await loadRollupChains.snapshot.expect()) },
  { name: 'the holdings chains', seed: loadHoldingsChains, blocks: async () => builders(await loadHoldingsChains.snapshot.expect()) },
  { name: 'the profile chains', seed: loadProfileExpected, blocks: async () => builders({ pow: powProfileChain(), pos: posProfileChain() }) },
  { name: 'the activity chains', seed: loadActivityChains, blocks: () => loadActivityChains.snapshot.expect() },
  { name: 'the empty store', seed: emptyStore, blocks: async () => ({ pow: [], pos: [] }) },
];

/** The rows of a page asked with `limit`: two, so that a seed's lists have a next page. */
const PAGE = '2';

/** Each request of `op`: its defaults, each enumerated query parameter's every value, and a page of two rows. */
function variantsOf(op: Operation, candidates: Candidates): string[] {
  const urls = new Set<string>();
  const withQuery = (url: string, name: string, value: string) => `${url}${url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`;
  const query = op.parameters.filter((p) => p.in === 'query' && !p.required && p.name !== 'chain');
  for (const { url } of requestsOf(op, candidates)) {
    urls.add(url);
    for (const p of query) {
      const values = p.schema.enum ?? (p.schema.type === 'boolean' ? ['true', 'false'] : p.name === 'limit' ? [PAGE] : []);
      for (const value of values) if (value !== p.schema.default) urls.add(withQuery(url, p.name, String(value)));
    }
  }
  return [...urls];
}

/** The candidates of `blocks`, without the kinds the blocks have none of (their routes are not asked). */
function candidatesOf(blocks: Blocks): Candidates {
  const all = candidateAddresses(blocks);
  const present = <T>(list: (T | undefined)[] | undefined) => (list ?? []).filter((v): v is T => v !== undefined && v !== '');
  return { ...all, search: present(all.search) };
}

interface Answer {
  status: number;
  type: string;
  body: string;
}

async function answer(t: TestApp, url: string, accept?: string): Promise<Answer> {
  const res = await get(t, url, accept ? { accept } : {});
  return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body: res.body };
}

/** The next page of a JSON answer of a list: by its cursor, or by offset past its rows. */
function nextPage(url: string, body: Record<string, unknown>): string | undefined {
  if (typeof body.next_cursor === 'string') return `${url.replace(/[?&]cursor=[^&]*/, '')}${url.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(body.next_cursor)}`;
  if (typeof body.offset === 'number' && Array.isArray(body.items) && (body.has_next === true || body.has_more === true)) {
    return `${url.replace(/[?&]offset=[^&]*/, '')}${url.includes('?') ? '&' : '?'}offset=${body.offset + body.items.length}`;
  }
  return undefined;
}

/**
 * Fields left out of the comparison: when the answer was made (the request's clock: two requests
 * are never answered at the same microsecond), and which store answers (/analytics/network/health's
 * `replica`: embedded or a primary, checked on each store by its own suite).
 */
const UNCOMPARED_FIELDS = new Set(['generated_at', 'checked_at', 'replica']);
const compared = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(compared)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).filter(([key]) => !UNCOMPARED_FIELDS.has(key)).map(([key, v]) => [key, compared(v)]))
      : value;

/** Where two JSON texts first differ, as a path and both values. */
function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${path}: PGlite ${JSON.stringify(a)?.slice(0, 120)}, PostgreSQL ${JSON.stringify(b)?.slice(0, 120)}`;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  for (const key of keys) {
    const d = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`);
    if (d) return d;
  }
  return undefined;
}

const kinds = storeKinds();

describe('PGlite answers every route as PostgreSQL does, on every snapshot seed the API suites read', { skip: kinds.length < 2 && 'the run has no PostgreSQL' }, () => {
  for (const parity of SEEDS) {
    describe(parity.name, () => {
      const opened: { store: Store; app: TestApp }[] = [];
      before(async () => {
        for (const kind of ['pglite', 'postgres'] as const) {
          const store = await openSeededStore(kind, parity.seed);
          opened.push({ store, app: await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000' }) });
        }
      });
      after(async () => {
        for (const { store, app } of opened) {
          await app.close();
          await store.close();
        }
      });

      it('the same status, type and body for every request, as JSON and as CSV, and for the next page', async () => {
        const [pglite, postgres] = opened.map((o) => o.app) as [TestApp, TestApp];
        const candidates = candidatesOf(await parity.blocks());
        const operations = apiOperations(await openApiDoc(postgres));
        const differences: string[] = [];
        let asked = 0;
        let unfilled = 0;
        let paged = 0;
        const compare = async (url: string, accept?: string): Promise<Answer> => {
          asked++;
          const [a, b] = [await answer(pglite, url, accept), await answer(postgres, url, accept)];
          const where = `${url}${accept ? ` (${accept})` : ''}`;
          if (a.status !== b.status || a.type !== b.type) differences.push(`${where}: PGlite ${a.status} ${a.type}, PostgreSQL ${b.status} ${b.type}`);
          else if (a.body !== b.body) {
            const json = a.type.startsWith('application/') && a.type.includes('json');
            const difference = json ? firstDifference(compared(JSON.parse(a.body)), compared(JSON.parse(b.body))) : `${a.body.slice(0, 120)} | ${b.body.slice(0, 120)}`;
            if (difference !== undefined) differences.push(`${where}: ${difference}`);
          }
          return b;
        };
        for (const op of operations) {
          let urls: string[];
          try {
            urls = variantsOf(op, candidates);
          } catch (error) {
            // A path parameter the seed's blocks have nothing for (no token on a chain of plain transfers, say).
            if (parity.everyRoute) throw error;
            unfilled++;
            continue;
          }
          const csv = Boolean(op.responses['200']?.content?.['text/csv']);
          for (const url of urls) {
            const json = await compare(url);
            if (csv) await compare(url, 'text/csv');
            if (json.status !== 200 || !url.includes(`limit=${PAGE}`)) continue;
            const next = nextPage(url, JSON.parse(json.body) as Record<string, unknown>);
            if (next === undefined) continue;
            paged++;
            await compare(next);
            if (csv) await compare(next, 'text/csv');
          }
        }
        assert.deepEqual(differences.slice(0, 20), [], `${differences.length} of ${asked} answers differ`);
        assert.ok(asked >= (parity.everyRoute ? 800 : 60), `${asked} answers compared`);
        if (parity.everyRoute) assert.ok(paged >= 20, `${paged} next pages compared`);
        assert.ok(unfilled < operations.length, `${unfilled} of ${operations.length} routes unfilled`);
      });
    });
  }
});
