/**
 * CSV exports (docs/exports.md). A route marked `config.csv` (every daily series and list: the
 * analytics route factory marks those whose answer has `items`, the Addresses lists mark
 * themselves) answers `text/csv` to a request whose Accept header prefers it. The columns come
 * from the item schema of the route's 200 response, once, when the route is registered; the rows
 * are the items the handler returned, written to a stream a chunk at a time. Paging stays the
 * route's own: the next page is named in a `Link: <…>; rel="next"` header (and the cursor of a
 * cursor-paged list in `Quarry-Next-Cursor`), since a CSV body has no envelope.
 *
 * A CSV answer is not kept by the snapshot cache (it is a stream, and the cache keeps JSON per
 * URL), carries no ETag, and is compressed like any other answer. Every answer of such a route
 * says `Vary: Accept`, so no cache hands the JSON to a CSV request or the reverse.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers text/csv too (plugins/csv.ts). */
    csv?: CsvExport;
  }
}

export interface CsvExport {
  /**
   * The arrays of the 200 body whose elements are the CSV's rows, one after the other, all of one
   * item schema; `items` unless given.
   */
  rows?: readonly string[];
}

export const CSV_MEDIA_TYPE = 'text/csv';
const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8; header=present';

type Schema = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Negotiation

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** The media ranges of an Accept header (RFC 9110, 12.5.1); malformed elements are skipped. */
function mediaRanges(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const element of header.split(',')) {
    const [range, ...params] = element.split(';').map((part) => part.trim());
    const match = /^([a-z0-9!#$%&'*+.^_`|~-]+)\/([a-z0-9!#$%&'*+.^_`|~-]+)$/i.exec(range ?? '');
    if (!match) continue;
    let q = 1;
    for (const param of params) {
      const qv = /^q\s*=\s*([01](?:\.[0-9]{0,3})?)$/i.exec(param);
      if (qv) q = Math.min(1, Number(qv[1]));
    }
    ranges.push({ type: match[1]!.toLowerCase(), subtype: match[2]!.toLowerCase(), q });
  }
  return ranges;
}

/**
 * How much the client wants `media`: the quality of the most specific range matching it (an exact
 * type, then `type/*`, then `*\/*`), and that specificity (2, 1, 0), or null when nothing matches.
 */
function preference(ranges: MediaRange[], media: string): { q: number; specificity: number } | null {
  const [type, subtype] = media.split('/');
  let best: { q: number; specificity: number } | null = null;
  for (const r of ranges) {
    const specificity = r.type === type && r.subtype === subtype ? 2 : r.type === type && r.subtype === '*' ? 1 : r.type === '*' && r.subtype === '*' ? 0 : -1;
    if (specificity < 0 || (best && best.specificity >= specificity)) continue;
    best = { q: r.q, specificity };
  }
  return best;
}

/**
 * Whether the request prefers CSV to JSON: CSV's quality is higher, or equal and named more
 * specifically (`text/csv, *\/*`). No Accept header, `*\/*`, a tie, or a header that accepts
 * neither: JSON, the API's answer as it always was.
 */
export function prefersCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = mediaRanges(accept);
  const csv = preference(ranges, CSV_MEDIA_TYPE);
  if (!csv || csv.q === 0) return false;
  const json = preference(ranges, 'application/json');
  if (!json || json.q === 0) return true;
  return csv.q > json.q || (csv.q === json.q && csv.specificity > json.specificity);
}

const decisions = new WeakMap<FastifyRequest, boolean>();

/** Whether this request is answered as CSV: its route exports CSV and its Accept header prefers it. */
export function wantsCsv(request: FastifyRequest): boolean {
  let csv = decisions.get(request);
  if (csv === undefined) {
    csv = Boolean(request.routeOptions.config.csv) && prefersCsv(request.headers.accept);
    decisions.set(request, csv);
  }
  return csv;
}

// ---------------------------------------------------------------------------------------------
// Columns

export interface CsvColumn {
  /** The header: the field's name, `parent.child` for a field of a nested object. */
  name: string;
  path: string[];
  schema: Schema;
}

/** The object schema of `schema` if it is one (or one or null): its fields become columns. */
function objectBranch(schema: Schema): Schema | undefined {
  if (schema.properties && typeof schema.properties === 'object') return schema;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (!branches) return undefined;
  const objects = branches.filter((b) => b.properties);
  const others = branches.filter((b) => !b.properties);
  return objects.length === 1 && others.every((b) => b.type === 'null') ? objects[0] : undefined;
}

/** The columns of an item schema: its fields in order, nested objects flattened as `parent.child`. */
export function csvColumns(item: Schema, prefix: string[] = []): CsvColumn[] {
  const object = objectBranch(item);
  if (!object) throw new Error(`CSV rows must be objects; got ${JSON.stringify(item)}`);
  return Object.entries(object.properties as Record<string, Schema>).flatMap(([name, field]) => {
    const path = [...prefix, name];
    return objectBranch(field) ? csvColumns(field, path) : [{ name: path.join('.'), path, schema: field }];
  });
}

