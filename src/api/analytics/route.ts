/**
 * The analytics route, written once. `analyticsRoute` mounts a route from its declaration: path,
 * operation, query, response and a handler that receives the parsed query and the chain (default
 * pos). `chartSeries` mounts every daily series of the spec from its chart's declaration
 * (rollups/engine/rollup.ts, `ChartSeries`): the chain and window parameters, the window, the
 * chart's rows of it (the open day included), what a day without a row answers, the items, the
 * empty answer and the list envelope. Definitions: docs/metrics.md, "Analytics conventions".
 *
 * Every route whose answer is a list (`items`) exports CSV too (plugins/csv.ts, docs/exports.md):
 * `analyticsRoute` marks it, so every daily series and list is marked here.
 */
import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import type { ChainId } from '../../chain/chains.ts';
import type { ChainNetwork } from '../../chain/network.ts';
import type { AnyChartSeries, Chart, SeriesLive, SeriesParam, SeriesRequest, SeriesValue } from '../../rollups/engine/rollup.ts';
import { withoutDeadline, type Db } from '../../store/store.ts';
import type { ApiContext, RouteApp } from '../context.ts';
import type { CsvExport } from '../plugins/csv.ts';
import { networkOf, storeStateOf } from '../plugins/freshness.ts';
import { Amount, Day, Nullable, STANDARD_ERRORS, WindowQuery } from '../schemas/common.ts';
import { AnalyticsChain, chainSpan, fillDays, spanDays, windowDaysOf, windowRange, type DaySpan, type MissingDay } from './series.ts';

export interface RouteInput<Q, Pm = Static<TObject>> {
  query: Q;
  params: Pm;
  /** The `chain` parameter, pos when absent (and on a route without one). */
  chain: ChainId;
  /** The database snapshot the request is answered from (plugins/freshness.ts). */
  snapshot: string | undefined;
  /** Each chain's network facts (slot time, address width) as of that snapshot; the defaults outside /api/v1. */
  networks: Readonly<Record<ChainId, ChainNetwork>>;
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
      const networks = { pow: networkOf(request, 'pow'), pos: networkOf(request, 'pos') };
      return route.handler({ query, params: (request.params ?? {}) as Static<Pm>, chain: query.chain ?? 'pos', snapshot: storeStateOf(request)?.snapshot, networks });
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


/** The chain's blocks' first and latest day: the span of every series that does not declare its own. */
async function blockSpan(db: Db, chain: ChainId): Promise<DaySpan | null> {
  const span = await chainSpan(db, chain);
  return span && spanDays(span);
}

/** The JSON schema of a series value (rollups/engine/rollup.ts, `SeriesValue`). */
function valueSchema(value: SeriesValue): TSchema {
  const described = value.description === undefined ? {} : { description: value.description };
  let schema: TSchema;
  switch (value.kind) {
    case 'integer':
      schema = Type.Integer({ ...(value.minimum === undefined ? {} : { minimum: value.minimum }), ...(value.maximum === undefined ? {} : { maximum: value.maximum }), ...described });
      break;
    case 'number':
      schema = Type.Number(described);
      break;
    case 'amount':
      schema = { ...Amount, ...described };
      break;
    case 'day':
      schema = { ...Day, ...described };
      break;
    case 'string':
      schema = Type.String({ ...described, ...(value.examples ? { examples: [...value.examples] } : {}) });
      break;
    case 'list': {
      const of = value.of as SeriesValue | Readonly<Record<string, SeriesValue>>;
      const item = typeof of.kind === 'string' ? valueSchema(of as SeriesValue) : Type.Object(valuesSchema(of as Readonly<Record<string, SeriesValue>>));
      return Type.Array(item, described);
    }
  }
  return value.nullable ? Nullable(schema) : schema;
}

const valuesSchema = (values: Readonly<Record<string, SeriesValue>>): TProperties =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, valueSchema(value)]));

/** A series' query: the chain (unless pos only), its extra parameters, then the window. */
function seriesQuery(series: AnyChartSeries): TObject {
  const params = Object.entries(series.params ?? {}).map(([name, p]: [string, SeriesParam]) => [
    name,
    Type.Optional(Type.Number({
      ...(p.exclusiveMinimum === undefined ? {} : { exclusiveMinimum: p.exclusiveMinimum }),
      ...(p.maximum === undefined ? {} : { maximum: p.maximum }),
      description: p.description,
    })),
  ]);
  return Type.Object({
    ...(series.chain === 'pos' ? {} : { chain: AnalyticsChain }),
    ...Object.fromEntries(params),
    window: WindowQuery(series.window, `Window: whole UTC days ending with ${series.span?.of ?? 'the latest block’s day'} (a length rounds up to days)`),
  });
}

/**
 * Mounts a chart's series (`Chart.series`): the chain and window parameters (and the series' own),
 * the window as whole UTC days ending with the series' latest day, the chart's rows of the window
 * (`Chart.read`, the open day included, unless the series reads its own), the missing days, the
 * items and the list envelope; an empty answer before the chain's first block.
 */
