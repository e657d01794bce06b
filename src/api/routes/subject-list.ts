/**
 * Lists of one subject's items: a block's transactions, a token's holders, a validator's days. The
 * subject is named in the path and found first (or a 404); its group declares once how
 * (`ListSubject`: BLOCK_LIST, TOKEN_LIST, VALIDATOR_LIST), and each route declares only what is its
 * own. Two kinds, both mounted by `listRoute`:
 * - `subjectRowsRoute`: the subject's rows a keyset page at a time (limit 1 to 100, default 25), the
 *   cursor bound to the subject;
 * - `subjectDaysRoute`: the subject's series per UTC day within a `window`, all at once.
 */
import type { Static, TObject, TProperties, TSchema } from 'typebox';
import type { ApiContext, RouteApp } from '../context.ts';
import { parseWindow } from '../params/window.ts';
import { WindowQuery } from '../schemas/common.ts';
import { keysetPage, listRoute, type ListRouteInput } from './list-route.ts';

/** How a group's lists of one subject name it, echo it and find it. */
export interface ListSubject<Pm extends TObject, E extends TProperties, C extends { echo: Static<TObject<E>> }> {
  tags: readonly string[];
  params: Pm;
  echo: E;
  /** What the 404 says: no such subject. */
  notFound: string;
  prepare(ctx: ApiContext, input: ListRouteInput<Static<Pm>, unknown>): Promise<C>;
  /** What binds a cursor to the subject (its id; a block's hash, which a reorg replaces). */
  cursorScope(prepared: C): string;
}

/** A keyset's positions, in the order the rows are sorted: integers or text. */
export type KeyPart = 'int' | 'text';
export type KeyOf<K extends readonly KeyPart[]> = { readonly [P in keyof K]: K[P] extends 'int' ? number : string };

export interface SubjectRows<C, R, I extends TSchema, K extends readonly KeyPart[]> {
  path: string;
  operationId: string;
  summary: string;
  item: I;
  order: string;
  totalDescription: string;
  /** The keyset the rows are sorted by, as the cursor holds it. */
  key: K;
  /** Up to `count` rows after the key `after` (from the first when null), and how many the subject has in all. */
  rows(ctx: ApiContext, prepared: C, after: KeyOf<K> | null, count: number): Promise<{ rows: R[]; total: number | null }>;
  toItem(row: R, prepared: C): Static<I>;
  keyOf(row: R): KeyOf<K>;
}

/** A list of one subject's rows in the order of their keyset, a cursor page at a time. */
export function subjectRowsRoute<Pm extends TObject, E extends TProperties, C extends { echo: Static<TObject<E>> }, R, I extends TSchema, const K extends readonly KeyPart[]>(
  app: RouteApp,
  ctx: ApiContext,
  subject: ListSubject<Pm, E, C>,
  route: SubjectRows<C, R, I, K>,
): void {
  const { key } = route;
  listRoute(app, ctx, {
    ...subject,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: key.length },
    item: route.item,
    order: route.order,
    totalDescription: route.totalDescription,
    async read(ctx, prepared, { limit, after }) {
      const decoded = after ? (key.map((part, i) => (part === 'int' ? Number(after[i]) : String(after[i]))) as unknown as KeyOf<K>) : null;
      const { rows, total } = await route.rows(ctx, prepared, decoded, limit + 1);
      return keysetPage(rows, limit, total, (row) => route.toItem(row, prepared), route.keyOf);
    },
  });
}

export interface SubjectDays<C, I extends TSchema, E extends TProperties> {
  path: string;
  operationId: string;
  summary: string;
  /** The `window` parameter: its default (a length or `all`) and description. */
  window: { fallback: string; description: string };
  item: I;
  order: string;
  /**
   * The echoed fields, in the order the answer lists them: the subject's and `window_days`, the
   * window's length in days (null for `all`).
   */
  echo: E;
  /** The subject's days within the window (`echo.window_days`, null for all of them), oldest first. */
  days(ctx: ApiContext, prepared: C & { echo: { window_days: number | null } }): Promise<Static<I>[]>;
}

/** A series of one subject per UTC day, within a window up to the latest day. */
export function subjectDaysRoute<Pm extends TObject, SE extends TProperties, C extends { echo: Static<TObject<SE>> }, I extends TSchema, E extends TProperties>(
  app: RouteApp,
  ctx: ApiContext,
  subject: ListSubject<Pm, SE, C>,
  route: SubjectDays<C, I, E>,
): void {
  const { fallback, description } = route.window;
  listRoute(app, ctx, {
    tags: subject.tags,
    params: subject.params,
    notFound: subject.notFound,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    query: { window: WindowQuery(fallback, description, { allowAll: true }) },
    paging: { style: 'all' },
    item: route.item,
    order: route.order,
    echo: route.echo,
    async prepare(ctx, input) {
      const window = parseWindow(input.query.window, { fallback, allowAll: true });
      const prepared = await subject.prepare(ctx, input);
      // `route.echo` declares the subject's echoed fields and window_days: what the types cannot tie together.
      return { ...prepared, echo: { ...prepared.echo, window_days: window.days } } as C & { echo: Static<TObject<E>> & { window_days: number | null } };
    },
    read: async (ctx, prepared) => ({ items: await route.days(ctx, prepared), total: null }),
  });
}
