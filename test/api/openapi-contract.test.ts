/**
 * The OpenAPI document against the spec: every Addresses parameter, its default and bounds, and the
 * error media type; and the same for the routes beyond the spec, against their docs (EXPLORER_PARAMETERS).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { buildTestApp, type TestApp } from '../support/app.ts';
import { EXPLORER_PARAMETERS, EXPLORER_PATH_PARAMETERS, SPEC_ADDRESS_PARAMETERS, type SpecParameter } from '../support/spec-parameters.ts';
import { describeOnOneStore } from '../support/stores.ts';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: { type?: string; default?: unknown; minimum?: number; maximum?: number; enum?: string[] };
}

const BOOLEAN_TEXT = ['true', 'false', '1', '0'];
const ERROR_STATUSES = ['400', '401', '404', '429', '503'];

describeOnOneStore('OpenAPI document against the spec', (getStore) => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, { parameters?: Parameter[]; responses: Record<string, { content?: Record<string, unknown> }> }>> };
  before(async () => {
    t = await buildTestApp(getStore());
    doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
  });
  after(() => t.close());

  const operation = (path: string, prefix = '/api/v1/{chain}/addresses') => {
    const op = doc.paths[`${prefix}${path}`]?.get;
    assert.ok(op, `${path} is documented`);
    return op;
  };

  /** The query parameters of `op` against `spec`: the same names, defaults, bounds and values, none required. */
  const assertQueryParameters = (path: string, op: { parameters?: Parameter[] }, spec: Record<string, SpecParameter>) => {
    const query = (op.parameters ?? []).filter((p) => p.in === 'query');
    assert.deepEqual(query.map((p) => p.name).sort(), Object.keys(spec).sort(), 'the documented parameters are the spec\'s');
    for (const p of query) {
      const want: SpecParameter = spec[p.name]!;
      const label = `${path} ${p.name}`;
      // Every query parameter of the spec is optional; one with a default certainly is.
      assert.notEqual(p.required, true, `${label} is not required`);
      if (want.type === 'boolean') {
        assert.equal(p.schema.type, 'string', label);
        assert.deepEqual(p.schema.enum, BOOLEAN_TEXT, `${label} takes true/false/1/0`);
        assert.equal(p.schema.default, want.default === undefined ? undefined : String(want.default), `${label} default`);
        continue;
      }
      assert.equal(p.schema.type, want.type, `${label} type`);
      assert.equal(p.schema.default, want.default, `${label} default`);
      if (want.minimum !== undefined) assert.equal(p.schema.minimum, want.minimum, `${label} minimum`);
      if (want.maximum !== undefined) assert.equal(p.schema.maximum, want.maximum, `${label} maximum`);
      if (want.enum !== undefined) assert.deepEqual([...(p.schema.enum ?? [])].sort(), [...want.enum].sort(), `${label} values`);
    }
  };

  /** 200 as JSON, every error as a problem body. */
  const assertResponses = (path: string, op: { responses: Record<string, { content?: Record<string, unknown> }> }) => {
    assert.ok(op.responses['200']?.content?.['application/json'], `${path} 200 is JSON`);
    for (const status of ERROR_STATUSES) {
      assert.deepEqual(op.responses[status]?.content, { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }, `${path} ${status}`);
    }
  };

  it('documents the 13 Addresses endpoints and no other under /addresses', () => {
    const documented = Object.keys(doc.paths).filter((path) => path.startsWith('/api/v1/{chain}/addresses'));
    assert.deepEqual(documented.map((path) => path.slice('/api/v1/{chain}/addresses'.length)).sort(), Object.keys(SPEC_ADDRESS_PARAMETERS).sort());
    assert.equal(documented.length, 13);
  });

  /** The query parameters of `op` against `spec`: the same names, optional unless the table says required, with the table's type, default, bounds and values. */
  const checkQuery = (label: string, parameters: Parameter[] | undefined, spec: Record<string, SpecParameter>) => {
    const query = (parameters ?? []).filter((p) => p.in === 'query');
    assert.deepEqual(query.map((p) => p.name).sort(), Object.keys(spec).sort(), `${label}: the documented parameters are the table's`);
    for (const p of query) {
      const want: SpecParameter = spec[p.name]!;
      const name = `${label} ${p.name}`;
      assert.equal(p.required === true, want.required === true, `${name} is ${want.required ? '' : 'not '}required`);
      assert.equal(p.schema.type, want.type, `${name} type`);
      assert.equal(p.schema.default, want.default, `${name} default`);
      if (want.minimum !== undefined) assert.equal(p.schema.minimum, want.minimum, `${name} minimum`);
      if (want.maximum !== undefined) assert.equal(p.schema.maximum, want.maximum, `${name} maximum`);
      if (want.enum !== undefined) assert.deepEqual([...(p.schema.enum ?? [])].sort(), [...want.enum].sort(), `${name} values`);
    }
  };

  it('documents the block routes and no other under /blocks', () => {
    const blockRoute = (path: string) => /^\/api\/v1\/(\{chain\}|pow|pos)\/blocks/.test(path);
    assert.deepEqual(Object.keys(doc.paths).filter(blockRoute).sort(), Object.keys(EXPLORER_PARAMETERS).filter(blockRoute).sort());
  });

  it('documents the validator routes and no other under /validators', () => {
    const validatorRoute = (path: string) => /^\/api\/v1\/(\{chain\}|pow|pos)\/validators/.test(path);
    assert.deepEqual(Object.keys(doc.paths).filter(validatorRoute).sort(), Object.keys(EXPLORER_PARAMETERS).filter(validatorRoute).sort());
  });

  it('documents the pow address routes and no other under /pow/addresses', () => {
    const documented = Object.keys(doc.paths).filter((path) => path.startsWith('/api/v1/pow/addresses'));
    assert.deepEqual(documented.sort(), Object.keys(EXPLORER_PARAMETERS).filter((path) => path.startsWith('/api/v1/pow/addresses')).sort());
  });

  it('documents the token routes and no other under /tokens', () => {
    const documented = Object.keys(doc.paths).filter((path) => /^\/api\/v1\/(\{chain\}|pow|pos)\/tokens/.test(path));
    assert.deepEqual(documented.sort(), Object.keys(EXPLORER_PARAMETERS).filter((path) => path.includes('/tokens')).sort());
    assert.equal(documented.length, 5);
  });

  for (const [path, spec] of Object.entries(EXPLORER_PARAMETERS)) {
    it(`${path}: its documented parameters, defaults and bounds; errors as problem bodies`, () => {
      const op = doc.paths[path]?.get;
      assert.ok(op, `${path} is documented`);
      checkQuery(path, op.parameters, spec);
      const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path');
      assert.deepEqual(pathParams.map((p) => p.name).sort(), [...EXPLORER_PATH_PARAMETERS[path]!].sort(), `${path} path parameters`);
      for (const p of pathParams) assert.equal(p.required, true, `${path} ${p.name} is required`);
      assert.ok(op.responses['200']?.content?.['application/json'], `${path} 200 is JSON`);
      for (const status of ERROR_STATUSES) {
        assert.deepEqual(op.responses[status]?.content, { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }, `${path} ${status}`);
      }
    });
  }

  for (const [path, spec] of Object.entries(SPEC_ADDRESS_PARAMETERS)) {
    it(`${path}: every spec parameter documented, with the spec's default, bounds and values; nothing else; nothing required`, () => {
      assertQueryParameters(path, operation(path), spec);
    });

    it(`${path}: errors are application/problem+json problem bodies`, () => {
      assertResponses(path, operation(path));
    });
  }
});