/** The JSON types a schema allows. */
function typesOf(schema: Schema): Set<string> {
  const types = new Set<string>();
  const type = schema.type;
  if (typeof type === 'string') types.add(type);
  else if (Array.isArray(type)) for (const t of type) types.add(String(t));
  for (const branch of ((schema.anyOf ?? schema.oneOf) as Schema[] | undefined) ?? []) for (const t of typesOf(branch)) types.add(t);
  return types;
}

/**
 * A value as its schema makes the JSON answer write it (fast-json-stringify): objects with their
 * declared fields only, in the schema's order; arrays item by item.
 */
function asSerialized(value: unknown, schema: Schema | undefined): unknown {
  if (value === null || typeof value !== 'object' || !schema) return value;
  if (Array.isArray(value)) return value.map((v) => asSerialized(v, schema.items as Schema | undefined));
  const object = objectBranch(schema);
  if (!object) return value;
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(object.properties as Record<string, Schema>)) {
    const v = (value as Record<string, unknown>)[name];
    if (v !== undefined) out[name] = asSerialized(v, field);
  }
  return out;
}

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function quoted(text: string): string {
  return text === '' || /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * One cell: null or an absent field is empty; an empty string is `""`, so the two stay apart;
 * numbers as the JSON answer writes them (an integer field truncated, a non-finite number null);
 * amounts are strings and stay the same decimal strings; arrays (and objects the schema does not
 * describe) are their JSON text.
 */
export function csvCell(value: unknown, schema: Schema): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return '';
    const types = typesOf(schema);
    if (types.has('string')) return quoted(String(value));
    return types.has('integer') && !types.has('number') ? String(Math.trunc(value)) : String(value);
  }
  return quoted(JSON.stringify(asSerialized(value, schema)));
}

function valueAt(item: unknown, path: string[]): unknown {
  let value = item;
  for (const name of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[name];
  }
  return value;
}

/** Rows are written in chunks of about this many characters. */
const CHUNK = 16 * 1024;

/** The CSV of `lists`' items, header row first, CRLF line ends, as a stream of chunks. */
export function csvStream(columns: CsvColumn[], lists: readonly unknown[][]): Readable {
  function* chunks(): Generator<string> {
    let chunk = columns.map((c) => quoted(c.name)).join(',') + '\r\n';
    for (const list of lists) {
      for (const item of list) {
        chunk += columns.map((c) => csvCell(valueAt(item, c.path), c.schema)).join(',') + '\r\n';
        if (chunk.length >= CHUNK) {
          yield chunk;
          chunk = '';
        }
      }
    }
    if (chunk) yield chunk;
  }
  return Readable.from(chunks(), { objectMode: false });
}

// ---------------------------------------------------------------------------------------------
// The table of a route

export interface CsvTable {
  rows: readonly string[];
  columns: CsvColumn[];
  paging: Paging;
}

/** How a list's next page is asked for: by the cursor it returns, by page number, by offset, or not at all. */
type Paging = 'cursor' | 'page' | 'offset' | null;

function pagingOf(query: Schema | undefined): Paging {
  const properties = (query?.properties ?? {}) as Record<string, unknown>;
  if ('cursor' in properties) return 'cursor';
  if ('page' in properties) return 'page';
  if ('offset' in properties && 'limit' in properties) return 'offset';
  return null;
}

/** The CSV a route's 200 schema makes: its rows' arrays, their columns, its paging. */
export function csvTable(response: Schema | undefined, query: Schema | undefined, config: CsvExport): CsvTable {
  const rows = config.rows ?? ['items'];
  const properties = (response?.properties ?? {}) as Record<string, Schema>;
  let columns: CsvColumn[] | undefined;
  for (const name of rows) {
    const array = properties[name];
    if (array?.type !== 'array' || !array.items) throw new Error(`a CSV route's 200 body needs the array ${name}`);
    const these = csvColumns(array.items as Schema);
    if (columns && JSON.stringify(these.map((c) => c.name)) !== JSON.stringify(columns.map((c) => c.name))) {
      throw new Error(`the CSV rows ${rows.join(', ')} have different columns`);
    }
    columns ??= these;
  }
  return { rows, columns: columns!, paging: pagingOf(query) };
}

