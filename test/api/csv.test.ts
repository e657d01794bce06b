/**
 * CSV exports (src/api/plugins/csv.ts, docs/exports.md). For every route of the OpenAPI document
 * whose answer is a list (an `items` array, or the rows arrays of the Addresses leaderboard and
 * the timeline), on the analytics world: the CSV answer of a request is its JSON answer's rows,
 * cell by cell, read with this file's own RFC 4180 parser; a paged list's CSV pages, followed by
 * their `Link` header, walk the same rows as its JSON pages; negotiation, errors and the snapshot
 * cache keep JSON and CSV apart.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import zlib from 'node:zlib';
import sql from 'sql-template-tag';
import { CHAINS } from '../../src/chain/chains.ts';
import { recordPollSuccess, writePending } from '../../src/ingest/pending-store.ts';
import { addr, hash } from '../support/chain-builder.ts';
import { loadAnalyticsWorld } from '../support/analytics-world.ts';
import { AUTH } from '../support/app.ts';
import { apiOperations, candidateAddresses, get, openApiDoc, requestsOf, resolved, type Candidates, type OpenApiDoc, type Operation } from '../support/api-routes.ts';
import { describeSeededApp } from '../support/seeded-app.ts';

// ---------------------------------------------------------------------------------------------
// An RFC 4180 reader, written here so that the test shares nothing with the writer.

interface Cell {
  text: string;
  /** The field was enclosed in double quotes (an empty quoted field is an empty string, not null). */
  quoted: boolean;
}

/** Records of a CSV text whose every record ends with CRLF; throws on anything RFC 4180 does not allow. */
function parseCsv(text: string): Cell[][] {
  const records: Cell[][] = [];
  let record: Cell[] = [];
  let i = 0;
  while (i < text.length) {
    let cell: Cell;
    if (text[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i++];
      }
      cell = { text: value, quoted: true };
    } else {
      let end = i;
      while (end < text.length && text[end] !== ',' && text[end] !== '\r' && text[end] !== '\n') {
        if (text[end] === '"') throw new Error(`a quote inside an unquoted field at ${end}`);
        end++;
      }
      cell = { text: text.slice(i, end), quoted: false };
      i = end;
    }
    record.push(cell);
    if (text[i] === ',') {
      i++;
    } else if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else {
      throw new Error(`expected a comma or CRLF at ${i}, found ${JSON.stringify(text.slice(i, i + 10))}`);
    }
  }
  if (record.length > 0) throw new Error('the last record does not end with CRLF');
  return records;
}

// ---------------------------------------------------------------------------------------------
// What the CSV of an answer must be, from the OpenAPI document and the JSON answer.

/** The arrays whose elements are a list's rows: `items`, or else every array of objects (the leaderboard's `addresses`, the timeline's points and preview). */
function rowArrays(doc: OpenApiDoc, body: Record<string, any>): string[] {
  const props = resolved(doc, body).properties as Record<string, Record<string, any>>;
  if (props.items?.type === 'array') return ['items'];
  return Object.entries(props)
    .filter(([, p]) => p.type === 'array' && resolved(doc, p.items ?? {}).properties)
    .map(([name]) => name);
}

/** The columns of an item schema: each field in order, a nested object's as `parent.child`. */
function expectedColumns(doc: OpenApiDoc, schema: Record<string, any>, prefix: string[] = []): string[][] {
  const s = resolved(doc, schema);
  const object = s.properties ? s : (s.anyOf ?? s.oneOf ?? []).find((b: Record<string, any>) => resolved(doc, b).properties);
  return Object.entries(resolved(doc, object).properties as Record<string, Record<string, any>>).flatMap(([name, field]) => {
    const f = resolved(doc, field);
    const nested = f.properties || (f.anyOf ?? f.oneOf ?? []).some((b: Record<string, any>) => resolved(doc, b).properties);
    return nested ? expectedColumns(doc, f, [...prefix, name]) : [[...prefix, name]];
  });
}

function at(item: unknown, path: string[]): unknown {
  let v = item;
  for (const name of path) v = v === null || v === undefined ? undefined : (v as Record<string, unknown>)[name];
  return v;
}

