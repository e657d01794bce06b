import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describeOnOneStore } from '../support/stores.ts';
import { buildTestApp, type TestApp } from '../support/app.ts';

describeOnOneStore('OpenAPI document', (getStore) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(getStore());
    await t.app.ready();
  });
  after(() => t.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await t.app.inject({ url: '/api/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('lists every API route, each with an operationId, a summary, a 200 schema and the bearer scheme', async () => {
    const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    const documented = new Set<string>();
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        documented.add(`${method.toUpperCase()} ${path}`);
        assert.ok(op.operationId, `${method} ${path} has an operationId`);
        assert.ok(op.summary, `${method} ${path} has a summary`);
        assert.ok(op.responses?.['200'], `${method} ${path} documents its 200 answer`);
      }
    }
    const registered = t.app.routeList
      .filter((route) => !route.hidden && !route.url.startsWith('/docs'))
      .map((route) => `${route.method} ${route.url.replace(/:([a-z_]+)/g, '{$1}')}`);
    assert.ok(registered.includes('GET /api/v1/{chain}/addresses/stats/summary'));
    for (const route of registered) assert.ok(documented.has(route), `${route} is documented`);
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer' });
  });
});
