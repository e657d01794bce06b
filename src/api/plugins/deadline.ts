/**
 * Each request's deadline on the store (store.ts, `withDeadline`): a statement it would start after
 * QUARRY_STATEMENT_TIMEOUT_MS from its arrival is refused, and the request is answered 503 with
 * "the data store is busy" (plugins/errors.ts). On PostgreSQL the server's statement_timeout limits
 * each statement besides; on the embedded store, which cannot interrupt a statement, this is the
 * limit (docs/bounds.md, "The embedded store"). A route that streams for as long as its client
 * listens (the event stream) sets `config.deadline: false`.
 */
import type { FastifyInstance } from 'fastify';
import { withDeadline } from '../../store/store.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route's statements have no deadline (a stream that lives as long as its client). */
    deadline?: false;
  }
}

export function registerDeadline(app: FastifyInstance, ms: number): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config.deadline === false) return done();
    // The hooks after this one and the handler run inside: their statements inherit the deadline.
    withDeadline(ms, done);
  });
}
