/**
 * A fake beacon node for tests over a small deterministic chain model, in two flavours. The model's
 * reward functions are exported so tests can compute what a day should add up to.
 *
 * `eth` (the default) speaks Ethereum's beacon-APIs under `/eth/v1` with their JSON shapes (decimal
 * strings for numbers, `{execution_optimistic, finalized, data}` envelopes, 404 bodies
 * `{code, message}`, for unknown routes too).
 *
 * `qrysm` is QRL 2.0's consensus client as theQRL/qrysm serves it (read at commit dfc813be, 2026;
 * `/zond/v1` as v0.1.1 and the `dev` branch of February 2025 have it, with `qrysmPrefix: 'zond'`):
 * - routes under `/qrl/v1` only, registered on a gorilla/mux router (beacon-chain/rpc/service.go, the
 *   spec through the gateway's API middleware, beacon-chain/rpc/apimiddleware/endpoint_factory.go);
 *   anything else answers the router's default 404, `404 page not found` as text/plain (gorilla/mux
 *   v1.8 with no NotFoundHandler: beacon-chain/node/node.go, api/gateway/gateway.go);
 * - handler errors as network/http's DefaultErrorJson `{"message", "code"}`, application/json: an
 *   empty slot's rewards "Could not find requested block" (beacon-chain/rpc/qrl/shared/errors.go),
 *   attestation rewards only up to the current epoch − 2 (beacon-chain/rpc/qrl/rewards/handlers.go);
 * - attestation rewards of every validator with `head`, `target`, `source` and `inclusion_delay`
 *   left "" (rewards/structs.go; no `inactivity`);
 * - the mainnet configuration (config/params/mainnet_config.go; keys from config.go's yaml tags):
 *   SECONDS_PER_SLOT and SLOTS_PER_EPOCH as configured (60 and 128 on mainnet), MAX_EFFECTIVE_BALANCE
 *   40,000 × 10^9 shor, MIN_SLASHING_PENALTY_QUOTIENT 32;
 * - withdrawal credentials that are the execution address itself (state-native/getters_withdrawal.go
 *   `ExecutionAddressOffset = 0`; fieldparams `WithdrawalCredentialsLength` = the address size: 20
 *   bytes, or 64 with `addressBytes: 64`), or newer qrysm's `withdrawal_recipient`
 *   (`recipientField`); ML-DSA-87 public keys of 2,592 bytes (fieldparams `MLDSA87PubkeyLength`).
 *
 * Validators go through qrysm's statuses (`statusAt`: pending_initialized, pending_queued,
 * active_ongoing, active_exiting, active_slashed, exited_unslashed, exited_slashed,
 * withdrawal_possible, withdrawal_done) as their activation, slashing and exit epochs say; a
 * validator's balance is its effective balance plus a little that grows with the epoch, and 0 once
 * the sweep has paid it out.
 *
 * Served (prefix /eth/v1, /qrl/v1 or /zond/v1):
 *         GET  /eth/v1/beacon/genesis
 *         GET  /eth/v1/config/spec
 *         GET  /eth/v1/beacon/headers/{block_id}
 *         GET  /eth/v1/beacon/states/{state_id}/finality_checkpoints
 *         GET  /eth/v1/beacon/states/{state_id}/validators
 *         POST /eth/v1/beacon/rewards/attestations/{epoch}
 *         GET  /eth/v1/beacon/rewards/blocks/{block_id}
 *         POST /eth/v1/beacon/rewards/sync_committee/{block_id}
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface FakeBeaconConfig {
  /** Whose API it speaks (default eth). */
  flavour?: 'eth' | 'qrysm';
  /** qrysm's route prefix: qrl (default), or zond as older builds have it. */
  qrysmPrefix?: 'qrl' | 'zond';
  /** qrysm: bytes of the execution addresses in credentials, 20 (default) or 64. */
  addressBytes?: 20 | 64;
  /** qrysm: the validator field that holds the address (default withdrawal_credentials). */
  recipientField?: 'withdrawal_credentials' | 'withdrawal_recipient';
  genesisTime: number;
  secondsPerSlot: number;
  slotsPerEpoch: number;
  validators: number;
  headSlot: number;
  finalizedEpoch: number;
  /** Validator index -> activation epoch (default 0). */
  activation?: Record<number, number>;
  /** Validator index -> epoch it was slashed at. */
  slashedAt?: Record<number, number>;
  /**
   * Validator index -> its `exit_epoch`. The record shows it from five epochs before (an exit
   * initiated then: `compute_activation_exit_epoch` = current + 1 + MAX_SEED_LOOKAHEAD 4), or from its
   * slashing; from it on the validator is not active. Without one a validator never exits (and a
   * slashed one stays `active_slashed`, the model's simplification: a real slashing schedules an exit).
   */
  exitAt?: Record<number, number>;
  /** Epochs from exit to `withdrawable_epoch` (MIN_VALIDATOR_WITHDRAWABILITY_DELAY, 256 on mainnet); default 2. The epoch after it the sweep has paid the whole balance: balance and effective balance 0. */
  withdrawableDelay?: number;
  /** Validator index -> the epoch its deposit became eligible for activation (default 0); before it the record's `activation_eligibility_epoch` is FAR_FUTURE: `pending_initialized`. */
  eligibleAt?: Record<number, number>;
  /** Slots without a block. */
  missed?: (slot: number) => boolean;
  /** Answer the first N requests with 503 / 429, to exercise retries. */
  failFirst?: { count: number; status: 429 | 503 };
}