/** The query of the next page, or null on the last page (or a list of one page). */
function nextPage(table: CsvTable, query: Record<string, unknown>, body: Record<string, unknown>, count: number): Record<string, string> | null {
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : null);
  switch (table.paging) {
    case 'cursor': {
      // A given offset wins over a cursor, so the next page's query leaves it out.
      const cursor = body.next_cursor;
      return typeof cursor === 'string' && cursor !== '' ? { cursor, offset: '' } : null;
    }
    case 'page': {
      const page = int(query.page) ?? 1;
      const size = int(query.page_size) ?? count;
      const more =
        typeof body.has_next === 'boolean'
          ? body.has_next
          : int(body.total_pages) !== null
            ? page < int(body.total_pages)!
            : int(body.total) !== null && page * size < int(body.total)!;
      return more ? { page: String(page + 1) } : null;
    }
    case 'offset': {
      const offset = int(query.offset) ?? 0;
      const limit = int(query.limit) ?? count;
      const more =
        typeof body.has_next === 'boolean'
          ? body.has_next
          : typeof body.has_more === 'boolean'
            ? body.has_more
            : int(body.total) !== null && offset + count < int(body.total)!;
      return more ? { offset: String(offset + limit) } : null;
    }
    default:
      return null;
  }
}

/** `url` with `changes` made to its query (an empty value removes the parameter). */
function withQuery(url: string, changes: Record<string, string>): string {
  const at = url.indexOf('?');
  const path = at < 0 ? url : url.slice(0, at);
  const params = new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
  for (const [name, value] of Object.entries(changes)) {
    if (value === '') params.delete(name);
    else params.set(name, value);
  }
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

export const NEXT_CURSOR_HEADER = 'Quarry-Next-Cursor';

function sendCsv(request: FastifyRequest, reply: FastifyReply, table: CsvTable, operationId: string, body: Record<string, unknown>): FastifyReply {
  const lists = table.rows.map((name) => (Array.isArray(body[name]) ? (body[name] as unknown[]) : []));
  const next = nextPage(table, request.query as Record<string, unknown>, body, lists.reduce((n, l) => n + l.length, 0));
  if (next) {
    reply.header('link', `<${withQuery(request.url, next)}>; rel="next"`);
    if (next.cursor) reply.header(NEXT_CURSOR_HEADER, next.cursor);
  }
  return reply
    .type(CSV_CONTENT_TYPE)
    .header('content-disposition', `attachment; filename="${operationId}.csv"`)
    .send(csvStream(table.columns, lists));
}

/** `Vary` with `value` added (once). */
function varyWith(current: unknown, value: string): string {
  const names = current === undefined ? [] : String(current).split(',').map((v) => v.trim()).filter(Boolean);
  return names.some((n) => n.toLowerCase() === value.toLowerCase()) ? names.join(', ') : [...names, value].join(', ');
}

const WRAPPED = Symbol('csv');

/**
 * Registers CSV exports on the routes of `app` registered after it: each route marked
 * `config.csv` gets its table from its schema and a handler that answers CSV when asked.
 */
export function registerCsv(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const config = route.config?.csv;
    if (!config || (route.handler as { [WRAPPED]?: boolean })[WRAPPED]) return;
    const schema = (route.schema ?? {}) as { response?: Record<string, Schema>; querystring?: Schema; operationId?: string };
    const table = csvTable(schema.response?.['200'] ?? schema.response?.[200], schema.querystring, config);
    const operationId = schema.operationId ?? 'export';
    const handler = route.handler;
    const wrapped: RouteHandlerMethod = async function (this: FastifyInstance, request, reply) {
      const body = await handler.call(this, request, reply);
      if (!wantsCsv(request) || reply.sent || body === reply || body === null || typeof body !== 'object') return body;
      return sendCsv(request, reply, table, operationId, body as Record<string, unknown>);
    };
    (wrapped as { [WRAPPED]?: boolean })[WRAPPED] = true;
    route.handler = wrapped;
  });

  // On every answer of an exporting route, the JSON ones and errors included.
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.csv) reply.header('vary', varyWith(reply.getHeader('vary'), 'Accept'));
  });
}

/**
 * The route's 200 answer as documented: JSON, and for an exporting route the CSV alternative,
 * with the response headers given.
 */
export function documentedResponse(response: Schema, query: Schema | undefined, config: { csv?: CsvExport } | undefined, headers: Record<string, Schema>): Schema {
  if (!config?.csv) return { ...response, headers };
  const table = csvTable(response, query, config.csv);
  const paging: Record<string, Schema> = {};
  if (table.paging) paging.Link = { type: 'string', description: 'CSV answers: `<URL of the next page>; rel="next"`, absent on the last page (docs/exports.md).' };
  if (table.paging === 'cursor') paging[NEXT_CURSOR_HEADER] = { type: 'string', description: 'CSV answers: the next page’s cursor (the JSON next_cursor), absent on the last page.' };
  return {
    description: typeof response.description === 'string' ? response.description : 'Default Response',
    headers: {
      ...headers,
      ...paging,
      'Content-Disposition': { type: 'string', description: `CSV answers: attachment; filename="<operationId>.csv".` },
    },
    content: {
      'application/json': { schema: response },
      [CSV_MEDIA_TYPE]: {
        schema: {
          type: 'string',
          description: `Sent when the Accept header prefers text/csv (docs/exports.md). RFC 4180 with a header row; columns: ${table.columns.map((c) => c.name).join(', ')}.`,
        },
      },
    },
  };
}
