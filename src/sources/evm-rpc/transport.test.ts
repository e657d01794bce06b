import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { RpcError, RpcMethodNotFoundError } from './errors.ts';
import { createRpcClient } from './transport.ts';

type Handler = (body: any, req: IncomingMessage, res: ServerResponse) => void;

/** A JSON-RPC server whose behaviour each test sets. */
async function fakeNode(): Promise<{ url: string; server: Server; requests: any[]; handle: (h: Handler) => void }> {
  let handler: Handler = () => undefined;
  const requests: any[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const body = JSON.parse(text);
      requests.push(body);
      handler(body, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, server, requests, handle: (h) => (handler = h) };
}

const json = (res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const echo = (call: any) => ({ jsonrpc: '2.0', id: call.id, result: `${call.method}:${call.params.join(',')}` });

describe('JSON-RPC transport', () => {
  let node: Awaited<ReturnType<typeof fakeNode>>;
  before(async () => {
    node = await fakeNode();
  });
  after(() => node.server.close());

  it('batches calls made in the same tick, in batches of at most batchSize', async () => {
    node.requests.length = 0;
    node.handle((body, _req, res) => json(res, body.map(echo).reverse()));
    const client = createRpcClient({ url: node.url, batchSize: 4 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => client.request('m', [i])));
    assert.deepEqual(results, Array.from({ length: 10 }, (_, i) => `m:${i}`));
    assert.deepEqual(node.requests.map((r) => r.length), [4, 4, 2]);
  });

  it('bounds the requests in flight', async () => {
    let inFlight = 0;
    let most = 0;
    node.handle((body, _req, res) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        json(res, Array.isArray(body) ? body.map(echo) : echo(body));
      }, 20);
    });
    const client = createRpcClient({ url: node.url, batchSize: 1, concurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => client.request('m', [i])));
    assert.equal(most, 3);
  });

  it('backs off on HTTP 429, honouring Retry-After, and sends the refused batch again whole', async () => {
    node.requests.length = 0;
    let refused = 0;
    node.handle((body, _req, res) => {
      if (refused++ < 2) return json(res, { error: 'slow down' }, 429, { 'retry-after': '0' });
      json(res, Array.isArray(body) ? body.map(echo) : echo(body));
    });
    const client = createRpcClient({ url: node.url });
    const results = await Promise.all([client.request('a', [1]), client.request('b', [2])]);
    assert.deepEqual(results, ['a:1', 'b:2']);
    assert.equal(client.stats().retries, 4);
    // One timer for the calls the server asked to come back: each attempt is the same batch of two.
    assert.deepEqual(node.requests.map((r) => (Array.isArray(r) ? r.length : 1)), [2, 2, 2]);
  });

  it('re-sends only the calls of a batch that failed transiently', async () => {
    node.requests.length = 0;
    let first = true;
    node.handle((body, _req, res) => {
      const calls = Array.isArray(body) ? body : [body];
      const answers = calls.map((call: any) =>
        first && call.params[0] === 1 ? { jsonrpc: '2.0', id: call.id, error: { code: -32005, message: 'limit exceeded' } } : echo(call),
      );
      first = false;
      json(res, answers);
    });
    const client = createRpcClient({ url: node.url, backoffMs: 1 });
    assert.deepEqual(await Promise.all([0, 1, 2].map((i) => client.request('m', [i]))), ['m:0', 'm:1', 'm:2']);
    // The second request carries only the call that failed: one object, not a batch.
    assert.equal(node.requests.length, 2);
    assert.equal(node.requests[1].params[0], 1);
  });

  it('gives up after its retries with a retryable error, and times out slow answers', async () => {
    node.handle(() => undefined); // never answers
    const client = createRpcClient({ url: node.url, timeoutMs: 50, retries: 2, backoffMs: 1 });
    await assert.rejects(client.request('slow'), (error: unknown) => error instanceof RpcError && error.retryable && /slow: no answer within 50 ms/.test(error.message));
  });

  it('does not retry final errors, and tells a missing method apart', async () => {
    node.handle((body, _req, res) =>
      json(res, body.map((call: any) => ({ jsonrpc: '2.0', id: call.id, error: call.method === 'nope' ? { code: -32601, message: 'the method nope does not exist/is not available' } : { code: 3, message: 'execution reverted' } }))),
    );
    const client = createRpcClient({ url: node.url });
    const [missing, reverted] = await Promise.allSettled([client.request('nope'), client.request('call')]);
    assert.ok(missing.status === 'rejected' && missing.reason instanceof RpcMethodNotFoundError);
    assert.ok(reverted.status === 'rejected' && reverted.reason instanceof RpcError && !reverted.reason.retryable);
    assert.equal(client.stats().retries, 0);
  });

  it('falls back to single calls when the node refuses batches', async () => {
    node.handle((body, _req, res) => {
      if (Array.isArray(body)) return json(res, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported' } });
      json(res, echo(body));
    });
    const client = createRpcClient({ url: node.url });
    assert.deepEqual(await Promise.all([client.request('a', [1]), client.request('b', [2])]), ['a:1', 'b:2']);
    assert.equal(client.stats().batching, false);
  });

  it('retries a body that is not JSON, then fails with the method named', async () => {
    node.handle((_body, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>bad gateway</html>');
    });
    const client = createRpcClient({ url: node.url, retries: 2, backoffMs: 1 });
    await assert.rejects(client.request('x'), /x: response is not JSON/);
    assert.equal(client.stats().retries, 1);
  });

  it('fails queued and waiting calls on close', async () => {
    node.handle(() => undefined);
    const client = createRpcClient({ url: node.url, timeoutMs: 30, retries: 5, backoffMs: 10_000 });
    const pending = client.request('x');
    await new Promise((resolve) => setTimeout(resolve, 80));
    client.close();
    await assert.rejects(pending, /closed/);
  });
});
