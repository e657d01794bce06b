/**
 * Problem bodies for the requests that fail before any route runs, which Fastify and Node's HTTP
 * parser would otherwise answer with their own JSON: a path that is not valid percent-encoding or
 * whose parameter is too long (the router), and a request the HTTP parser rejects (headers or URL
 * too large, bytes not allowed in a request line).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { problem, type ProblemBody, type ProblemStatus } from '../problem.ts';
import { sendProblem } from './errors.ts';
import { MAX_VALIDATOR_ID_LENGTH } from '../params/validator-id.ts';

/**
 * The longest path parameter the router takes: a validator's public key, 0x and qrysm's 2,592 bytes
 * in hex (5,186 characters; an address is at most 129). Longer ones are a 400 naming the parameter.
 */
export const MAX_PARAM_LENGTH = MAX_VALIDATOR_ID_LENGTH;

/**
 * Which path parameter a bad path is about: the first segment that fails `bad`, named as a route
 * whose other segments match the path names that position (`/api/v1/:chain/addresses/:address`);
 * `path` when no route has a parameter there.
 */
function paramOf(request: FastifyRequest, bad: (segment: string) => boolean): string {
  const segments = (request.raw.url ?? '').split('?')[0]!.split('/');
  const index = segments.findIndex(bad);
  if (index === -1) return 'path';
  for (const route of request.server.routeList) {
    const parts = route.url.split('/');
    if (parts.length !== segments.length || !parts[index]!.startsWith(':')) continue;
    if (parts.every((part, i) => i === index || part.startsWith(':') || part === segments[i])) return parts[index]!.slice(1);
  }
  return 'path';
}

function decodes(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

/** Fastify's `frameworkErrors` option: router failures as 400 problems naming the parameter. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let body: ProblemBody;
  if (error.code === 'FST_ERR_BAD_URL') {
    const param = paramOf(request, (segment) => !decodes(segment));
    body = problem(400, `${param} is not valid percent-encoding`, [{ param, message: 'is not valid percent-encoding' }]);
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    const param = paramOf(request, (segment) => segment.length > MAX_PARAM_LENGTH);
    body = problem(400, `${param} is too long`, [{ param, message: 'is too long' }]);
  } else {
    body = problem(400, 'the request could not be routed');
  }
  sendProblem(reply, body);
}

/** Fastify's `clientErrorHandler` option: what the HTTP parser rejects, as problem+json on the raw socket. */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail]: [ProblemStatus, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'the request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'the request line and headers are too large (at most 16 KB): shorten the URL or the headers']
        : [400, 'the request is not valid HTTP: a byte not allowed in the request line or a header, or an unknown method'];
  const json = JSON.stringify(problem(status, detail));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  }
  socket.destroy(error);
}
