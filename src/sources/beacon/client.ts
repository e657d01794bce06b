/**
 * A client of a beacon node's HTTP API as QRL 2.0's consensus client, qrysm, serves it (its routes
 * under `/qrl/v1`, older builds `/zond/v1`), and as Ethereum's beacon-APIs do under `/eth/v1`. One
 * function per endpoint, named after the API's operationId. The route prefix is detected at the
 * first call (the first of `/qrl/v1`, `/zond/v1`, `/eth/v1` whose `beacon/genesis` answers) unless
 * `api` forces it. Answers are validated here: numbers arrive as decimal strings and leave as bigint
 * (gwei, qrysm's shor: 10^-9 of a coin either way) or number (indexes, epochs, slots); a malformed
 * answer is a `BeaconDataError`.
 *
 * Transport: bounded concurrency, a timeout per request, retries with backoff on network errors,
 * timeouts, 429 (honouring Retry-After) and 5xx. A 404 is told apart the way qrysm's server makes
 * them: its handlers answer a JSON error body (`{"message", "code": 404}`, application/json, e.g.
 * "Could not find requested block" for an empty slot), which is an answer ("nothing there"); its
 * HTTP router answers a route it does not have with a plain-text `404 page not found`, which is a
 * `BeaconRouteError` naming the route and the node.
 */
import { POS_ADDRESS_WIDTHS } from '../../chain/network.ts';

export const BEACON_APIS = ['qrl', 'zond', 'eth'] as const;
/** The route prefix of a beacon API: `/qrl/v1` (qrysm), `/zond/v1` (older qrysm), `/eth/v1` (Ethereum). */
export type BeaconApi = (typeof BEACON_APIS)[number];

export interface BeaconClientOptions {
  url: string;
  /** The route prefix; detected at the first call when not given. */
  api?: BeaconApi;
  /** Requests in flight. Default 8. */
  concurrency?: number;
  timeoutMs?: number;
  retries?: number;
  backoffMs?: number;
  fetch?: typeof fetch;
}

export class BeaconError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** The request that failed, `GET /qrl/v1/…`, when there was one. */
    readonly route?: string,
  ) {
    super(message);
    this.name = 'BeaconError';
  }
}

