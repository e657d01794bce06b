/**
 * `npm run client:generate`: writes the typed client's types (client/src/schema.ts) from the OpenAPI
 * document of the current routes. Run it after adding or changing a route; `npm test` fails until
 * the file is regenerated (test/client/schema.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLIENT_SCHEMA_FILE, clientSchemaSource, openApiDocument } from './client-schema.ts';

const source = await clientSchemaSource(await openApiDocument());
const relative = path.relative(process.cwd(), CLIENT_SCHEMA_FILE);
let previous: string | undefined;
try {
  previous = readFileSync(CLIENT_SCHEMA_FILE, 'utf8');
} catch {
  previous = undefined;
}
if (previous === source) {
  console.log(`${relative} is up to date`);
} else {
  writeFileSync(CLIENT_SCHEMA_FILE, source);
  console.log(`wrote ${relative}`);
}
