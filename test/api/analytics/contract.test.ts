/**
 * The Analytics API against the spec, endpoint by endpoint and parameter by parameter: the OpenAPI
 * document declares exactly the parameters of test/support/spec-analytics-parameters.ts with their
 * types, defaults, bounds and values; the server answers a value below the minimum, above the
 * maximum, of the wrong type or outside the allowed values with a 400 problem naming the parameter;
 * and omitting a parameter applies its default (the same answer as the default written out, and the
 * echoed length, chain or page where the envelope has one).

 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Store } from '../../../src/store/store.ts';
import { AUTH } from '../../support/app.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { EXPLORER_PARAMETERS } from '../../support/spec-parameters.ts';
import { SHAPE_NOT_STATED, SPEC_ANALYTICS_PARAMETERS, type SpecAnalyticsParameter } from '../../support/spec-analytics-parameters.ts';
import { ingestChain, posChain, powChain } from '../addresses/fixtures.ts';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: { type?: string; default?: unknown; minimum?: number; maximum?: number; enum?: string[]; pattern?: string };
}

const BOOLEAN_TEXT = ['true', 'false', '1', '0'];
/** The error answers every endpoint may give (ARCHITECTURE.md, "Errors"). */
const ERROR_STATUSES = ['400', '401', '404', '429', '503'];
/** A well-formed pos address, for the cross-chain history path. */
const ADDRESS = `Q${'ab'.repeat(20)}`;
/** Fields that change between two identical requests (they read the clock). */
const VOLATILE = new Set(['generated_at', 'checked_at']);

/** Windows the spec's format takes (section 1 convention 4, with ARCHITECTURE.md's `y`) and forms it does not. */
const WINDOWS_TAKEN = ['30d', '24h', '90m', '1w', '1y', '3650d'];
const WINDOWS_REFUSED = ['all', '0d', '7x', '7', 'd', '-1d', '1.5d', ' 7d'];

/** The path with its path parameters filled in. */
function concrete(path: string): string {
  return `/api/v1${path.replace('{address}', ADDRESS).replace('{metric}', 'transactions')}`;
}

/** The bad values of one parameter, each with the reason it is bad: below the minimum, above the maximum, wrong type, not allowed. */
function badValues(p: SpecAnalyticsParameter): [string, string][] {
  const bad: [string, string][] = [];
  if (p.window) {
    bad.push(['below-minimum', '0d'], ['above-maximum', '3651d'], ['wrong-type', '7x'], ['wrong-type', 'seven'], ['not-allowed', 'all']);
    return bad;
  }
  if (p.minimum !== undefined) bad.push(['below-minimum', String(p.minimum - 1)]);
  if (p.maximum !== undefined) bad.push(['above-maximum', String(p.maximum + 1)]);
  if (p.type === 'integer') bad.push(['wrong-type', 'ten'], ['wrong-type', '1.5']);
  if (p.type === 'number') bad.push(['wrong-type', 'ten']);
  if (p.type === 'boolean') bad.push(['wrong-type', 'maybe']);
  if (p.enum) bad.push(['not-allowed', 'nope']);
  return bad;
}

/** Values of one query parameter the spec allows: its bounds, its values, the window forms. */
function goodValues(p: SpecAnalyticsParameter): string[] {
  if (p.in === 'path') return [];
  if (p.window) return ['90m', '24h', '1w', '3650d'];
  const good: string[] = [];
  if (p.minimum !== undefined) good.push(String(p.minimum));
  if (p.maximum !== undefined) good.push(String(p.maximum));
  if (p.enum) good.push(...p.enum);
  if (p.type === 'boolean') good.push(...BOOLEAN_TEXT);
  if (p.type === 'number') good.push('1', '0.5');
  return good;
}

/** The response without the fields that read the clock, for comparing two answers. */
function stable(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value) => (VOLATILE.has(key) ? undefined : value));
}

/** A few days of both chains: every endpoint has data to answer from, and it loads in seconds. */
async function loadChains(store: Store): Promise<void> {
  await ingestChain(store, powChain(24));
  await ingestChain(store, posChain(24));
}

