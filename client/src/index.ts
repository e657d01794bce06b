/**
 * A typed client for the Quarry API: openapi-fetch over the types generated from the server's own
 * OpenAPI document (schema.ts), with the `/api/v1` prefix and the API key set once, problem details
 * as typed errors, and cursor pagination as an async iterator.
 */
import createClient from 'openapi-fetch';
import type { Client, Middleware } from 'openapi-fetch';
import type { components, paths } from './schema.ts';

/** The API's paths without their `/api/v1` prefix (the client adds it), as the client takes them. */
export type QuarryPaths = {
  [P in keyof paths as P extends `/api/v1/${infer Rest}` ? `/${Rest}` : never]: paths[P];
};

/** Every path the client can GET, e.g. `'/{chain}/addresses/{address}/transactions'`. */
export type QuarryPath = keyof QuarryPaths;

/** An RFC 9457 problem: how the API answers every error (`errors` names each bad parameter of a 400). */
export type Problem = components['schemas']['Problem'];

type Operation<P extends QuarryPath> = QuarryPaths[P]['get'];

/** The parameters of a path's GET: `path` and `query`, as the server documents them. */
export type QuarryParams<P extends QuarryPath> = Operation<P>['parameters'];

/** The JSON body of a path's 200 answer. */
export type QuarryResponse<P extends QuarryPath> = Operation<P>['responses'] extends { 200: { content: { 'application/json': infer Body } } } ? Body : never;

/**
 * The media types the client's results are typed by: JSON answers and problem details. An endpoint
 * that can also answer another type (CSV, say) is still typed by its JSON; ask for the other with
 * `parseAs: 'text'` or `'stream'`.
 */
export type QuarryMedia = 'application/json' | 'application/problem+json';

/** Paths paged by an opaque cursor: a `cursor` query parameter, and `items` with a `next_cursor` in the answer. */
export type CursorPath = {
  [P in QuarryPath]: 'cursor' extends keyof NonNullable<QuarryParams<P>['query']>
    ? QuarryResponse<P> extends { items: unknown[]; next_cursor: string | null }
      ? P
      : never
    : never;
}[QuarryPath];

/** One item of a cursor-paged list. */
export type PageItem<P extends CursorPath> = QuarryResponse<P> extends { items: (infer Item)[] } ? Item : never;

interface CursorPage<Item> {
  items: Item[];
  next_cursor: string | null;
}

/**
 * What `paginate` takes: the path parameters and the filters. No `cursor` (the iterator passes each
 * page's `next_cursor` on) and no `offset` (which takes precedence over a cursor on the server).
 */
export interface PaginateOptions<P extends CursorPath> {
  /** `path` only where the route has path parameters (`/pos/validators` has none). */
  params: ([NonNullable<QuarryParams<P>['path']>] extends [never] ? { path?: undefined } : { path: NonNullable<QuarryParams<P>['path']> }) & {
    query?: Omit<NonNullable<QuarryParams<P>['query']>, 'cursor' | 'offset'>;
  };
  /** Aborting it aborts the request in flight, and the loop ends with the abort's error. */
  signal?: AbortSignal;
}

export interface QuarryClientOptions {
  /** Where the server answers, e.g. `https://quarry.example.org`; `/api/v1` is added unless it is already there. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` on every request. */
  apiKey: string;
  /** A fetch of your own (tests, proxies, retries); `globalThis.fetch` by default. */
  fetch?: (input: Request) => Promise<Response>;
}

export interface QuarryClient extends Client<QuarryPaths, QuarryMedia> {
  /**
   * Every item of a cursor-paged list, page after page, each exactly once; the next page is asked
   * for only when the iteration reaches it. An error answer is thrown as a `QuarryError`.
   *
   * ```ts
   * for await (const tx of client.paginate('/{chain}/addresses/{address}/transactions', {
   *   params: { path: { chain: 'pos', address }, query: { limit: 100, direction: 'in' } },
   * })) console.log(tx.tx_hash, tx.value);
   * ```
   */
  paginate<P extends CursorPath>(path: P, options: PaginateOptions<P>): AsyncGenerator<PageItem<P>, void, undefined>;
}