export class BeaconDataError extends BeaconError {
  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`, false);
    this.name = 'BeaconDataError';
  }
}

/** The node has no such route (its router's 404, not an API answer): nothing to retry until the node changes. */
export class BeaconRouteError extends BeaconError {
  constructor(
    route: string,
    readonly node: string,
    detail: string,
  ) {
    super(`${route}: the beacon node at ${node} has no such route (${detail})`, false, 404, route);
    this.name = 'BeaconRouteError';
  }
}

export interface BeaconValidator {
  index: number;
  pubkey: string;
  /**
   * The execution address withdrawals go to, canonical (`Q` + lowercase hex): qrysm's credentials
   * are the address itself, Ethereum's 0x01/0x02 credentials end in it; null for BLS (0x00) credentials.
   */
  withdrawalAddress: string | null;
  status: string;
  /** Gwei (shor on qrysm). */
  balance: bigint;
  effectiveBalance: bigint;
  slashed: boolean;
  activationEpoch: number | null;
  exitEpoch: number | null;
}

export interface BeaconSpec {
  secondsPerSlot: number;
  slotsPerEpoch: number;
  /** qrysm's MIN_SLASHING_PENALTY_QUOTIENT, else Ethereum's MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX, else 32. */
  minSlashingPenaltyQuotient: number;
  /** MAX_EFFECTIVE_BALANCE (gwei or shor; 40,000 coins on qrysm's mainnet), null when the node does not list it. */
  maxEffectiveBalance: bigint | null;
}

export interface BeaconClient {
  /** The route prefix in use (detected at the first call unless forced). */
  api(): Promise<BeaconApi>;
  /** The node's URL without credentials, query or fragment: what messages name. */
  readonly node: string;
  getGenesis(): Promise<{ genesisTime: number }>;
  getSpec(): Promise<BeaconSpec>;
  getStateFinalityCheckpoints(stateId: string): Promise<{ finalizedEpoch: number }>;
  getStateValidators(stateId: string): Promise<BeaconValidator[]>;
  /** Net attestation rewards of each validator for `epoch` (gwei, may be negative). */
  getAttestationsRewards(epoch: number): Promise<Map<number, bigint>>;
  /** The proposer's reward for the block in `slot`, or null for an empty slot. */
  getBlockRewards(slot: number): Promise<{ proposerIndex: number; total: bigint } | null>;
  /** Sync committee rewards of the block in `slot` (gwei, may be negative), or null for an empty slot. */
  getSyncCommitteeRewards(slot: number): Promise<Map<number, bigint> | null>;
}

/** Epochs at or past this are "never" (FAR_FUTURE_EPOCH = 2^64 − 1). */
const FAR_FUTURE = 2n ** 63n;

/** `url` as messages may show it: no user, password, query or fragment. */
export function nodeName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * Where requests go: the URL's origin and path, its query after each route (a provider's key), and
 * its user and password as Basic authorization (fetch refuses a URL that carries them).
 */
function target(url: string): { base: string; query: string; authorization: string | undefined } {
  const parsed = new URL(url);
  const authorization = parsed.username || parsed.password ? `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}` : undefined;
  return { base: `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`, query: parsed.search, authorization };
}

/** A 404 with the API's JSON error body is the node's answer; anything else came from its router. */
function isApiAnswer(contentType: string | null, text: string): boolean {
  if (!contentType?.toLowerCase().includes('application/json')) return false;
  try {
    const body = JSON.parse(text) as unknown;
    return typeof body === 'object' && body !== null && ('message' in body || 'code' in body);
  } catch {
    return false;
  }
}

export function createBeaconClient(options: BeaconClientOptions): BeaconClient {
  const { base, query, authorization } = target(options.url);
  const node = nodeName(options.url);
  const doFetch = options.fetch ?? fetch;
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const retries = Math.max(1, options.retries ?? 6);
  const backoffMs = options.backoffMs ?? 250;
  let inFlight = 0;
  const waiting: (() => void)[] = [];

  async function request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown | null> {
    const route = `${method} ${path}`;
    if (inFlight >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    else inFlight++;
    try {
      for (let attempt = 1; ; attempt++) {
        let retryAfter: number | undefined;
        let failure: BeaconError;
        try {
          const response = await doFetch(`${base}${path}${query}`, {
            method,
            headers: { accept: 'application/json', ...(authorization ? { authorization } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(timeoutMs),
          });
          const text = await response.text();
          if (response.status === 404) {
            if (isApiAnswer(response.headers.get('content-type'), text)) return null;
            throw new BeaconRouteError(route, node, `HTTP 404 ${JSON.stringify(text.trim().slice(0, 80))}`);
          }
          if (response.ok) {
            try {
              return JSON.parse(text);
            } catch {
              throw new BeaconError(`${route}: answer is not JSON`, true, response.status, route);
            }
          }
          const header = Number(response.headers.get('retry-after'));
          retryAfter = Number.isFinite(header) && header >= 0 ? Math.min(header * 1000, 60_000) : undefined;
          failure = new BeaconError(`${route}: HTTP ${response.status} ${text.slice(0, 200)}`, response.status === 429 || response.status >= 500, response.status, route);
        } catch (error) {
          failure = error instanceof BeaconError ? error : new BeaconError(`${route}: ${error instanceof Error ? error.message : String(error)}`, true, undefined, route);
        }
        if (!failure.retryable || attempt >= retries) throw failure;
        await new Promise((resolve) => setTimeout(resolve, retryAfter ?? Math.min(10_000, backoffMs * 2 ** (attempt - 1))));
      }
    } finally {
      const next = waiting.shift();
      if (next) next();
      else inFlight--;
    }
  }

  let detected: Promise<BeaconApi> | undefined;
  /** The first prefix whose genesis route answers 200; a network failure is thrown (and detection retried later). */
  async function detect(): Promise<BeaconApi> {
    const tried: string[] = [];
    for (const api of BEACON_APIS) {
      const path = `/${api}/v1/beacon/genesis`;
      try {
        if ((await request('GET', path)) !== null) return api;
        tried.push(`${path} (the API's 404)`);
      } catch (error) {
        if (!(error instanceof BeaconRouteError)) throw error;
        tried.push(`${path} (no such route)`);
      }
    }
    throw new BeaconError(`no beacon API at ${node}: tried GET ${tried.join(', ')}`, false, 404, `GET /${BEACON_APIS[0]}/v1/beacon/genesis`);
  }
  function api(): Promise<BeaconApi> {
    if (options.api) return Promise.resolve(options.api);
    detected ??= detect().catch((error: unknown) => {
      detected = undefined;
      throw error;
    });
    return detected;
  }
  const prefixed = async (path: string) => `/${await api()}/v1${path}`;

  async function data(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown | null> {
    const answer = await request(method, path, body);
    if (answer === null) return null;
    if (typeof answer !== 'object' || !('data' in answer)) throw new BeaconDataError(path, 'answer has no data');
    return (answer as { data: unknown }).data;
  }

  async function required(path: string): Promise<Record<string, unknown>> {
    const value = await data('GET', path);
    if (value === null) throw new BeaconError(`GET ${path}: not found`, false, 404, `GET ${path}`);
    return record(value, path);
  }

  return {
    api,
    node,
    async getGenesis() {
      const genesis = await required(await prefixed('/beacon/genesis'));
      return { genesisTime: Number(uint(genesis.genesis_time, 'genesis_time')) };
    },
    async getSpec() {
      const spec = await required(await prefixed('/config/spec'));
      const quotientKey = ['MIN_SLASHING_PENALTY_QUOTIENT', 'MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX'].find((key) => spec[key] !== undefined);
      const quotient = quotientKey === undefined ? 32n : uint(spec[quotientKey], quotientKey);
      if (quotient === 0n) throw new BeaconDataError(quotientKey!, 'expected a positive number');
      const secondsPerSlot = Number(uint(spec.SECONDS_PER_SLOT, 'SECONDS_PER_SLOT'));
      const slotsPerEpoch = Number(uint(spec.SLOTS_PER_EPOCH, 'SLOTS_PER_EPOCH'));
      if (secondsPerSlot === 0 || slotsPerEpoch === 0) throw new BeaconDataError('SECONDS_PER_SLOT, SLOTS_PER_EPOCH', 'expected positive numbers');
      return {
        secondsPerSlot,
        slotsPerEpoch,
        minSlashingPenaltyQuotient: Number(quotient),
        maxEffectiveBalance: spec.MAX_EFFECTIVE_BALANCE === undefined ? null : uint(spec.MAX_EFFECTIVE_BALANCE, 'MAX_EFFECTIVE_BALANCE'),
      };
    },
    async getStateFinalityCheckpoints(stateId) {
      const checkpoints = await required(await prefixed(`/beacon/states/${stateId}/finality_checkpoints`));
      return { finalizedEpoch: Number(uint(record(checkpoints.finalized, 'finalized').epoch, 'finalized.epoch')) };
    },
    async getStateValidators(stateId) {
      const path = await prefixed(`/beacon/states/${stateId}/validators`);
      const list = await data('GET', path);
      if (list === null) throw new BeaconError(`GET ${path}: state not available (an archive beacon node is needed for past days)`, false, 404, `GET ${path}`);
      return array(list, 'validators').map((entry, i) => {
        const item = record(entry, `validators[${i}]`);
        const validator = record(item.validator, `validators[${i}].validator`);
        const activation = uint(validator.activation_epoch, `validators[${i}].activation_epoch`);
        const exit = uint(validator.exit_epoch, `validators[${i}].exit_epoch`);
        if (typeof item.status !== 'string') throw new BeaconDataError(`validators[${i}].status`, 'expected a string');
        if (typeof validator.slashed !== 'boolean') throw new BeaconDataError(`validators[${i}].slashed`, 'expected a boolean');
        return {
          index: Number(uint(item.index, `validators[${i}].index`)),
          pubkey: hex(validator.pubkey, `validators[${i}].pubkey`),
          withdrawalAddress: validatorWithdrawalAddress(validator, `validators[${i}]`),
          status: item.status,
          balance: uint(item.balance, `validators[${i}].balance`),
          effectiveBalance: uint(validator.effective_balance, `validators[${i}].effective_balance`),
          slashed: validator.slashed,
          activationEpoch: activation >= FAR_FUTURE ? null : Number(activation),
          exitEpoch: exit >= FAR_FUTURE ? null : Number(exit),
        };
      });
    },
    async getAttestationsRewards(epoch) {
      const path = await prefixed(`/beacon/rewards/attestations/${epoch}`);
      const value = await data('POST', path, []);
      if (value === null) throw new BeaconError(`POST ${path}: not available`, false, 404, `POST ${path}`);
      const totals = new Map<number, bigint>();
      for (const [i, entry] of array(record(value, 'rewards').total_rewards, 'total_rewards').entries()) {
        const item = record(entry, `total_rewards[${i}]`);
        let sum = 0n;
        // qrysm answers inclusion_delay as "" (never computed) and has no inactivity component.
        for (const part of ['head', 'target', 'source', 'inclusion_delay', 'inactivity']) {
          if (item[part] !== undefined && item[part] !== '') sum += int(item[part], `total_rewards[${i}].${part}`);
        }
        totals.set(Number(uint(item.validator_index, `total_rewards[${i}].validator_index`)), sum);
      }
      return totals;
    },
    async getBlockRewards(slot) {
      const value = await data('GET', await prefixed(`/beacon/rewards/blocks/${slot}`));
      if (value === null) return null;
      const rewards = record(value, 'block rewards');
      return { proposerIndex: Number(uint(rewards.proposer_index, 'proposer_index')), total: uint(rewards.total, 'total') };
    },
    async getSyncCommitteeRewards(slot) {
      const value = await data('POST', await prefixed(`/beacon/rewards/sync_committee/${slot}`), []);
      if (value === null) return null;
      const rewards = new Map<number, bigint>();
      for (const [i, entry] of array(value, 'sync rewards').entries()) {
        const item = record(entry, `sync rewards[${i}]`);
        rewards.set(Number(uint(item.validator_index, `sync rewards[${i}].validator_index`)), int(item.reward, `sync rewards[${i}].reward`));
      }
      return rewards;
    },
  };
}

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BeaconDataError(path, 'expected an object');
  return value as Record<string, unknown>;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new BeaconDataError(path, 'expected an array');
  return value;
}

