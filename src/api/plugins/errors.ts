/**
 * One error handler for the whole API. Every failure leaves as application/problem+json: 400 for a
 * bad parameter (naming it), 401, 404 (also for an unknown chain), 429, 503 when the store is
 * unreachable, and a bare 500 that never shows internals.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { QueryTimeoutError, StoreBusyError, StoreUnavailableError } from '../../store/errors.ts';
import { ApiError, problem, PROBLEM_TYPES, type ParamProblem, type ProblemBody, type ProblemStatus } from '../problem.ts';

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

export function sendProblem(reply: FastifyReply, body: ProblemBody, headers: Record<string, string> = {}): FastifyReply {
  return reply
    .code(body.status)
    .headers({ ...headers, 'cache-control': 'no-store' })
    .type('application/problem+json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(body);
}

/** What a 503 for an unreachable store tells a client to wait before retrying (Retry-After), in seconds. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** What a 503 for a busy store (a request past its deadline, plugins/deadline.ts) tells a client to wait, in seconds. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * `outage` hears of every statement that found the store unreachable (plugins/store-outage.ts);
 * a statement that ran past its time limit on a server that answers is not an outage.
 */
export function registerErrorHandling(app: FastifyInstance, outage?: { report(): void }): void {
  app.setErrorHandler((error: FastifyError & { validation?: AjvError[]; validationContext?: string }, request, reply) => {
    if (error instanceof ApiError) return sendProblem(reply, error.toProblem(), error.headers);

    if (error.validation) {
      const errors = describeValidation(error.validation);
      // An unknown chain is an unknown resource, not a malformed request.
      if (error.validationContext === 'params' && errors.some((e) => e.param === 'chain')) {
        return sendProblem(reply, problem(404, `unknown chain: use pow or pos`));
      }
      const detail = errors.map((e) => `${e.param} ${e.message}`).join('; ');
      return sendProblem(reply, problem(400, detail, errors));
    }

    if (error instanceof StoreBusyError) {
      // The store is behind on other requests' work; this request's parameters are not the cause.
      request.log.warn({ label: error.label }, 'request past its deadline on a busy store');
      return sendProblem(reply, problem(503, 'the data store is busy with other requests; retry shortly'), { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) });
    }
    if (error instanceof StoreUnavailableError || error instanceof QueryTimeoutError) {
      request.log.warn({ label: error.label, code: error.code }, error instanceof StoreUnavailableError ? 'store unavailable' : 'query timed out');
      if (error instanceof StoreUnavailableError) outage?.report();
      return sendProblem(reply, problem(503, 'the data store is unavailable; retry shortly'), { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) });
    }

    const status = error.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      const known = (status in PROBLEM_TYPES ? status : 400) as ProblemStatus;
      return sendProblem(reply, problem(known, error.message));
    }

    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, problem(500, 'an internal error occurred'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // The API only reads: a path that exists for GET is a 405 to any other method.
    if (request.method !== 'GET' && request.method !== 'HEAD' && app.findRoute({ method: 'GET', url: path })) {
      return sendProblem(reply, problem(405, `${path} answers GET and HEAD only`), { allow: 'GET, HEAD' });
    }
    return sendProblem(reply, problem(404, `no route for ${request.method} ${path}`));
  });
}

/** Turns Ajv's errors into one entry per parameter, in words a caller can act on. */
function describeValidation(errors: AjvError[]): ParamProblem[] {
  const byParam = new Map<string, string>();
  for (const error of errors) {
    const param =
      error.keyword === 'required'
        ? String(error.params.missingProperty)
        : error.instancePath.replace(/^\//, '').split('/')[0] || 'request';
    if (byParam.has(param)) continue;
    byParam.set(param, describeAjvError(error, errors));
  }
  return [...byParam].map(([param, message]) => ({ param, message }));
}

function describeAjvError(error: AjvError, all: AjvError[]): string {
  switch (error.keyword) {
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'type':
      return `must be ${error.params.type === 'integer' ? 'a whole number' : `of type ${String(error.params.type)}`}`;
    case 'minimum':
    case 'maximum':
      return `must be ${error.keyword === 'minimum' ? 'at least' : 'at most'} ${String(error.params.limit)}`;
    case 'pattern':
      return `is malformed (expected ${String(error.params.pattern)})`;
    case 'required':
      return 'is required';
    case 'anyOf': {
      const related = all.find((e) => e !== error && e.instancePath === error.instancePath);
      return related ? describeAjvError(related, []) : 'is not an accepted value';
    }
    default:
      return error.message ?? 'is not valid';
  }
}
