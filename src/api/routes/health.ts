/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the store answers and is migrated). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StoreUnavailableError } from '../../store/errors.ts';
import { migrationStatus } from '../../store/migrate.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../plugins/errors.ts';
import type { ApiContext } from '../context.ts';

const HealthResponse = Type.Object({ status: Type.String() });
const ReadyResponse = Type.Object({
  status: Type.String(),
  store: Type.String({ description: 'pglite or postgres' }),
  pending_migrations: Type.Integer(),
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
            .send({ status: 'store unreachable', store: ctx.store.kind, pending_migrations: 0 });
        // During an outage the answer is known without waiting on the store again.
        if (ctx.storeOutage?.down) return unreachable();
        try {
          await ctx.store.query('readyz.ping', sql`SELECT 1`);
          const { pending } = await migrationStatus(ctx.store);
          const body = { status: pending.length === 0 ? 'ready' : 'migrations pending', store: ctx.store.kind, pending_migrations: pending.length };
          return reply.code(pending.length === 0 ? 200 : 503).header('cache-control', 'no-store').send(body);
        } catch (error) {
          if (error instanceof StoreUnavailableError) ctx.storeOutage?.report();
          return unreachable();
        }
      },
    );
  };
}