/** An error answer of the API as an exception: what `unwrap` and `paginate` throw. */
export class QuarryError extends Error {
  /** HTTP status: 400 bad parameter, 401 missing or unknown key, 404, 429 rate limited, 503 store unavailable. */
  readonly status: number;
  /** Problem type, e.g. `/problems/invalid-parameter`. */
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  /** On a 400: each bad parameter and what is wrong with it. */
  readonly errors: NonNullable<Problem['errors']>;
  readonly problem: Problem;
  readonly response: Response;

  constructor(problem: Problem, response: Response) {
    super(`${problem.status} ${problem.title}: ${problem.detail}`);
    this.name = 'QuarryError';
    this.status = problem.status;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
    this.problem = problem;
    this.response = response;
  }
}

/** What a request resolves to (openapi-fetch's result): the answer's data, or its problem. */
export type QuarryResult<T> = { data: T; error?: never; response: Response } | { data?: never; error: Problem; response: Response };

/**
 * The data of a result, or its problem thrown as a `QuarryError`: for code that prefers exceptions.
 *
 * ```ts
 * const summary = unwrap(await client.GET('/{chain}/addresses/stats/summary', { params: { path: { chain: 'pos' } } }));
 * ```
 */
export function unwrap<T>(result: QuarryResult<T>): T {
  if (result.error !== undefined) throw new QuarryError(result.error, result.response);
  return result.data;
}

const API_PREFIX = '/api/v1';

export function createQuarryClient(options: QuarryClientOptions): QuarryClient {
  const root = options.baseUrl.replace(/\/+$/, '');
  const client = createClient<QuarryPaths, QuarryMedia>({
    baseUrl: root.endsWith(API_PREFIX) ? root : `${root}${API_PREFIX}`,
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(problemAnswers);

  async function* paginate<P extends CursorPath>(path: P, { params, signal }: PaginateOptions<P>): AsyncGenerator<PageItem<P>, void, undefined> {
    // The generic path defeats openapi-fetch's per-path inference; `paginate`'s own signature carries the types.
    const get = client.GET as unknown as (path: string, init: unknown) => Promise<QuarryResult<CursorPage<PageItem<P>>>>;
    let cursor: string | undefined;
    for (;;) {
      const query = cursor === undefined ? params.query : { ...params.query, cursor };
      const page = unwrap(await get(path, { params: { path: params.path, query }, signal }));
      yield* page.items;
      if (page.next_cursor === null) return;
      // A server answering the cursor it was given would loop forever.
      if (page.next_cursor === cursor) throw new Error(`${path}: the server answered the same cursor again`);
      cursor = page.next_cursor;
    }
  }

  return Object.assign(client, { paginate });
}

/**
 * Error answers whose body is not a problem (a proxy's HTML 502, an empty 503) become one, with the
 * status, the status text and the first 500 characters of the body: the typed `error` is then
 * always a `Problem`.
 */
const problemAnswers: Middleware = {
  async onResponse({ response }) {
    if (response.status < 400) return undefined;
    const text = await response.clone().text();
    try {
      const body: unknown = JSON.parse(text);
      if (isProblem(body)) return undefined;
    } catch {
      // Not JSON: answered as a problem below.
    }
    const problem: Problem = {
      type: 'about:blank',
      title: response.statusText || `HTTP ${response.status}`,
      status: response.status,
      detail: text.slice(0, 500),
    };
    const headers = new Headers(response.headers);
    headers.set('content-type', 'application/problem+json');
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(JSON.stringify(problem), { status: response.status, statusText: response.statusText, headers });
  },
};

function isProblem(body: unknown): body is Problem {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.status === 'number' && typeof b.title === 'string' && typeof b.type === 'string' && typeof b.detail === 'string';
}
