/**
 * A go-qrl execution node's HTTP JSON-RPC surface, as a translating proxy in front of Anvil. It
 * follows theQRL/go-qrl v0.3.0 (commit f6be71fce79a23e0878cdb03c8a7ae2269d84b58, April 2026):
 * - namespaces: `qrl` (internal/qrlapi/backend.go `GetAPIs`, qrl/filters/api.go), `txpool`,
 *   `debug` (qrl/tracers/api.go), `net`, `web3`, and `rpc_modules` (rpc/server.go); no `eth_`, no
 *   `trace_`. A module is served only when listed in `modules`, as `--http.api` lists them
 *   (cmd/utils/flags.go); without it a node serves node/defaults.go's `HTTPModules`, `net,web3`.
 * - a method it does not serve answers -32601 "the method X does not exist/is not available"
 *   (rpc/errors.go `methodNotFoundError`), a parameter that does not decode -32602 (`invalidParamsError`);
 * - JSON-RPC batches (rpc/handler.go), answered in order; an empty batch is -32600 "empty batch".
 * The shapes of its answers and the reading of its address parameters are in ./shapes.ts.
 *
 * `addressBytes: 64` is the 64-byte go-qrl fork, rgeraldes24/go-qrl at commit 7f427122d (main,
 * 2026-07-21): every Anvil address is extended by a fixed 44-byte tail (reversibly) in every
 * address field of answers and parameters, and printed QIP-55 mixed case (common/types.go
 * `Address.MarshalText`); logs (receipts, `qrl_getLogs`, call frames) have 64-byte topics and data
 * words, `qrl_call` returns 64-byte ABI words, and a client's 64-byte calldata words and filter
 * topics are narrowed back for Anvil (./vm64.ts says how, and where it is simpler than the node).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { AddressBook, block, header, log, ParamError, receipt, traceResult, transaction, txpoolContent } from './shapes.ts';
import { narrowCalldata, narrowTopic, widenReturn } from './vm64.ts';

export interface GoQrlOptions {
  /** Anvil's URL. */
  upstream: string;
  /** `--http.api`: the modules served (default go-qrl's `net,web3`). */
  modules?: readonly string[];
  addressBytes?: 20 | 64;
}

export interface GoQrlNode {
  url: string;
  /** A call as a client of go-qrl makes it; rejects with the node's error message. */
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  /** The node restarted with another `--http.api`: serves these modules from now on. */
  setModules(modules: readonly string[]): void;
  /** The address as this node prints it, for an Anvil `0x…` address. */
  address(anvil: string): string;
  stop(): Promise<void>;
}

/** node/defaults.go `DefaultConfig.HTTPModules`. */
export const DEFAULT_HTTP_MODULES = ['net', 'web3'] as const;

/** web3_clientVersion as gqrl builds it (params of version/version.go, cmd/gqrl's "gqrl" identifier). */
const CLIENT_VERSION = 'Gqrl/v0.3.0-stable-f6be71fc/linux-amd64/go1.25.5';

/** The `qrl_` methods go-qrl v0.3.0 registers (api.go's QRLAPI, BlockChainAPI, TransactionAPI, QRLAccountAPI; filters; downloader). */
const QRL_METHODS = new Set([
  'gasPrice', 'maxPriorityFeePerGas', 'feeHistory', 'syncing', 'accounts', 'chainId', 'blockNumber', 'getBalance', 'getProof',
  'getHeaderByNumber', 'getHeaderByHash', 'getBlockByNumber', 'getBlockByHash', 'getCode', 'getStorageAt', 'getBlockReceipts',
  'call', 'estimateGas', 'createAccessList', 'getBlockTransactionCountByNumber', 'getBlockTransactionCountByHash',
  'getTransactionByBlockNumberAndIndex', 'getTransactionByBlockHashAndIndex', 'getRawTransactionByBlockNumberAndIndex',
  'getRawTransactionByBlockHashAndIndex', 'getTransactionCount', 'getTransactionByHash', 'getRawTransactionByHash',
  'getTransactionReceipt', 'sendTransaction', 'fillTransaction', 'sendRawTransaction', 'sign', 'signTransaction',
  'pendingTransactions', 'resend', 'newPendingTransactionFilter', 'newBlockFilter', 'newFilter', 'getLogs', 'uninstallFilter',
  'getFilterLogs', 'getFilterChanges',
]);

/** Positional `common.Address` parameters, by method. */
const ADDRESS_PARAMS: Record<string, number[]> = {
  qrl_getBalance: [0], qrl_getCode: [0], qrl_getStorageAt: [0], qrl_getTransactionCount: [0], qrl_getProof: [0], qrl_sign: [0], txpool_contentFrom: [0],
};
/** Methods whose first parameter is a TransactionArgs. */
const TX_ARGS = new Set(['qrl_call', 'qrl_estimateGas', 'qrl_createAccessList', 'qrl_sendTransaction', 'qrl_fillTransaction', 'qrl_signTransaction', 'debug_traceCall']);

