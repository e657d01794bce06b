/**
 * The OpenAPI 3.1 document, generated from the route schemas, at /api/v1/openapi.json, and a
 * Swagger UI page at /docs. Neither needs a key.
 *
 * It says what the server does: a query parameter with a default is optional (the validator fills
 * the default in, so the handler's type has it), and a route can document a default the validator
 * must not fill in (`config.documentedDefaults`: the transactions feed's offset, whose absence
 * means "page by cursor when one is given").
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { documentedResponse } from './csv.ts';
import { freshnessHeaders } from './freshness.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Quarry',
        version: '1.0.0',
        description:
          'Read API for QRL explorers: per-address data and leaderboards of the legacy proof-of-work chain (pow) ' +
          'and QRL 2.0 (pos). Every /api/v1 endpoint needs `Authorization: Bearer <API key>`. Errors are ' +
          'RFC 9457 problem details.',
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerAuth: [] }],
      tags: [
        { name: 'addresses', description: 'Per-address data and address leaderboards' },
        { name: 'transactions', description: 'A chain\'s latest transactions and transaction pages' },
        { name: 'search', description: 'Blocks, transactions, addresses, tokens and labels of both chains by what a search box is given' },
        { name: 'validators', description: 'pos validators as the beacon node gives them: their state, days, proposed blocks and withdrawals' },
        { name: 'service', description: 'Health and readiness' },
      ],
    },
    transform: ({ schema, url, route }) => ({ schema: documentedAnswer(documentedSchema(schema, route.config), url, route.config), url }),
    refResolver: {
      // Shared schemas (added with addSchema and an $id) become components named by that id.
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  // Quarry's own logo, read here: the plugin's asynchronous read of its default one was measured
  // holding a start-up for 0.4 s (the demo's second start, bench/results/demo.md).
  const logo = { type: 'image/svg+xml', content: readFileSync(new URL('../dashboard/assets/favicon.svg', import.meta.url)) };
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, logo, uiConfig: { docExpansion: 'list', deepLinking: true } });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}

/**
 * The 200 answer of an /api/v1 route as documented: with its freshness headers, and for a route
 * that exports CSV the text/csv alternative (plugins/csv.ts, plugins/freshness.ts).
 */
function documentedAnswer<T>(schema: T, url: string, config: unknown): T {
  const route = schema as { response?: Record<string, Record<string, unknown>>; params?: unknown; querystring?: unknown } | undefined;
  const ok = route?.response?.['200'];
  if (!url.startsWith('/api/v1/') || !route || !ok) return schema;
  const answer = documentedResponse(ok, route.querystring as Record<string, unknown> | undefined, config as { csv?: { rows?: readonly string[] } } | undefined, freshnessHeaders(url, route));
  return { ...schema, response: { ...route.response, 200: answer } };
}

interface ObjectSchema {
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
}

/** The route's schema as documented: query parameters with a default are optional. */
function documentedSchema<T>(schema: T, config: unknown): T {
  const query = (schema as { querystring?: ObjectSchema } | undefined)?.querystring;
  if (!query?.properties) return schema;
  // Defaults the document states but the validator must not apply.
  const extra = (config as { documentedDefaults?: Record<string, unknown> } | undefined)?.documentedDefaults ?? {};
  const properties = Object.fromEntries(
    Object.entries(query.properties).map(([name, property]) => [name, name in extra ? { ...property, default: extra[name] } : property]),
  );
  const required = (query.required ?? []).filter((name) => properties[name]?.default === undefined);
  const querystring: ObjectSchema = { ...query, properties };
  if (required.length > 0) querystring.required = required;
  else delete querystring.required;
  return { ...schema, querystring };
}