function uint(value: unknown, path: string): bigint {
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value);
  throw new BeaconDataError(path, 'expected a decimal string');
}

function int(value: unknown, path: string): bigint {
  if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) return BigInt(value);
  throw new BeaconDataError(path, 'expected a decimal string');
}

function hex(value: unknown, path: string): string {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]*$/.test(value)) return value.toLowerCase();
  throw new BeaconDataError(path, 'expected hex');
}


/**
 * The withdrawal address of a validator record: newer qrysm's `withdrawal_recipient`, else
 * `withdrawal_credentials`. A malformed value is a `BeaconDataError`; credentials that name no
 * address (BLS 0x00) are null.
 */
function validatorWithdrawalAddress(validator: Record<string, unknown>, path: string): string | null {
  if (validator.withdrawal_recipient !== undefined) {
    const value = validator.withdrawal_recipient;
    const address = typeof value === 'string' ? withdrawalAddress(/^[Qq]/.test(value) ? `0x${value.slice(1)}` : value) : null;
    if (address === null) throw new BeaconDataError(`${path}.withdrawal_recipient`, 'expected an address of 20 or 64 bytes');
    return address;
  }
  return withdrawalAddress(hex(validator.withdrawal_credentials, `${path}.withdrawal_credentials`));
}

/**
 * The canonical address (`Q` + lowercase hex) that `credentials` (0x-hex) pay withdrawals to.
 * qrysm's credentials are the execution address itself (state-native `ExecutionAddressOffset = 0`,
 * fieldparams `WithdrawalCredentialsLength` = the address size: 20 bytes, 64 with go-qrllib's wide
 * addresses); Ethereum's (and early qrysm's) 32-byte 0x01/0x02 credentials end in a 20-byte address;
 * anything else (a BLS 0x00 key hash) names none.
 */
export function withdrawalAddress(credentials: string): string | null {
  if (!/^0x[0-9a-fA-F]*$/.test(credentials)) return null;
  const body = credentials.slice(2).toLowerCase();
  const bytes = body.length / 2;
  if ((POS_ADDRESS_WIDTHS as readonly number[]).includes(bytes)) return `Q${body}`;
  if (bytes === 32 && (body.startsWith('01') || body.startsWith('02'))) return `Q${body.slice(24)}`;
  return null;
}
