/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the store answers and is
 * migrated). A stalled chain (an indexer that cannot get past a height, ingest/stalls.ts) is shown
 * by /readyz with its height and reason but does not make the process unready: the API still
 * answers every figure up to the last block written, and taking every API process out of a load
 * balancer would not help the indexer.
 *
 * /readyz also says what the process reads from (`replica`: a primary, a standby and how far its
 * replay is behind, or the embedded store) and how stale each chain's data is (`chains`: the age of
 * its latest block and how long since its indexer last reported the node's tip). Neither makes the
 * process unready: a standby that lags still answers consistently for the point it has replayed,
 * and the operator decides the lag to act on (docs/deploy.md, "What to watch").
 *
 * While a chain's history still loads into the store the process serves (`quarry demo`'s first
 * start), /readyz says `loading` and lists it with its progress: the process is ready for the other
 * chains, and answers the loading one's requests 503 (plugins/chain-loading.ts).
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { StoreUnavailableError } from '../../store/errors.ts';
import { migrationStatus } from '../../store/migrate.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../plugins/errors.ts';
import { readStalls } from '../../ingest/stalls.ts';
import { readReplication, type Replication } from '../../store/replication.ts';
import { readMonitoringState, type MonitoringState } from '../metrics/chains.ts';
import type { ApiContext } from '../context.ts';

const HealthResponse = Type.Object({ status: Type.String() });
const Stall = Type.Object({
  height: Type.Integer({ description: 'The height the indexer cannot write; nothing at or above it is stored.' }),
  reason: Type.String({ description: 'Why: the block that stays undecodable and the field, a gap, a reorg beyond the limit.' }),
  since: Type.String({ description: 'When the indexer stopped there, YYYY-MM-DDTHH:MM:SSZ.' }),
});
const NullableInteger = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });
const Replica = Type.Object(
  {
    role: Type.Union([Type.Literal('embedded'), Type.Literal('primary'), Type.Literal('standby')], {
      description: 'embedded: PGlite; primary: a PostgreSQL server that accepts writes; standby: a streaming replica (pg_is_in_recovery()).',
    }),
    lag_seconds: Type.Union([Type.Number(), Type.Null()], {
      description: 'On a standby, seconds its replay is behind: 0 when it has replayed all it received, else the age of the last transaction replayed. Null elsewhere.',
    }),
    lag_bytes: NullableInteger('On a standby, bytes of WAL received and not replayed yet. Null elsewhere.'),
  },
  { description: 'What the process reads from. Absent when the store did not answer.' },
);
const Staleness = Type.Object({
  tip_height: NullableInteger('Height of the latest stored block; null before the first.'),
  tip_age_seconds: NullableInteger('Now − the latest stored block’s time, in whole seconds (0 when ahead of the clock); null before the first block.'),
  indexer_seen_seconds_ago: NullableInteger('Seconds since the chain’s indexer last recorded the node’s tip; null when it never did. Grows while no indexer runs.'),
});
const ChainLoadProgress = Type.Object({
  height: Type.Integer({ description: 'The highest height its load has written (-1 before the first block).' }),
  to_height: Type.Integer({ description: 'The height its load ends at.' }),
});
const ReadyResponse = Type.Object({
  status: Type.String({ description: 'ready; loading while a chain of loading_chains is still coming in (the other chains are served); migrations pending; store unreachable.' }),
  store: Type.String({ description: 'pglite or postgres' }),
  pending_migrations: Type.Integer(),
  stalled_chains: Type.Record(Type.String(), Stall, { description: 'Chains whose indexer cannot advance, by chain id (empty when none).' }),
  replica: Type.Optional(Replica),
  chains: Type.Optional(Type.Record(Type.String(), Staleness, { description: 'How stale each chain’s data is, by chain id. Absent when the store did not answer.' })),
  loading_chains: Type.Optional(
    Type.Record(Type.String(), ChainLoadProgress, {
      description: 'Chains whose history this process is still loading (`quarry demo`’s first start), by chain id: the API answers their requests 503 until they are in. Absent when none.',
    }),
  ),
});

/** Each chain's latest block and the indexer's last report of the node's tip (metrics/chains.ts), aged against `now` (Unix seconds). */
function staleness(state: MonitoringState, now: number) {
  const age = (ts: number | null) => (ts === null ? null : Math.max(0, now - ts));
  return Object.fromEntries(
    state.chains.map((c) => [c.chain, { tip_height: c.tipHeight, tip_age_seconds: age(c.tipTs), indexer_seen_seconds_ago: age(c.nodeTipSeenTs) }]),
  );
}

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
          // With the schema current, the chains' state (one statement, as /metrics reads it) carries the
          // replication too; before, only the replication can be read.
          const state = pending.length === 0 ? await readMonitoringState(ctx.store) : undefined;
          const replication: Replication = state
            ? { role: ctx.store.kind === 'pglite' ? 'embedded' : state.standby ? 'standby' : 'primary', lagSeconds: state.replicaLagSeconds, lagBytes: state.replicaLagBytes }
            : await readReplication(ctx.store);
          const replica = { role: replication.role, lag_seconds: replication.lagSeconds, lag_bytes: replication.lagBytes };
          const chains = state ? staleness(state, Math.floor(Date.now() / 1000)) : undefined;
          const loads = ctx.loading?.current() ?? new Map();
          const loading_chains = loads.size === 0 ? undefined : Object.fromEntries([...loads].map(([chain, load]) => [chain, { height: load.height, to_height: load.toHeight }]));
          const status = pending.length > 0 ? 'migrations pending' : loading_chains ? 'loading' : 'ready';
          const body = { status, store: ctx.store.kind, pending_migrations: pending.length, stalled_chains, replica, chains, loading_chains };
          return reply.code(pending.length === 0 ? 200 : 503).header('cache-control', 'no-store').send(body);
        } catch (error) {
          if (error instanceof StoreUnavailableError) ctx.storeOutage?.report();
          return unreachable();
        }
      },
    );
  };
}