describeSeededApp('Analytics API against the spec', loadChains, (s) => {
  let doc: { paths: Record<string, Record<string, { parameters?: Parameter[]; responses: Record<string, { content?: Record<string, unknown> }> }>> };
  before(async () => {
    doc = (await s.t().app.inject({ url: '/api/v1/openapi.json' })).json();
  });

  const inject = (url: string) => s.t().app.inject({ url, headers: AUTH });

  it('the spec has 47 analytics endpoints, and the document has exactly those', () => {
    assert.equal(Object.keys(SPEC_ANALYTICS_PARAMETERS).length, 47);
    // Besides the Addresses API, /api/v1 holds the document itself, the event stream (docs/events.md) and the
    // routes beyond the spec (test/support/spec-parameters.ts).
    const notAnalytics = new Set(['/api/v1/openapi.json', '/api/v1/{chain}/events', ...Object.keys(EXPLORER_PARAMETERS)]);
    const documented = Object.keys(doc.paths)
      .filter((path) => path.startsWith('/api/v1/') && !path.startsWith('/api/v1/{chain}/addresses') && !notAnalytics.has(path))
      .map((path) => path.slice('/api/v1'.length));
    assert.deepEqual(documented.sort(), Object.keys(SPEC_ANALYTICS_PARAMETERS).sort());
  });

  for (const [path, { params }] of Object.entries(SPEC_ANALYTICS_PARAMETERS)) {
    const documented = () => {
      const op = doc.paths[`/api/v1${path}`]?.get;
      assert.ok(op, `${path} is documented`);
      return op.parameters ?? [];
    };

    it(`${path} documents exactly the spec's parameters`, () => {
      const names = documented().map((p) => `${p.in}:${p.name}`).sort();
      assert.deepEqual(names, Object.entries(params).map(([name, p]) => `${p.in ?? 'query'}:${name}`).sort());
    });

    it(`${path} answers JSON, and its errors as problem+json`, () => {
      const { responses } = doc.paths[`/api/v1${path}`]!.get!;
      assert.ok(responses['200']?.content?.['application/json'], `${path} 200 is JSON`);
      for (const status of ERROR_STATUSES) {
        assert.deepEqual(responses[status]?.content, { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }, `${path} ${status}`);
      }
    });

    for (const [name, want] of Object.entries(params)) {
      const label = `${path} ${name}`;

      it(`${label} openapi`, () => {
        const p = documented().find((x) => x.name === name && x.in === (want.in ?? 'query'));
        assert.ok(p, `${label} is documented`);
        assert.equal(p.required === true, want.in === 'path', `${label}: only path parameters are required`);
        if (SHAPE_NOT_STATED.has(label)) return;
        if (want.type === 'boolean') {
          assert.equal(p.schema.type, 'string', label);
          assert.deepEqual(p.schema.enum, BOOLEAN_TEXT, `${label} takes true/false/1/0`);
          assert.equal(p.schema.default, String(want.default), `${label} default`);
          return;
        }
        assert.equal(p.schema.type, want.type, `${label} type`);
        assert.equal(p.schema.default, want.default, `${label} default`);
        if (want.minimum !== undefined) assert.equal(p.schema.minimum, want.minimum, `${label} minimum`);
        if (want.maximum !== undefined) assert.equal(p.schema.maximum, want.maximum, `${label} maximum`);
        if (want.enum !== undefined) assert.deepEqual([...(p.schema.enum ?? [])].sort(), [...want.enum].sort(), `${label} values`);
        else assert.equal(p.schema.enum, undefined, `${label} lists no values`);
      });

      if (want.window) {
        it(`${label} openapi format`, () => {
          const p = documented().find((x) => x.name === name);
          assert.ok(p?.schema.pattern, `${label} has a pattern`);
          const pattern = new RegExp(p.schema.pattern);
          for (const w of WINDOWS_TAKEN) assert.ok(pattern.test(w), `${label} pattern takes ${w}`);
          for (const w of WINDOWS_REFUSED) assert.ok(!pattern.test(w), `${label} pattern refuses ${w}`);
        });
      }

      for (const [why, value] of badValues(want)) {
        it(`${label} ${why} ${value}: 400 naming ${name}`, async () => {
          const url = want.in === 'path'
            ? `/api/v1${path.replace(`{${name}}`, encodeURIComponent(value)).replace('{address}', ADDRESS).replace('{metric}', 'transactions')}`
            : `${concrete(path)}?${name}=${encodeURIComponent(value)}`;
          const res = await inject(url);
          assert.equal(res.statusCode, 400, `${url} → ${res.statusCode} ${res.body.slice(0, 300)}`);
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/, url);
          assert.equal(res.json().errors?.[0]?.param, name, `${url}: ${res.body.slice(0, 300)}`);
        });
      }
      const good = goodValues(want);
      if (good.length > 0) {
        it(`${label} takes ${good.join(', ')}`, async () => {
          for (const value of good) {
            const res = await inject(`${concrete(path)}?${name}=${encodeURIComponent(value)}`);
            assert.equal(res.statusCode, 200, `${name}=${value} → ${res.statusCode} ${res.body.slice(0, 300)}`);
          }
        });
      }
      if (want.in === 'path' && want.type === 'string' && !want.enum) {
        it(`${label} wrong-type not-an-address: 400 naming ${name}`, async () => {
          const res = await inject(`/api/v1${path.replace(`{${name}}`, 'Qnothex')}`);
          assert.equal(res.statusCode, 400, res.body.slice(0, 300));
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
          assert.equal(res.json().errors?.[0]?.param, name, res.body.slice(0, 300));
        });
      }

      if (want.default === undefined && !want.echo) continue;
      it(`${label} default applied when omitted`, async () => {
        const omitted = await inject(concrete(path));
        assert.equal(omitted.statusCode, 200, omitted.body.slice(0, 300));
        const body = omitted.json();
        if (want.default !== undefined) {
          const explicit = await inject(`${concrete(path)}?${name}=${encodeURIComponent(String(want.default))}`);
          assert.equal(explicit.statusCode, 200, explicit.body.slice(0, 300));
          assert.deepEqual(stable(body), stable(explicit.json()), `${label}: omitted answers as ${name}=${want.default}`);
        }
        if (want.window?.echo) assert.equal(body[want.window.echo], want.window.defaultDays, `${label}: ${want.window.echo} echoes the default`);
        if (want.echo) assert.deepEqual(body[want.echo.field], want.echo.value, `${label}: ${want.echo.field} echoes the default`);
        for (const field of want.caps ?? []) {
          assert.ok(Array.isArray(body[field]), `${label}: ${field} is a list`);
          assert.ok(body[field].length <= Number(want.default), `${label}: at most ${want.default} ${field}`);
        }
      });
    }
  }
});
