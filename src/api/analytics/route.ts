/**
 * The analytics route, written once. `analyticsRoute` mounts a route from its declaration: path,
 * operation, query, response and a handler that receives the parsed query and the chain (default
 * pos). `dailySeries` mounts one of the spec's daily series from what the series is: its item, its
 * default window, how its rows of a day range are read (the open day included) and what a day
 * without a row answers (zeros, the day before's row, or no item); it does the window, the empty
 * answer and the list envelope. `chartSeries` mounts a chart that declares its series
 * (rollups/engine/rollup.ts, `ChartSeries`). Definitions: docs/metrics.md, "Analytics conventions".
 *
 * Every route whose answer is a list (`items`) exports CSV too (plugins/csv.ts, docs/exports.md):
 * `analyticsRoute` marks it, so the daily series and the lists of both factories are marked here.
 */
import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import type { ChainId } from '../../chain/chains.ts';
import type { Chart, ChartField } from '../../rollups/engine/rollup.ts';
import type { Db } from '../../store/store.ts';
import type { ApiContext, RouteApp } from '../context.ts';
import type { CsvExport } from '../plugins/csv.ts';
import { Amount, Day, STANDARD_ERRORS } from '../schemas/common.ts';
import { chainSpan, fillDays, SeriesQuery, spanDays, windowDaysOf, windowRange, type DayRange, type DaySpan, type MissingDay } from './series.ts';

export interface RouteInput<Q, Pm = Static<TObject>> {
  query: Q;
  params: Pm;
  /** The `chain` parameter, pos when absent (and on a route without one). */
  chain: ChainId;
}

export interface AnalyticsRoute<Q extends TObject, R extends TSchema, Pm extends TObject = TObject> {
  path: string;
  operationId: string;
  summary: string;
  query?: Q;
  params?: Pm;
  response: R;
  /**
   * `cacheSeconds`: the spec's cache time; `snapshotCache: false`: the answer reads the clock;
   * `csv`: the arrays a CSV export writes, for an answer whose rows are not `items`.
   */
  config?: { cacheSeconds?: number; snapshotCache?: boolean; csv?: CsvExport };
  handler(input: RouteInput<Static<Q>, Static<Pm>>): Promise<Static<R>>;
}

/** Whether an answer is a list: it has an `items` array. */
const isList = (response: TSchema) => (response as { properties?: Record<string, { type?: unknown }> }).properties?.items?.type === 'array';

