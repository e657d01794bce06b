/**
 * The list route, written once. `listRoute` mounts a GET route whose answer is a list from its
 * declaration: the path and operation, the path and query parameters, how it pages, the item
 * schema, the fields it echoes and a `read` that returns one page of items. The factory does the
 * rest the same way for every list: the paging parameters with their bounds and defaults, the
 * cursor (opaque, bound to the query it came from: params/cursor.ts), the list envelope in the
 * spec's names (spec section 3, item 7), CSV (plugins/csv.ts marks it from `config.csv`), and the
 * OpenAPI entry. Freshness headers, ETags, the answer cache and the deadline come from the plugins
 * every /api/v1 route has.
 *
 * Paging styles, as the spec names them per route:
 * - `offset`: `limit` and `offset`; the envelope has `total`, `limit`, `offset`, `has_next`,
 *   `has_prev` and `next_cursor` (always null);
 * - `page`: `page` and `page_size`; the envelope has `total`, `page`, `page_size`, `total_pages`;
 * - `cursor`: `cursor` and `limit`, keyset pages at constant cost at any depth; the envelope has
 *   `limit`, `next_cursor`, `has_more` and `total` (null where counting would cost more than the
 *   page). The read returns the key of its last item, which the factory seals into `next_cursor`;
 * - `top`: `limit` only, the first items of a ranking; the envelope has `count` (unless the spec's
 *   answer has none);
 * - `all`: no paging parameter, a list bounded by what it is (a window's days); the envelope has
 *   `count`.
 */
import { Type, type Static, type TObject, type TProperties, type TSchema } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { ApiContext, RouteApp } from '../context.ts';
import { invalidParam } from '../problem.ts';
import { IntegerQuery, Nullable, problemResponse, STANDARD_ERRORS } from '../schemas/common.ts';

/** A keyset position: what a cursor holds. */
export type CursorKey = readonly (string | number)[];

export type Paging =
  | { style: 'offset'; maxLimit: number; defaultLimit: number }
  | { style: 'page'; maxSize: number; defaultSize: number }
  | { style: 'cursor'; maxLimit: number; defaultLimit: number; keyLength: number }
  | { style: 'top'; maxLimit: number; defaultLimit: number; noun: string; count?: boolean }
  | { style: 'all' };

/** What a read is asked for: a window of rows by offset, or the rows after a key. */
export type PageRequest = { limit: number; offset: number; after?: undefined } | { limit: number; offset?: undefined; after: CursorKey | null };

export interface ListPage<I> {
  items: I[];
  /** Every row of the list (under the same filters), or null where the route does not count them. */
  total: number | null;
  /** Cursor lists: whether rows follow, and the key of the last item. */
  hasMore?: boolean;
  lastKey?: CursorKey | null;
}

export interface ListRouteInput<Pm, Q> {
  params: Pm;
  query: Q;
  request: FastifyRequest;
}

/** What `prepare` returns: the read's own context and the echoed fields. */
export type Prepared<C, E extends TProperties> = C & { echo: Static<TObject<E>> };

export interface ListRoute<Pm extends TObject, Q extends TProperties, I extends TSchema, E extends TProperties, C> {
  /** Relative to the group's prefix, Fastify style (`/:address/slaves`). */
  path: string;
  tags: readonly string[];
  operationId: string;
  summary: string;
  params: Pm;
  /** The route's own query parameters, besides paging. */
  query?: Q;
  paging: Paging;
  item: I;
  /** What orders the items (the `items` description). */
  order: string;
  /** What `total` counts (every style but `top`). */
  totalDescription?: string;
  /** The fields the answer echoes (chain, network, address, filters), in the envelope after paging. */
  echo: E;
  /**
   * From the request to what the read needs and the echoed fields: parses what the schema cannot
   * (addresses, enumerations per chain) into values, or throws a 400 naming the parameter. It may
   * read the store (a promise): a list of one thing (a block's transactions) finds that thing here,
   * throws a 404 when it does not exist, and binds cursors to it through `cursorScope`.
   */
  prepare(ctx: ApiContext, input: ListRouteInput<Static<Pm>, Static<TObject<Q>>>): Prepared<C, E> | Promise<Prepared<C, E>>;
  /** Cursor lists: everything that selects the rows, so that a cursor cannot be replayed against other filters. */
  cursorScope?(prepared: C): string;
  read(ctx: ApiContext, prepared: C, page: PageRequest): Promise<ListPage<Static<I>>>;
  /** When the 404 answers more than an unknown chain (a list of one block: no such block), what it says. */
  notFound?: string;
  /** Route config beside `csv` (documentedDefaults, snapshotCache). */
  config?: Record<string, unknown>;
}

/**
 * A cursor page from the rows a read fetched past the cursor (`limit + 1` of them at most): the first
 * `limit` as items, whether rows follow, and the key of the last item.
 */
export function keysetPage<R, I>(rows: readonly R[], limit: number, total: number | null, item: (row: R) => I, key: (row: R) => CursorKey): ListPage<I> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(item), total, hasMore: rows.length > limit, lastKey: last === undefined ? null : key(last) };
}

const CURSOR_PARAM = Type.String({ maxLength: 512, description: 'Opaque token from a previous next_cursor, passed back unchanged; omitted = the first page.' });

