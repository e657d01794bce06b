/**
 * A client of the standard Ethereum beacon node HTTP API (ethereum/beacon-APIs), which QRL 2.0's
 * consensus client serves too. One function per endpoint, named after the API's operationId.
 * Answers are validated here: numbers arrive as decimal strings and leave as bigint (gwei) or
 * number (indexes, epochs, slots); a malformed answer is a `BeaconDataError`.
 *
 * Transport: bounded concurrency, a timeout per request, retries with backoff on network errors,
 * timeouts, 429 (honouring Retry-After) and 5xx. 404 is an answer ("no block in that slot").
 */
import { parsePosAddress } from '../../chain/addresses.ts';

export interface BeaconClientOptions {
  url: string;
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

export interface BeaconValidator {
  index: number;
  pubkey: string;
  /** Execution address of 0x01/0x02 withdrawal credentials; null for BLS (0x00) credentials. */
  withdrawalAddress: string | null;
  status: string;
  /** Gwei. */
  balance: bigint;
  effectiveBalance: bigint;
  slashed: boolean;
  activationEpoch: number | null;
  exitEpoch: number | null;
}

export interface BeaconClient {
  getGenesis(): Promise<{ genesisTime: number }>;
  /** `minSlashingPenaltyQuotient`: MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX, 32 when the node does not list it. */
  getSpec(): Promise<{ secondsPerSlot: number; slotsPerEpoch: number; minSlashingPenaltyQuotient: number }>;
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

export function createBeaconClient(options: BeaconClientOptions): BeaconClient {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const retries = Math.max(1, options.retries ?? 6);
  const backoffMs = options.backoffMs ?? 250;
  let inFlight = 0;
  const waiting: (() => void)[] = [];

  async function request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown | null> {
    if (inFlight >= concurrency) await new Promise<void>((resolve) => waiting.push(resolve));
    else inFlight++;
    try {
      for (let attempt = 1; ; attempt++) {
        let retryAfter: number | undefined;
        let failure: BeaconError;
        try {
          const response = await doFetch(`${base}${path}`, {
            method,
            headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(timeoutMs),
          });
          if (response.status === 404) return null;
          const text = await response.text();
          if (response.ok) {
            try {
              return JSON.parse(text);
            } catch {
              throw new BeaconError(`${method} ${path}: answer is not JSON`, true, response.status);
            }
          }
          const header = Number(response.headers.get('retry-after'));
          retryAfter = Number.isFinite(header) && header >= 0 ? Math.min(header * 1000, 60_000) : undefined;
          failure = new BeaconError(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 200)}`, response.status === 429 || response.status >= 500, response.status);
        } catch (error) {
          failure = error instanceof BeaconError ? error : new BeaconError(`${method} ${path}: ${error instanceof Error ? error.message : String(error)}`, true);
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

  async function data(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown | null> {
    const answer = await request(method, path, body);
    if (answer === null) return null;
    if (typeof answer !== 'object' || !('data' in answer)) throw new BeaconDataError(path, 'answer has no data');
    return (answer as { data: unknown }).data;
  }

  async function required(path: string): Promise<Record<string, unknown>> {
    const value = await data('GET', path);
    if (value === null) throw new BeaconError(`GET ${path}: not found`, false, 404);
    return record(value, path);
  }

  return {
    async getGenesis() {
      const genesis = await required('/eth/v1/beacon/genesis');
      return { genesisTime: Number(uint(genesis.genesis_time, 'genesis_time')) };
    },
    async getSpec() {
      const spec = await required('/eth/v1/config/spec');
      const quotient = spec.MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX === undefined ? 32n : uint(spec.MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX, 'MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX');
      if (quotient === 0n) throw new BeaconDataError('MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX', 'expected a positive number');
      return {
        secondsPerSlot: Number(uint(spec.SECONDS_PER_SLOT, 'SECONDS_PER_SLOT')),
        slotsPerEpoch: Number(uint(spec.SLOTS_PER_EPOCH, 'SLOTS_PER_EPOCH')),
        minSlashingPenaltyQuotient: Number(quotient),
      };
    },
    async getStateFinalityCheckpoints(stateId) {
      const checkpoints = await required(`/eth/v1/beacon/states/${stateId}/finality_checkpoints`);
      return { finalizedEpoch: Number(uint(record(checkpoints.finalized, 'finalized').epoch, 'finalized.epoch')) };
    },
    async getStateValidators(stateId) {
      const path = `/eth/v1/beacon/states/${stateId}/validators`;
      const list = await data('GET', path);
      if (list === null) throw new BeaconError(`GET ${path}: state not available (an archive beacon node is needed for past days)`, false, 404);
      return array(list, 'validators').map((entry, i) => {
        const item = record(entry, `validators[${i}]`);
        const validator = record(item.validator, `validators[${i}].validator`);
        const credentials = hex(validator.withdrawal_credentials, `validators[${i}].withdrawal_credentials`);
        const activation = uint(validator.activation_epoch, `validators[${i}].activation_epoch`);
        const exit = uint(validator.exit_epoch, `validators[${i}].exit_epoch`);
        if (typeof item.status !== 'string') throw new BeaconDataError(`validators[${i}].status`, 'expected a string');
        if (typeof validator.slashed !== 'boolean') throw new BeaconDataError(`validators[${i}].slashed`, 'expected a boolean');
        return {
          index: Number(uint(item.index, `validators[${i}].index`)),
          pubkey: hex(validator.pubkey, `validators[${i}].pubkey`),
          withdrawalAddress: withdrawalAddress(credentials),
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
      const path = `/eth/v1/beacon/rewards/attestations/${epoch}`;
      const value = await data('POST', path, []);
      if (value === null) throw new BeaconError(`POST ${path}: not available`, false, 404);
      const totals = new Map<number, bigint>();
      for (const [i, entry] of array(record(value, 'rewards').total_rewards, 'total_rewards').entries()) {
        const item = record(entry, `total_rewards[${i}]`);
        let sum = 0n;
        for (const part of ['head', 'target', 'source', 'inclusion_delay', 'inactivity']) {
          if (item[part] !== undefined) sum += int(item[part], `total_rewards[${i}].${part}`);
        }
        totals.set(Number(uint(item.validator_index, `total_rewards[${i}].validator_index`)), sum);
      }
      return totals;
    },
    async getBlockRewards(slot) {
      const value = await data('GET', `/eth/v1/beacon/rewards/blocks/${slot}`);
      if (value === null) return null;
      const rewards = record(value, 'block rewards');
      return { proposerIndex: Number(uint(rewards.proposer_index, 'proposer_index')), total: uint(rewards.total, 'total') };
    },
    async getSyncCommitteeRewards(slot) {
      const value = await data('POST', `/eth/v1/beacon/rewards/sync_committee/${slot}`, []);
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

/** 0x01 and 0x02 credentials end in the 20-byte execution address; 0x00 is a BLS key hash. */
export function withdrawalAddress(credentials: string): string | null {
  if (credentials.length !== 66 || !(credentials.startsWith('0x01') || credentials.startsWith('0x02'))) return null;
  const parsed = parsePosAddress(`0x${credentials.slice(26)}`, 20);
  return parsed.ok ? parsed.address : null;
}