export function analyticsRoute<Q extends TObject, R extends TSchema, Pm extends TObject = TObject>(app: RouteApp, route: AnalyticsRoute<Q, R, Pm>): void {
  const config = { ...(isList(route.response) ? { csv: {} } : {}), ...route.config };
  app.get(
    route.path,
    {
      ...(Object.keys(config).length > 0 ? { config } : {}),
      schema: {
        tags: ['analytics'],
        operationId: route.operationId,
        summary: route.summary,
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { querystring: route.query } : {}),
        response: { 200: route.response, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const query = (request.query ?? {}) as Static<Q> & { chain?: ChainId };
      return route.handler({ query, params: (request.params ?? {}) as Static<Pm>, chain: query.chain ?? 'pos' });
    },
  );
}

/** The list envelope's common fields, by the spec's names. */
export const ENVELOPE = {
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  window_days: Type.Integer({ description: 'The window in days.' }),
  days: Type.Integer({ description: 'The window in days.' }),
};

export type EnvelopeField = keyof typeof ENVELOPE;

/** The named common envelope fields, in the order given (the spec's). */
export function envelope<const K extends EnvelopeField>(...names: K[]): { [P in K]: (typeof ENVELOPE)[P] } {
  return Object.fromEntries(names.map((n) => [n, ENVELOPE[n]])) as { [P in K]: (typeof ENVELOPE)[P] };
}

/** The items of a series with one item per day of its window. */
export const ONE_ITEM_PER_DAY = 'One item per UTC day, oldest first, from the later of the window start and the first indexed day to the latest block’s day';

/** A daily item: its day, then `fields`. */
export const dayItem = <T extends TProperties>(fields: T) => Type.Object({ day: Day, ...fields });

/** The first and the latest day a series has. */
export type SeriesSpan = (db: Db, chain: ChainId) => Promise<DaySpan | null>;

/** What a series' declaration receives: the request, what `prepare` gave, the window's length and the span. */
export type SeriesInput<Q, P> = RouteInput<Q> & { prepared: P; days: number; span: DaySpan };

export interface DailySeries<Q extends TObject, Row, Item extends TObject, E extends TProperties, P> {
  path: string;
  operationId: string;
  summary: string;
  /** The default window. */
  window: string;
  /** The query: chain and window (`SeriesQuery`) unless the series takes other parameters. */
  query?: Q;
  item: Item;
  itemsDescription: string;
  /**
   * The envelope after `items`, in the spec's order. `count`, `chain`, `network`, `window_days`
   * and `days` are filled here; any other field comes from `extra`.
   */
  envelope: E;
  /** The days the window ends with and starts at the earliest; the chain's blocks unless given. */
  span?: SeriesSpan;
  /** Work of the request that does not depend on the window (a threshold), done alongside it. */
  prepare?(input: RouteInput<Static<Q>>): Promise<P>;
  /** The rows of every day of the range that has any (the open day included), by day. */
  read(range: DayRange, input: SeriesInput<Static<Q>, P>): Promise<Map<string, Row>>;
  missingDay: MissingDay<Row>;
  /** The items of the days' rows, oldest first; the rows themselves unless given. */
  items?(rows: Row[], range: DayRange, input: SeriesInput<Static<Q>, P>): Static<Item>[];
  /** The envelope fields that are not common ones, also of the empty answer (`items` is then empty). */
  extra?(items: Static<Item>[], input: SeriesInput<Static<Q>, P>): Record<string, unknown>;
  /** The spec's cache time: the answer is kept per chain, window and latest day. */
  cacheSeconds?: number;
}

/** The chain's blocks' first and latest day: the span of every series but the staking ones. */
export const blockSpan: SeriesSpan = async (db, chain) => {
  const span = await chainSpan(db, chain);
  return span && spanDays(span);
};

export function dailySeries<Q extends TObject, Row, Item extends TObject, E extends TProperties, P = undefined>(
  app: RouteApp,
  ctx: ApiContext,
  series: DailySeries<Q, Row, Item, E, P>,
): void {
  const response = Type.Object({
    items: Type.Array(series.item, { description: series.itemsDescription }),
    ...series.envelope,
  });
  const span = series.span ?? blockSpan;
  analyticsRoute(app, {
    path: series.path,
    operationId: series.operationId,
    summary: series.summary,
    query: (series.query ?? SeriesQuery(series.window)) as Q,
    response,
    ...(series.cacheSeconds ? { config: { cacheSeconds: series.cacheSeconds } } : {}),
    handler: async (input) => {
      const days = windowDaysOf((input.query as { window?: string }).window, { fallback: series.window });
      const [first, prepared] = await Promise.all([span(ctx.store, input.chain), series.prepare ? series.prepare(input) : (undefined as P)]);
      const range = first && windowRange(first, days);
      const context = { ...input, prepared, days, span: first ?? { first: '', last: '' } };
      const answer = async () => {
        const rows = range ? fillDays(range, await series.read(range, context), series.missingDay) : [];
        const items = range && series.items ? series.items(rows, range, context) : (rows as unknown as Static<Item>[]);
        const common: Record<EnvelopeField, unknown> = { count: items.length, chain: input.chain, network: ctx.network(input.chain), window_days: days, days };
        const body: Record<string, unknown> = { items };
        for (const name of Object.keys(series.envelope)) if (name in common) body[name] = common[name as EnvelopeField];
        return { ...body, ...series.extra?.(items, context) } as Static<typeof response>;
      };
      if (!series.cacheSeconds) return answer();
      return cached(ctx, `${series.path}:${input.chain}:${days}:${range?.to}`, series.cacheSeconds, answer);
    },
  });
}

/** The JSON schema of a chart field's kind. */
function fieldSchema(field: ChartField): TSchema {
  return field.kind === 'amount' ? { ...Amount, description: field.description } : Type.Integer({ description: field.description });
}

/** Mounts a chart's series (`Chart.series`), its items read by `Chart.read`. */
export function chartSeries(app: RouteApp, ctx: ApiContext, chart: Chart): void {
  const { series, read } = chart;
  if (!series || !read) return;
  const fields = Object.entries(series.fields);
  const zero = (day: string) => ({ day, ...Object.fromEntries(fields.map(([name, f]) => [name, f.kind === 'amount' ? '0' : 0])) });
  dailySeries(app, ctx, {
    path: series.path,
    operationId: series.operationId,
    summary: series.summary,
    window: series.window,
    item: Type.Object({ day: Day, ...Object.fromEntries(fields.map(([name, f]) => [name, fieldSchema(f)])) }),
    itemsDescription: series.itemsDescription,
    envelope: envelope('count', ...series.envelope),
    read: (range, { chain }) => read(ctx.store, chain, range) as Promise<Map<string, { day: string } & Record<string, unknown>>>,
    missingDay: series.missingDay === 'zero' ? { zero } : series.missingDay,
    // Only the declared fields, in their order.
    items: (rows) => rows.map((r) => ({ day: r.day, ...Object.fromEntries(fields.map(([name]) => [name, (r as Record<string, unknown>)[name]])) })),
  });
}

const caches = new WeakMap<ApiContext, Map<string, { expires: number; value: Promise<unknown> }>>();

/** `compute()`'s answer, kept per app for `seconds` (one computation however many requests wait for it). */
export function cached<T>(ctx: ApiContext, key: string, seconds: number, compute: () => Promise<T>): Promise<T> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map()));
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.expires > now) return hit.value as Promise<T>;
  // Keys that name a block go stale with the next one: drop expired answers as the map grows.
  if (cache.size >= 64) for (const [k, v] of cache) if (v.expires <= now) cache.delete(k);
  const value = compute();
  cache.set(key, { expires: now + seconds * 1000, value });
  value.catch(() => cache.delete(key));
  return value;
}