export const GWEI_32 = 32_000_000_000n;
/** qrysm's mainnet MAX_EFFECTIVE_BALANCE: 40,000 quanta in shor (10^9 a quanta). */
export const QRYSM_MAX_EFFECTIVE_BALANCE = 40_000n * 10n ** 9n;
/** The consensus spec's MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX, and qrysm's MIN_SLASHING_PENALTY_QUOTIENT (mainnet). */
export const MIN_SLASHING_PENALTY_QUOTIENT = 32n;
/** qrysm's ML-DSA-87 public key length (fieldparams MLDSA87PubkeyLength). */
export const QRYSM_PUBKEY_BYTES = 2592;
const FAR_FUTURE = '18446744073709551615';

export function createBeaconModel(config: FakeBeaconConfig) {
  const epochOf = (slot: number) => Math.floor(slot / config.slotsPerEpoch);
  const activation = (v: number) => config.activation?.[v] ?? 0;
  const slashed = (v: number, epoch: number) => config.slashedAt?.[v] !== undefined && config.slashedAt[v]! <= epoch;
  const exitOf = (v: number) => config.exitAt?.[v];
  const exited = (v: number, epoch: number) => exitOf(v) !== undefined && epoch >= exitOf(v)!;
  const active = (v: number, epoch: number) => activation(v) <= epoch && !exited(v, epoch);
  /** The exit epoch as the record shows it at `epoch`: from its initiation (or the slashing) on. */
  const shownExit = (v: number, epoch: number) => (exitOf(v) !== undefined && (epoch >= exitOf(v)! - 5 || slashed(v, epoch)) ? exitOf(v)! : null);
  const withdrawableOf = (v: number) => (exitOf(v) === undefined ? null : exitOf(v)! + (config.withdrawableDelay ?? 2));
  const withdrawn = (v: number, epoch: number) => withdrawableOf(v) !== null && epoch > withdrawableOf(v)!;
  const eligible = (v: number, epoch: number) => (config.eligibleAt?.[v] ?? 0) <= epoch;
  const missed = (slot: number) => slot > config.headSlot || (config.missed?.(slot) ?? false);
  const indexes = Array.from({ length: config.validators }, (_, v) => v);
  const qrysm = config.flavour === 'qrysm';
  const maxEffective = qrysm ? QRYSM_MAX_EFFECTIVE_BALANCE : GWEI_32;
  const addressHex = (v: number) => createHash('sha256').update(`withdrawal ${v}`).digest('hex').repeat(4).slice(0, 2 * (config.addressBytes ?? 20));

  return {
    config,
    epochOf,
    /** Components of the attestation reward of `v` in `epoch` (null when not active); qrysm reports no inactivity. */
    attestation(v: number, epoch: number): { head: bigint; target: bigint; source: bigint; inclusion_delay: bigint; inactivity: bigint } | null {
      if (!active(v, epoch)) return null;
      if (slashed(v, epoch)) return { head: 0n, target: -60n, source: -40n, inclusion_delay: 0n, inactivity: qrysm ? 0n : -5n };
      return { head: BigInt(v % 3) + 1n, target: 20n, source: 10n + BigInt(epoch % 4), inclusion_delay: 0n, inactivity: 0n };
    },
    proposer(slot: number): number {
      const eligible = indexes.filter((v) => active(v, epochOf(slot)) && !slashed(v, epochOf(slot)));
      return eligible[slot % eligible.length]!;
    },
    /** Null for a missed slot and for slot 0: the genesis block is not proposed (no proposer reward, no sync aggregate). */
    blockReward(slot: number): { proposer: number; total: bigint } | null {
      if (slot === 0 || missed(slot)) return null;
      return { proposer: this.proposer(slot), total: 40n + BigInt(slot % 5) };
    },
    syncRewards(slot: number): Map<number, bigint> | null {
      if (slot === 0 || missed(slot)) return null;
      const committee = [slot % config.validators, (slot + 1) % config.validators].filter((v) => active(v, epochOf(slot)));
      return new Map(committee.map((v) => [v, slashed(v, epochOf(slot)) ? -3n : 3n]));
    },
    // One in four a little under the maximum: 31 of 32 ether, 39,000 of 40,000 quanta.
    effectiveBalance: (v: number) => (v % 4 === 0 ? maxEffective - maxEffective / (qrysm ? 40n : 32n) : maxEffective),
    /**
     * A validator's status at `epoch` as qrysm's `ValidatorSubStatus` derives it from the record
     * (beacon-chain/rpc/zond/helpers/validator_status.go): pending until activation (initialized
     * while not yet eligible), active until the exit epoch (exiting or slashed once an exit is
     * scheduled), exited until withdrawable, then withdrawal_possible until the effective balance is 0.
     */
    statusAt(v: number, epoch: number): string {
      if (activation(v) > epoch) return eligible(v, epoch) ? 'pending_queued' : 'pending_initialized';
      if (active(v, epoch)) return slashed(v, epoch) ? 'active_slashed' : shownExit(v, epoch) === null ? 'active_ongoing' : 'active_exiting';
      if (epoch < withdrawableOf(v)!) return slashed(v, epoch) ? 'exited_slashed' : 'exited_unslashed';
      return withdrawn(v, epoch) ? 'withdrawal_done' : 'withdrawal_possible';
    },
    validatorsAt(slot: number) {
      const epoch = epochOf(slot);
      return indexes.map((v) => {
        const isSlashed = slashed(v, epoch);
        const credentials = qrysm ? `0x${addressHex(v)}` : v % 2 === 0 ? `0x010000000000000000000000${(0xabc000 + v).toString(16).padStart(40, '0')}` : `0x00${'11'.repeat(31)}`;
        const exit = shownExit(v, epoch);
        const gone = withdrawn(v, epoch);
        return {
          index: String(v),
          balance: gone ? '0' : String(this.effectiveBalance(v) + BigInt(v * 1000 + epoch)),
          status: this.statusAt(v, epoch),
          validator: {
            pubkey: qrysm ? `0x${(v + 1).toString(16).padStart(4, '0').repeat(QRYSM_PUBKEY_BYTES / 2)}` : `0x${(v + 1).toString(16).padStart(96, '0')}`,
            [qrysm ? (config.recipientField ?? 'withdrawal_credentials') : 'withdrawal_credentials']: credentials,
            effective_balance: gone ? '0' : String(this.effectiveBalance(v)),
            slashed: isSlashed,
            activation_eligibility_epoch: eligible(v, epoch) ? String(config.eligibleAt?.[v] ?? 0) : FAR_FUTURE,
            activation_epoch: activation(v) <= epoch ? String(activation(v)) : FAR_FUTURE,
            exit_epoch: exit === null ? FAR_FUTURE : String(exit),
            withdrawable_epoch: exit === null ? FAR_FUTURE : String(withdrawableOf(v)),
          },
        };
      });
    },
    slotOf(id: string): number | null {
      if (id === 'head') return config.headSlot;
      if (id === 'genesis') return 0;
      if (id === 'finalized') return config.finalizedEpoch * config.slotsPerEpoch;
      if (/^\d+$/.test(id)) return Number(id) <= config.headSlot ? Number(id) : null;
      return null;
    },
  };
}