export function chartSeries(app: RouteApp, ctx: ApiContext, chart: Chart, live: (chain: ChainId) => SeriesLive): void {
  for (const series of chart.series ?? []) mountSeries(app, ctx, series, chart.read, live);
}

type Row = { day: string } & Record<string, unknown>;

function mountSeries(app: RouteApp, ctx: ApiContext, series: AnyChartSeries, chartRead: Chart['read'], live: (chain: ChainId) => SeriesLive): void {
  const fields = Object.keys(series.fields);
  const response = Type.Object({
    items: Type.Array(Type.Object({ day: Day, ...valuesSchema(series.fields) }), { description: series.itemsDescription }),
    ...Object.fromEntries(Object.entries(series.envelope).map(([name, value]) => [name, value === true ? ENVELOPE[name as EnvelopeField] : valueSchema(value)])),
  });
  const missing: MissingDay<Row> =
    series.missingDay === 'zero'
      ? { zero: (day) => ({ day, ...Object.fromEntries(Object.entries(series.fields).map(([name, f]) => [name, f.kind === 'amount' ? '0' : 0])) }) }
      : series.missingDay;
  const read = series.read ?? ((r: SeriesRequest) => chartRead!(r.db, r.chain, r.range) as Promise<Map<string, Row>>);
  // Only the declared fields, in their order.
  const items = series.items ?? ((rows: Row[]) => rows.map((r) => ({ day: r.day, ...Object.fromEntries(fields.map((name) => [name, r[name]])) })));
  const span = series.span?.read ?? blockSpan;
  analyticsRoute(app, {
    path: series.path,
    operationId: series.operationId,
    summary: series.summary,
    query: seriesQuery(series),
    response,
    ...(series.cacheSeconds ? { config: { cacheSeconds: series.cacheSeconds } } : {}),
    handler: async (input) => {
      const { chain } = input;
      const days = windowDaysOf((input.query as { window?: string }).window, { fallback: series.window });
      const { window: _window, chain: _chain, ...params } = input.query as Record<string, unknown>;
      const request: SeriesRequest = { db: ctx.store, chain, range: { from: '', to: '', days, clipped: false }, span: { first: '', last: '' }, params, prepared: undefined, live: live(chain) };
      const [first, prepared] = await Promise.all([!series.chains || series.chains.includes(chain) ? span(ctx.store, chain) : null, series.prepare?.(request)]);
      const range = first && windowRange(first, days);
      Object.assign(request, { prepared, ...(first && range ? { span: first, range } : {}) });
      const answer = async () => {
        const list: unknown[] = range ? await items(fillDays(range, await read(request), missing), request) : [];
        const common: Record<EnvelopeField, unknown> = { count: list.length, chain, network: ctx.network(chain), window_days: days, days };
        const body: Record<string, unknown> = { items: list };
        for (const name of Object.keys(series.envelope)) if (name in common) body[name] = common[name as EnvelopeField];
        return { ...body, ...series.extra?.(list, request) } as Static<typeof response>;
      };
      if (!series.cacheSeconds) return answer();
      return cached(ctx, `${series.path}:${chain}:${days}:${range?.to}`, series.cacheSeconds, answer);
    },
  });
}

const caches = new WeakMap<ApiContext, Map<string, { expires: number; value: Promise<unknown> }>>();

/**
 * `compute()`'s answer, kept per app for `seconds` (one computation however many requests wait for
 * it). The computation serves every request that waits for it, so it runs outside the deadline of
 * the request that started it (store.ts, `withoutDeadline`): a first request short of time must not
 * fail it for the others. The requests' own statements keep their deadlines.
 */
export function cached<T>(ctx: ApiContext, key: string, seconds: number, compute: () => Promise<T>): Promise<T> {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new Map()));
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.expires > now) return hit.value as Promise<T>;
  // Keys that name a block go stale with the next one: drop expired answers as the map grows.
  if (cache.size >= 64) for (const [k, v] of cache) if (v.expires <= now) cache.delete(k);
  const value = withoutDeadline(compute);
  cache.set(key, { expires: now + seconds * 1000, value });
  value.catch(() => cache.delete(key));
  return value;
}

/** How long the figures of one database snapshot are kept by `perSnapshot`: a commit makes a new key before then. */
const SNAPSHOT_SECONDS = 60;

/**
 * `compute()`'s figures for the request's database snapshot (`RouteInput.snapshot`), computed once
 * per snapshot: for a route that reads the clock besides (`generated_at`), which the snapshot cache
 * cannot keep whole, so that it adds the clock's part at every request to figures read once a block.
 */
export function perSnapshot<T>(ctx: ApiContext, snapshot: string | undefined, key: string, compute: () => Promise<T>): Promise<T> {
  return snapshot === undefined ? compute() : cached(ctx, `${key}@${snapshot}`, SNAPSHOT_SECONDS, compute);
}