type Request = { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown };
type Response = { jsonrpc: '2.0'; id: unknown; result?: unknown; error?: { code: number; message: string; data?: unknown } };

class RpcFailure extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** The upstream (Anvil) method of a go-qrl method, or a refusal as go-qrl refuses it. */
function upstreamMethod(method: string, modules: ReadonlySet<string>): string {
  const [namespace, name] = method.split(/_(.*)/s) as [string, string | undefined];
  const notFound = () => new RpcFailure(-32601, `the method ${method} does not exist/is not available`);
  if (name === undefined || name === '') throw notFound();
  if (namespace === 'rpc' && name === 'modules') return method;
  if (!modules.has(namespace)) throw notFound();
  if (namespace === 'qrl') {
    if (!QRL_METHODS.has(name)) throw notFound();
    return `eth_${name}`;
  }
  if (namespace === 'debug' || namespace === 'txpool' || namespace === 'net') return method;
  if (namespace === 'web3' && (name === 'clientVersion' || name === 'sha3')) return method;
  throw notFound();
}

/** Parameters as Anvil reads them; addresses must carry `Q`, as go-qrl decodes them. */
function upstreamParams(book: AddressBook, method: string, params: unknown[]): unknown[] {
  const out = [...params];
  for (const i of ADDRESS_PARAMS[method] ?? []) if (i < out.length) out[i] = book.param(out[i], i);
  if (TX_ARGS.has(method) && out[0] !== null && typeof out[0] === 'object') {
    const args = { ...(out[0] as Record<string, unknown>) };
    for (const field of ['from', 'to'] as const) if (args[field] !== undefined && args[field] !== null) args[field] = book.field(args[field], 0, 'TransactionArgs', field);
    if (book.bytes === 64) for (const field of ['data', 'input'] as const) if (args[field] !== undefined) args[field] = narrowCalldata(book, args[field]);
    if (Array.isArray(args.accessList)) args.accessList = args.accessList.map((e: Record<string, unknown>) => ({ ...e, address: book.field(e.address, 0, 'TransactionArgs', 'accessList.address') }));
    out[0] = args;
  }
  if ((method === 'qrl_getLogs' || method === 'qrl_newFilter') && out[0] !== null && typeof out[0] === 'object') {
    const filter = { ...(out[0] as Record<string, unknown>) };
    const a = filter.address;
    const fail = (reason: string) => new ParamError(`invalid argument 0: ${reason}`);
    if (Array.isArray(a)) {
      filter.address = a.map((entry, i) => {
        if (typeof entry !== 'string') throw fail(`non-string address at index ${i}`);
        try {
          return book.filterAddress(entry);
        } catch (error) {
          throw fail(`invalid address at index ${i}: ${(error as Error).message}`);
        }
      });
    } else if (typeof a === 'string') {
      try {
        filter.address = book.filterAddress(a);
      } catch (error) {
        throw fail(`invalid address: ${(error as Error).message}`);
      }
    } else if (a !== undefined && a !== null) {
      throw fail('invalid addresses in query');
    }
    if (book.bytes === 64 && Array.isArray(filter.topics)) {
      filter.topics = filter.topics.map((t: unknown) => (Array.isArray(t) ? t.map((u) => narrowTopic(book, u)) : narrowTopic(book, t)));
    }
    out[0] = filter;
  }
  return out;
}

/** Anvil's answer in go-qrl's shape. */
function answer(book: AddressBook, method: string, params: unknown[], result: any): unknown {
  const many = (f: (x: any) => unknown) => (Array.isArray(result) ? result.map(f) : result);
  switch (method) {
    case 'qrl_getBlockByNumber':
    case 'qrl_getBlockByHash':
      return block(book, result);
    case 'qrl_getHeaderByNumber':
    case 'qrl_getHeaderByHash':
      return result === null ? null : header(book, result);
    case 'qrl_getTransactionByHash':
    case 'qrl_getTransactionByBlockNumberAndIndex':
    case 'qrl_getTransactionByBlockHashAndIndex':
      return result === null ? null : transaction(book, result);
    case 'qrl_pendingTransactions':
      return many((tx) => transaction(book, tx));
    case 'qrl_getTransactionReceipt':
      return receipt(book, result);
    case 'qrl_getBlockReceipts':
      return many((r) => receipt(book, r));
    case 'qrl_getLogs':
    case 'qrl_getFilterLogs':
    case 'qrl_getFilterChanges':
      return many((l) => (typeof l === 'string' ? l : log(book, l)));
    case 'qrl_call': {
      const args = params[0] as Record<string, unknown> | undefined;
      return book.bytes === 64 ? widenReturn(book, args?.data ?? args?.input, result) : result;
    }
    case 'qrl_accounts':
      return many((a) => book.out(a));
    case 'debug_traceBlockByNumber':
    case 'debug_traceBlockByHash':
    case 'debug_traceBlock':
      return many((t) => ({ txHash: t.txHash, ...(t.result !== undefined ? { result: traceResult(book, t.result) } : {}), ...(t.error !== undefined ? { error: t.error } : {}) }));
    case 'debug_traceTransaction':
    case 'debug_traceCall':
      return traceResult(book, result);
    case 'txpool_content':
      return txpoolContent(book, result, false);
    case 'txpool_contentFrom':
      return txpoolContent(book, result, true);
    default:
      return result;
  }
}

