/** The typed client's committed types against what the current routes' OpenAPI document generates. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { CLIENT_SCHEMA_FILE, clientSchemaSource, openApiDocument } from '../../scripts/client-schema.ts';

it('client/src/schema.ts is what the served OpenAPI document generates (else: npm run client:generate)', async () => {
  const generated = await clientSchemaSource(await openApiDocument());
  const committed = readFileSync(CLIENT_SCHEMA_FILE, 'utf8');
  if (committed === generated) return;
  const have = committed.split('\n');
  const want = generated.split('\n');
  const line = want.findIndex((text, i) => text !== have[i]);
  const at = line === -1 ? want.length : line;
  assert.fail(
    `client/src/schema.ts is out of date: run \`npm run client:generate\` and commit it.\n` +
      `First difference at line ${at + 1}:\n  committed: ${have[at] ?? '(end of file)'}\n  generated: ${want[at] ?? '(end of file)'}`,
  );
});

it('the document the client is generated from declares problem details for the errors of every JSON endpoint', async () => {
  const doc = (await openApiDocument()) as { paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }> };
  const json = Object.entries(doc.paths).filter(([path, item]) => path.startsWith('/api/v1/') && item.get?.responses['200']?.content?.['application/json']);
  assert.ok(json.length >= 60, `${json.length} JSON endpoints`);
  // The client types `error` from these declarations (QuarryClient: `{ data } | { error: Problem }`).
  for (const [path, item] of json) {
    for (const status of ['400', '401', '404', '429', '503']) {
      assert.ok(item.get!.responses[status]?.content?.['application/problem+json'], `${path}: ${status} is declared a problem`);
    }
  }
});