function pagingQuery(paging: Paging): TProperties {
  switch (paging.style) {
    case 'offset':
      return {
        limit: IntegerQuery({ minimum: 1, maximum: paging.maxLimit, default: paging.defaultLimit, description: `Items per page (1 to ${paging.maxLimit}).` }),
        offset: IntegerQuery({ minimum: 0, default: 0, description: 'Items skipped.' }),
      };
    case 'page':
      return {
        page: IntegerQuery({ minimum: 1, default: 1, description: 'Page number, from 1.' }),
        page_size: IntegerQuery({ minimum: 1, maximum: paging.maxSize, default: paging.defaultSize, description: `Items per page (1 to ${paging.maxSize}).` }),
      };
    case 'cursor':
      return {
        cursor: Type.Optional(CURSOR_PARAM),
        limit: IntegerQuery({ minimum: 1, maximum: paging.maxLimit, default: paging.defaultLimit, description: `Items per page (1 to ${paging.maxLimit}).` }),
      };
    case 'all':
      return {};
    case 'top':
      return { limit: IntegerQuery({ minimum: 1, maximum: paging.maxLimit, default: paging.defaultLimit, description: `Most ${paging.noun} returned (1 to ${paging.maxLimit}).` }) };
  }
}

function pagingEnvelope(paging: Paging, totalDescription = 'Items of the whole list.'): TProperties {
  const count = Type.Integer({ description: 'Number of items in this page.' });
  switch (paging.style) {
    case 'offset':
      return {
        count,
        total: Type.Integer({ description: totalDescription }),
        limit: Type.Integer(),
        offset: Type.Integer(),
        has_next: Type.Boolean(),
        has_prev: Type.Boolean(),
        next_cursor: Nullable(Type.String({ description: 'Always null: this list pages by offset.' })),
      };
    case 'page':
      return {
        count,
        total: Type.Integer({ description: totalDescription }),
        page: Type.Integer(),
        page_size: Type.Integer(),
        total_pages: Type.Integer({ description: 'ceil(total / page_size); 0 when there is nothing.' }),
      };
    case 'cursor':
      return {
        count,
        limit: Type.Integer(),
        next_cursor: Nullable(Type.String({ description: 'Pass back as cursor for the next page; null on the last page.' })),
        has_more: Type.Boolean({ description: 'Whether items follow this page.' }),
        total: Nullable(Type.Integer({ description: totalDescription })),
      };
    case 'top':
      return paging.count === false ? {} : { count: Type.Integer({ description: 'Number of items.' }) };
    case 'all':
      return { count: Type.Integer({ description: 'Number of items.' }) };
  }
}

/** The 200 schema of a list route: items, the paging envelope, the echoed fields. */
export function listResponse(route: Pick<ListRoute<TObject, TProperties, TSchema, TProperties, unknown>, 'item' | 'order' | 'paging' | 'totalDescription' | 'echo'>): TObject {
  return Type.Object({
    items: Type.Array(route.item, { description: route.order }),
    ...pagingEnvelope(route.paging, route.totalDescription),
    ...route.echo,
  });
}

function decodeCursor(ctx: ApiContext, scope: string, token: string, keyLength: number): CursorKey {
  const key = ctx.cursors.decode(scope, token);
  if (key.length !== keyLength) throw invalidParam('cursor', 'is not a cursor returned by this query; pass next_cursor back unchanged');
  return key;
}

export function listRoute<Pm extends TObject, Q extends TProperties, I extends TSchema, E extends TProperties, C>(
  app: RouteApp,
  ctx: ApiContext,
  route: ListRoute<Pm, Q, I, E, C>,
): void {
  const { paging } = route;
  const querystring = Type.Object({ ...(route.query ?? {}), ...pagingQuery(paging) });
  const scopeOf = (prepared: C) => `${route.operationId}|${route.cursorScope?.(prepared) ?? ''}`;
  app.get(
    route.path,
    {
      config: { csv: {}, ...route.config },
      schema: {
        tags: [...route.tags],
        operationId: route.operationId,
        summary: route.summary,
        params: route.params,
        querystring,
        response: { 200: listResponse(route), ...STANDARD_ERRORS, ...(route.notFound ? { 404: problemResponse(route.notFound) } : {}) },
      },
    },
    async (request) => {
      const query = request.query as Record<string, unknown>;
      const prepared = await route.prepare(ctx, { params: request.params as Static<Pm>, query: query as Static<TObject<Q>>, request });
      const { echo } = prepared;
      switch (paging.style) {
        case 'offset': {
          const limit = query.limit as number;
          const offset = query.offset as number;
          const page = await route.read(ctx, prepared, { limit, offset });
          const total = page.total ?? 0;
          return { items: page.items, count: page.items.length, total, limit, offset, has_next: offset + page.items.length < total, has_prev: offset > 0, next_cursor: null, ...echo };
        }
        case 'page': {
          const size = query.page_size as number;
          const number = query.page as number;
          const page = await route.read(ctx, prepared, { limit: size, offset: (number - 1) * size });
          const total = page.total ?? 0;
          return { items: page.items, count: page.items.length, total, page: number, page_size: size, total_pages: Math.ceil(total / size), ...echo };
        }
        case 'cursor': {
          const limit = query.limit as number;
          const scope = scopeOf(prepared);
          const after = typeof query.cursor === 'string' && query.cursor !== '' ? decodeCursor(ctx, scope, query.cursor, paging.keyLength) : null;
          const page = await route.read(ctx, prepared, { limit, after });
          const hasMore = page.hasMore ?? false;
          const next = hasMore && page.lastKey ? ctx.cursors.encode(scope, page.lastKey) : null;
          return { items: page.items, count: page.items.length, limit, next_cursor: next, has_more: hasMore, total: page.total, ...echo };
        }
        case 'all': {
          const page = await route.read(ctx, prepared, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
          return { items: page.items, count: page.items.length, ...echo };
        }
        case 'top': {
          const page = await route.read(ctx, prepared, { limit: query.limit as number, offset: 0 });
          return { items: page.items, ...(paging.count === false ? {} : { count: page.items.length }), ...echo };
        }
      }
    },
  );
}