/** One cell against the JSON value: null is an empty unquoted cell, strings and numbers as JSON writes them, arrays as JSON text. */
function assertCell(cell: Cell | undefined, value: unknown, where: string): void {
  assert.ok(cell, `${where}: missing cell`);
  if (value === null || value === undefined) {
    assert.deepEqual(cell, { text: '', quoted: false }, `${where}: null is an empty unquoted cell`);
  } else if (typeof value === 'string') {
    assert.equal(cell.text, value, where);
    if (value === '' || /[",\r\n]/.test(value)) assert.ok(cell.quoted, `${where}: quoted`);
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    assert.equal(cell.text, JSON.stringify(value), where);
  } else {
    assert.deepEqual(JSON.parse(cell.text), value, `${where}: JSON text`);
  }
}

/** The CSV text against the JSON answer: the header row is the item schema's columns, then one record per row, field by field. */
function assertCsvOfJson(doc: OpenApiDoc, op: Operation, csv: string, json: Record<string, any>, where: string): number {
  const schema = op.responses['200']!.content!['application/json']!.schema;
  const arrays = rowArrays(doc, schema);
  const columns = expectedColumns(doc, resolved(doc, schema).properties[arrays[0]!].items);
  const records = parseCsv(csv);
  assert.deepEqual(
    records[0]?.map((c) => c.text),
    columns.map((c) => c.join('.')),
    `${where}: the header row`,
  );
  const rows = arrays.flatMap((name) => json[name] as unknown[]);
  assert.equal(records.length - 1, rows.length, `${where}: one record per row`);
  rows.forEach((row, r) => {
    const record = records[r + 1]!;
    assert.equal(record.length, columns.length, `${where} row ${r}: a cell per column`);
    columns.forEach((path, c) => assertCell(record[c], at(row, path), `${where} row ${r} ${path.join('.')}`));
  });
  return rows.length;
}

const CSV = { accept: 'text/csv' };

/** Lists whose rows the staking sync writes from a beacon node: validator days and block proposers. */
const FROM_A_BEACON_NODE = new Set(['/api/v1/pos/validators/{validator}/daily', '/api/v1/pos/validators/{validator}/blocks']);

describeSeededApp('CSV exports', loadAnalyticsWorld, (s) => {
  let doc: OpenApiDoc;
  let candidates: Candidates;
  let exporting: Operation[];
  before(async () => {
    doc = await openApiDoc(s.t());
    candidates = candidateAddresses(s.seeded().blocks);
    exporting = apiOperations(doc).filter((op) => op.responses['200']?.content?.['text/csv']);
    // The pending list has rows only while an indexer follows the node: three pool transactions per
    // chain and a poll of now, every hour (so it stays recent through the file), put back after.
    const now = Math.floor(Date.now() / 1000);
    for (const chain of CHAINS) {
      const txs = [0, 1, 2].map((i) => ({
        hash: (chain === 'pos' ? '0x' : '') + hash('csv pending', chain, i), pool: 'pending' as const, type: 'transfer' as const, typeEvm: chain === 'pos' ? 2 : null,
        from: addr(chain, `csv sender ${i}`), to: i === 0 && chain === 'pow' ? null : addr(chain, `csv to ${i}`), value: 10n ** 20n + BigInt(i), recipientCount: i === 0 && chain === 'pow' ? 2 : 1,
        fee: chain === 'pow' ? 100n : null, nonce: i + 1, gas: chain === 'pos' ? 21_000 : null, gasPrice: chain === 'pos' ? 7n : null, maxFeePerGas: chain === 'pos' ? 7n : null,
        maxPriorityFeePerGas: chain === 'pos' ? 1n : null,
      }));
      await writePending(s.store(), chain, { txs, complete: true, poolSize: txs.length }, now - 3 + txs.length);
      await recordPollSuccess(s.store(), chain, chain === 'pos' ? 'txpool_content' : 'GetLatestData', 3_600_000, now, txs.length);
    }
  });
  after(async () => {
    await s.store().query('test.pending_clear', sql`DELETE FROM pending_txs`);
    await s.store().query('test.pending_polls_clear', sql`DELETE FROM pending_polls`);
  });

  it('every list exports CSV: each route whose answer has items, the leaderboard and the timeline', () => {
    for (const op of apiOperations(doc)) {
      const schema = op.responses['200']?.content?.['application/json']?.schema;
      assert.ok(schema, `${op.path} answers JSON`);
      const isList = resolved(doc, schema).properties?.items?.type === 'array';
      if (isList) assert.ok(op.responses['200']!.content!['text/csv'], `${op.path} (a list) documents text/csv`);
    }
    const paths = exporting.map((op) => op.path);
    for (const path of ['/api/v1/{chain}/addresses/top/active', '/api/v1/analytics/timeline/{metric}', '/api/v1/{chain}/addresses/{address}/transactions', '/api/v1/analytics/block-size']) {
      assert.ok(paths.includes(path), `${path} exports CSV`);
    }
    assert.ok(exporting.length >= 40, `${exporting.length} exporting routes`);
  });

  it('answers every list as CSV: the JSON answer’s rows, field by field, in the item schema’s column order', async () => {
    const rowsByRoute = new Map<string, number>();
    for (const op of exporting) {
      // The longest window every windowed route allows (the world's days all fall in the defaults too).
      for (const { url } of requestsOf(op, candidates, { window: '3650d' })) {
        const json = await get(s.t(), url, { accept: 'application/json' });
        assert.equal(json.statusCode, 200, `${url}: ${json.body}`);
        const csv = await get(s.t(), url, CSV);
        assert.equal(csv.statusCode, 200, `${url}: ${csv.body}`);
        assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8; header=present', url);
        assert.equal(csv.headers['content-disposition'], `attachment; filename="${op.operationId}.csv"`, url);
        assert.match(String(csv.headers['vary']), /\baccept\b/i, `${url}: Vary names Accept`);
        assert.match(String(json.headers['vary']), /\baccept\b/i, `${url}: the JSON answer too`);
        const rows = assertCsvOfJson(doc, op, csv.body, json.json(), url);
        rowsByRoute.set(op.path, (rowsByRoute.get(op.path) ?? 0) + rows);
      }
    }
    // The comparison is not of empty lists: every exporting route has rows on the world, but the
    // histories only a beacon node gives (a generated world has none; test/api/validators/ checks
    // their CSV on a store synced from the fake beacon node).
    const empty = [...rowsByRoute].filter(([path, n]) => n === 0 && !FROM_A_BEACON_NODE.has(path)).map(([path]) => path);
    assert.deepEqual(empty, [], 'routes without any row on the world');
    assert.ok([...rowsByRoute.values()].reduce((a, b) => a + b, 0) > 1000);
  });

  it('pages a list as JSON does: following Link rel="next" walks the same rows as the JSON pages', async () => {
    const PAGES = 6;
    const paged = exporting.filter((op) => op.parameters.some((p) => ['cursor', 'page', 'offset'].includes(p.name)) && !FROM_A_BEACON_NODE.has(op.path));
    assert.ok(paged.length >= 5, `${paged.length} paged lists`);
    for (const op of paged) {
      const names = new Set(op.parameters.map((p) => p.name));
      const size = names.has('page_size') ? 'page_size' : 'limit';
      let walkedSeveral = false;
      for (const { url } of requestsOf(op, candidates, { [size]: '1' })) {
        // JSON: by next_cursor where the list has a cursor, else page by page (or offset by offset) until a short page.
        const jsonRows: unknown[] = [];
        const cursors: (string | null)[] = [];
        let next: string | null = url;
        for (let page = 1; next && page <= PAGES; page++) {
          const body: Record<string, any> = (await get(s.t(), next)).json();
          const rows = rowArrays(doc, op.responses['200']!.content!['application/json']!.schema).flatMap((a) => body[a]);
          jsonRows.push(...rows);
          if (names.has('cursor')) {
            cursors.push(body.next_cursor);
            next = body.next_cursor ? `${url}&cursor=${encodeURIComponent(body.next_cursor)}` : null;
          } else if (rows.length < 1) {
            next = null;
          } else {
            const u = new URL(url, 'http://x');
            if (names.has('page')) u.searchParams.set('page', String(page + 1));
            else u.searchParams.set('offset', String(page));
            next = u.pathname + u.search;
          }
        }
        // CSV: by the Link header alone.
        let csvRows = 0;
        let csvText = '';
        const records: Cell[][] = [];
        next = url;
        for (let page = 1; next && page <= PAGES; page++) {
          const res = await get(s.t(), next, CSV);
          assert.equal(res.statusCode, 200, `${next}: ${res.body}`);
          csvText = res.body;
          const [header, ...rest] = parseCsv(csvText);
          if (page === 1) records.push(header!);
          records.push(...rest);
          csvRows += rest.length;
          if (names.has('cursor')) assert.equal(res.headers['quarry-next-cursor'] ?? null, cursors[page - 1] ?? null, `${next}: Quarry-Next-Cursor is next_cursor`);
          const link = res.headers['link'] as string | undefined;
          const m = link ? /^<([^>]+)>; rel="next"$/.exec(link) : null;
          if (link) assert.ok(m, `${next}: a Link header of one next URL, not ${link}`);
          next = m ? m[1]! : null;
          if (page > 1) walkedSeveral = true;
        }
        assert.equal(csvRows, jsonRows.length, `${url}: as many rows walked as CSV and as JSON`);
        // The walked rows, compared as one answer of all pages.
        const whole = records.map((r) => r.map((c) => (c.quoted || /[",\r\n]/.test(c.text) ? `"${c.text.replaceAll('"', '""')}"` : c.text)).join(',') + '\r\n').join('');
        const arrays = rowArrays(doc, op.responses['200']!.content!['application/json']!.schema);
        assertCsvOfJson(doc, op, whole, { [arrays[0]!]: jsonRows }, `${url} walked`);
      }
      assert.ok(walkedSeveral, `${op.path}: some list of the world spans several pages`);
    }
  });

  it('negotiates: */*, no Accept, JSON first or a type it does not make answer JSON; text/csv, text/* or CSV preferred answer CSV', async () => {
    const url = '/api/v1/analytics/block-size?chain=pos';
    const cases: [string | undefined, string][] = [
      [undefined, 'application/json'],
      ['*/*', 'application/json'],
      ['application/json', 'application/json'],
      ['application/json, text/csv', 'application/json'],
      ['text/csv;q=0.5, application/json', 'application/json'],
      ['image/png', 'application/json'],
      ['text/csv;q=0', 'application/json'],
      ['text/csv', 'text/csv'],
      ['text/*', 'text/csv'],
      ['text/csv, */*;q=0.8', 'text/csv'],
      ['text/csv, */*', 'text/csv'],
      ['application/json;q=0.2, text/csv;q=0.9', 'text/csv'],
      ['TEXT/CSV; charset=utf-8', 'text/csv'],
    ];
    for (const [accept, type] of cases) {
      const res = await get(s.t(), url, accept === undefined ? {} : { accept });
      assert.equal(res.statusCode, 200);
      assert.equal(String(res.headers['content-type']).split(';')[0], type, `Accept: ${accept}`);
    }
    // A route that is not a list answers JSON whatever the Accept header.
    const summary = await get(s.t(), '/api/v1/analytics/supply/summary?chain=pos', CSV);
    assert.equal(summary.statusCode, 200);
    assert.match(String(summary.headers['content-type']), /^application\/json/);
  });

  it('keeps errors problem+json, and JSON and CSV apart in the snapshot cache, ETags and compression', async () => {
    const bad = await get(s.t(), '/api/v1/analytics/block-size?window=0d', CSV);
    assert.equal(bad.statusCode, 400);
    assert.match(String(bad.headers['content-type']), /^application\/problem\+json/);
    assert.ok(bad.json().errors.some((e: { param: string }) => e.param === 'window'));
    assert.equal((await get(s.t(), '/api/v1/analytics/block-size', { ...CSV, authorization: 'Bearer nope-nope-nope-nope' })).statusCode, 401);

    // JSON first (kept), then CSV of the same URL, then JSON again: each gets its own representation.
    const url = '/api/v1/analytics/block-size?chain=pow&window=3650d';
    const json1 = await get(s.t(), url);
    const csv = await get(s.t(), url, CSV);
    const json2 = await get(s.t(), url);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    assert.equal(json2.body, json1.body);
    assert.equal(json2.headers['etag'], json1.headers['etag']);
    assert.equal(csv.headers['etag'], undefined, 'a CSV stream carries no ETag');
    assert.equal((await get(s.t(), url, { ...CSV, 'if-none-match': String(json1.headers['etag']) })).statusCode, 200, 'the JSON ETag does not validate the CSV');
    const csvAgain = await get(s.t(), url, CSV);
    assert.equal(csvAgain.body, csv.body);

    // Compressed like any answer; decompressed it is the same CSV.
    const gz = await get(s.t(), url, { ...CSV, 'accept-encoding': 'gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(gz.rawPayload).toString(), csv.body);
    assert.match(String(gz.headers['vary']), /accept-encoding/i);
    assert.match(String(gz.headers['vary']), /\baccept\b/i);

    // HEAD: the CSV headers, no body.
    const head = await s.t().app.inject({ method: 'HEAD', url, headers: { ...AUTH, ...CSV } });
    assert.equal(head.statusCode, 200);
    assert.match(String(head.headers['content-type']), /^text\/csv/);
    assert.equal(head.body, '');
  });
});