export async function startGoQrl(options: GoQrlOptions): Promise<GoQrlNode> {
  let modules: ReadonlySet<string> = new Set(options.modules ?? DEFAULT_HTTP_MODULES);
  const book = new AddressBook(options.addressBytes ?? 20);

  async function handle(requests: Request[]): Promise<Response[]> {
    const responses: (Response | undefined)[] = new Array(requests.length);
    const forwarded: { index: number; method: string; params: unknown[]; body: unknown }[] = [];
    requests.forEach((request, index) => {
      const id = request?.id ?? null;
      try {
        if (typeof request !== 'object' || request === null || typeof request.method !== 'string') throw new RpcFailure(-32600, 'invalid request');
        const method = request.method;
        const upstream = upstreamMethod(method, modules);
        if (method === 'rpc_modules') {
          responses[index] = { jsonrpc: '2.0', id, result: Object.fromEntries([...modules, 'rpc'].sort().map((m) => [m, '1.0'])) };
          return;
        }
        if (method === 'web3_clientVersion' || method === 'net_peerCount') {
          // Anvil has no peers to count; a lone go-qrl node has none either.
          responses[index] = { jsonrpc: '2.0', id, result: method === 'net_peerCount' ? '0x0' : CLIENT_VERSION };
          return;
        }
        const params = Array.isArray(request.params) ? request.params : [];
        forwarded.push({ index, method, params, body: { jsonrpc: '2.0', id: index, method: upstream, params: upstreamParams(book, method, params) } });
      } catch (error) {
        if (error instanceof RpcFailure) responses[index] = { jsonrpc: '2.0', id, error: { code: error.code, message: error.message } };
        else if (error instanceof ParamError) responses[index] = { jsonrpc: '2.0', id, error: { code: -32602, message: error.message } };
        else throw error;
      }
    });
    if (forwarded.length > 0) {
      const reply = await fetch(options.upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forwarded.map((f) => f.body)) });
      const bodies = (await reply.json()) as { id: number; result?: unknown; error?: Response['error'] }[];
      const byId = new Map(bodies.map((b) => [b.id, b]));
      for (const f of forwarded) {
        const id = requests[f.index]!.id ?? null;
        const body = byId.get(f.index);
        if (!body) responses[f.index] = { jsonrpc: '2.0', id, error: { code: -32603, message: 'no answer from upstream' } };
        else if (body.error) responses[f.index] = { jsonrpc: '2.0', id, error: body.error };
        else {
          try {
            responses[f.index] = { jsonrpc: '2.0', id, result: answer(book, f.method, f.params, body.result) };
          } catch (error) {
            // Something go-qrl could not have answered (a legacy transaction, a SELFDESTRUCT frame): loud.
            responses[f.index] = { jsonrpc: '2.0', id, error: { code: -32603, message: `go-qrl fake: ${(error as Error).message}` } };
          }
        }
      }
    }
    return responses as Response[];
  }

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      let data = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (data += chunk));
      req.on('end', () => resolve(data));
      req.on('error', reject);
    });

  const server: Server = createServer((req, res) => {
    void (async () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST') return send(405, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'method not allowed' } });
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readBody(req));
      } catch {
        return send(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
      }
      try {
        if (Array.isArray(parsed)) {
          if (parsed.length === 0) return send(200, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } });
          return send(200, await handle(parsed as Request[]));
        }
        return send(200, (await handle([parsed as Request]))[0]);
      } catch (error) {
        // Anvil gone or restarting: a node that cannot serve answers 5xx-like, and the client retries.
        res.writeHead(503, { 'content-type': 'text/plain' });
        res.end(String((error as Error).message));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  return {
    url,
    setModules: (list) => {
      modules = new Set(list);
    },
    address: (anvil) => book.out(anvil),
    async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
      const body = (await response.json()) as Response;
      if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
      return body.result as T;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