export type BeaconModel = ReturnType<typeof createBeaconModel>;

export interface FakeBeacon {
  url: string;
  model: BeaconModel;
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeBeacon(config: FakeBeaconConfig): Promise<FakeBeacon> {
  const model = createBeaconModel(config);
  const requests: string[] = [];
  let failures = config.failFirst?.count ?? 0;
  const envelope = (data: unknown) => ({ execution_optimistic: false, finalized: true, data });

  const qrysm = config.flavour === 'qrysm';
  const prefix = qrysm ? `/${config.qrysmPrefix ?? 'qrl'}/v1` : '/eth/v1';
  /** A handler's error: qrysm's DefaultErrorJson, Ethereum's `{code, message}`. */
  const apiError = (status: number, message: string): [number, unknown] => [status, qrysm ? { message, code: status } : { code: status, message }];
  const ROUTER_404 = Symbol('router 404');
  const blockNotFound = () => apiError(404, qrysm ? "Could not find requested block: signed beacon block can't be nil" : 'Not Found');
  const stateNotFound = () => apiError(404, qrysm ? 'Could not get state: state not found' : 'Not Found');

  const route = (method: string, fullPath: string): [number, unknown] | typeof ROUTER_404 => {
    if (!fullPath.startsWith(`${prefix}/`)) return qrysm ? ROUTER_404 : apiError(404, 'Not Found');
    const path = fullPath.slice(prefix.length);
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/beacon/genesis') {
      return [200, { data: { genesis_time: String(config.genesisTime), genesis_validators_root: `0x${'ab'.repeat(32)}`, genesis_fork_version: '0x00000000' } }];
    }
    if (method === 'GET' && path === '/config/spec') {
      const spec = qrysm
        ? {
            CONFIG_NAME: 'mainnet',
            PRESET_BASE: 'mainnet',
            SECONDS_PER_SLOT: String(config.secondsPerSlot),
            SLOTS_PER_EPOCH: String(config.slotsPerEpoch),
            MAX_EFFECTIVE_BALANCE: String(QRYSM_MAX_EFFECTIVE_BALANCE),
            EJECTION_BALANCE: String(20_000n * 10n ** 9n),
            EFFECTIVE_BALANCE_INCREMENT: '1000000000',
            MIN_DEPOSIT_AMOUNT: '1000000000',
            MIN_SLASHING_PENALTY_QUOTIENT: String(MIN_SLASHING_PENALTY_QUOTIENT),
            PROPORTIONAL_SLASHING_MULTIPLIER: '3',
            DEPOSIT_CHAIN_ID: '1',
          }
        : { SECONDS_PER_SLOT: String(config.secondsPerSlot), SLOTS_PER_EPOCH: String(config.slotsPerEpoch), MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX: String(MIN_SLASHING_PENALTY_QUOTIENT), CONFIG_NAME: 'fake' };
      return [200, { data: spec }];
    }
    if (method === 'GET' && (m = /^\/beacon\/headers\/(\w+)$/.exec(path))) {
      const slot = model.slotOf(m[1]!);
      if (slot === null || model.blockReward(slot) === null) return blockNotFound();
      const root = `0x${slot.toString(16).padStart(64, '0')}`;
      return [200, envelope({ root, canonical: true, header: { message: { slot: String(slot), proposer_index: String(model.proposer(slot)), parent_root: root, state_root: root, body_root: root }, signature: `0x${'00'.repeat(96)}` } })];
    }
    if (method === 'GET' && (m = /^\/beacon\/states\/(\w+)\/finality_checkpoints$/.exec(path))) {
      if (model.slotOf(m[1]!) === null) return stateNotFound();
      const checkpoint = (epoch: number) => ({ epoch: String(epoch), root: `0x${epoch.toString(16).padStart(64, '0')}` });
      return [200, envelope({ previous_justified: checkpoint(config.finalizedEpoch + 1), current_justified: checkpoint(config.finalizedEpoch + 2), finalized: checkpoint(config.finalizedEpoch) })];
    }
    if (method === 'GET' && (m = /^\/beacon\/states\/(\w+)\/validators$/.exec(path))) {
      const slot = model.slotOf(m[1]!);
      return slot === null ? stateNotFound() : [200, envelope(model.validatorsAt(slot))];
    }
    if (method === 'POST' && (m = /^\/beacon\/rewards\/attestations\/(\d+)$/.exec(path))) {
      const epoch = Number(m[1]);
      const current = model.epochOf(config.headSlot);
      if (qrysm ? current < 2 || epoch > current - 2 : epoch >= current) {
        return qrysm ? apiError(404, 'Attestation rewards are available after two epoch transitions to ensure all attestations have a chance of inclusion') : apiError(404, 'Not Found');
      }
      const total_rewards = [];
      for (let v = 0; v < config.validators; v++) {
        const reward = model.attestation(v, epoch);
        if (qrysm) {
          // Every validator, an inactive one with zeros; inclusion_delay is never filled in.
          total_rewards.push({ validator_index: String(v), head: String(reward?.head ?? 0n), target: String(reward?.target ?? 0n), source: String(reward?.source ?? 0n), inclusion_delay: '' });
        } else if (reward) {
          total_rewards.push({ validator_index: String(v), ...Object.fromEntries(Object.entries(reward).map(([k, x]) => [k, String(x)])) });
        }
      }
      const ideal = qrysm
        ? [{ effective_balance: String(QRYSM_MAX_EFFECTIVE_BALANCE), head: '3', target: '20', source: '13' }]
        : [{ effective_balance: String(GWEI_32), head: '3', target: '20', source: '13', inclusion_delay: '0', inactivity: '0' }];
      return [200, envelope({ ideal_rewards: ideal, total_rewards })];
    }
    if (method === 'GET' && (m = /^\/beacon\/rewards\/blocks\/(\w+)$/.exec(path))) {
      const slot = model.slotOf(m[1]!);
      const reward = slot === null ? null : model.blockReward(slot);
      if (!reward) return blockNotFound();
      return [200, envelope({ proposer_index: String(reward.proposer), total: String(reward.total), attestations: String(reward.total - 2n), sync_aggregate: '2', proposer_slashings: '0', attester_slashings: '0' })];
    }
    if (method === 'POST' && (m = /^\/beacon\/rewards\/sync_committee\/(\w+)$/.exec(path))) {
      const slot = model.slotOf(m[1]!);
      const rewards = slot === null ? null : model.syncRewards(slot);
      if (!rewards) return blockNotFound();
      return [200, envelope([...rewards].map(([v, reward]) => ({ validator_index: String(v), reward: String(reward) })))];
    }
    return qrysm ? ROUTER_404 : apiError(404, 'Not Found');
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      requests.push(`${req.method} ${path}`);
      if (failures > 0) {
        failures--;
        res.writeHead(config.failFirst!.status, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end(JSON.stringify({ code: config.failFirst!.status, message: 'try later' }));
        return;
      }
      const answer = route(req.method ?? 'GET', path);
      if (answer === ROUTER_404) {
        // net/http's NotFound, which gorilla/mux answers for a route it does not have.
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
        res.end('404 page not found\n');
        return;
      }
      const [status, body] = answer;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    model,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
