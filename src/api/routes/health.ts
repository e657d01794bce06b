/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the store answers and is
 * migrated). A stalled chain (an indexer that cannot get past a height, ingest/stalls.ts) is shown
 * by /readyz with its height and reason but does not make the process unready: the API still
 * answers every figure up to the last block written, and taking every API process out of a load
 * balancer would not help the indexer.
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StoreUnavailableError } from '../../store/errors.ts';
import { migrationStatus } from '../../store/migrate.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../plugins/errors.ts';
import { readStalls } from '../../ingest/stalls.ts';
import type { ApiContext } from '../context.ts';

const HealthResponse = Type.Object({ status: Type.String() });
const Stall = Type.Object({
  height: Type.Integer({ description: 'The height the indexer cannot write; nothing at or above it is stored.' }),
  reason: Type.String({ description: 'Why: the block that stays undecodable and the field, a gap, a reorg beyond the limit.' }),
  since: Type.String({ description: 'When the indexer stopped there, YYYY-MM-DDTHH:MM:SSZ.' }),
});
const ReadyResponse = Type.Object({
  status: Type.String(),
  store: Type.String({ description: 'pglite or postgres' }),
  pending_migrations: Type.Integer(),
  stalled_chains: Type.Record(Type.String(), Stall, { description: 'Chains whose indexer cannot advance, by chain id (empty when none).' }),
});

export function healthRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/healthz',
      { schema: { tags: ['service'], operationId: 'healthz', summary: 'The process is up', security: [], response: { 200: HealthResponse } } },
      async () => ({ status: 'ok' }),
    );

    app.get(
      '/readyz',
      {
        schema: {
          tags: ['service'],
          operationId: 'readyz',
          summary: 'The store is reachable and fully migrated',
          security: [],
          response: { 200: ReadyResponse, 503: ReadyResponse },
        },
      },
      async (_request, reply) => {
        const unreachable = () =>
          reply
            .code(503)
            .headers({ 'cache-control': 'no-store', 'retry-after': String(STORE_RETRY_AFTER_SECONDS) })
            .send({ status: 'store unreachable', store: ctx.store.kind, pending_migrations: 0, stalled_chains: {} });
        // During an outage the answer is known without waiting on the store again.
        if (ctx.storeOutage?.down) return unreachable();
        try {
          await ctx.store.query('readyz.ping', sql`SELECT 1`);
          const { pending } = await migrationStatus(ctx.store);
          const stalls = pending.length === 0 ? await readStalls(ctx.store) : new Map();
          const stalled_chains = Object.fromEntries([...stalls.values()].map((s) => [s.chain, { height: s.height, reason: s.reason, since: new Date(s.sinceTs * 1000).toISOString().slice(0, 19) + 'Z' }]));
          const body = { status: pending.length === 0 ? 'ready' : 'migrations pending', store: ctx.store.kind, pending_migrations: pending.length, stalled_chains };
          return reply.code(pending.length === 0 ? 200 : 503).header('cache-control', 'no-store').send(body);
        } catch (error) {
          if (error instanceof StoreUnavailableError) ctx.storeOutage?.report();
          return unreachable();
        }
      },
    );
  };
}
