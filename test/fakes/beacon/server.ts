/**
 * A fake beacon node for tests, speaking the standard beacon-APIs endpoints with their JSON shapes
 * (decimal strings for numbers, `{execution_optimistic, finalized, data}` envelopes, 404 bodies
 * `{code, message}`) over a small deterministic chain model. The model's reward functions are
 * exported so tests can compute what a day should add up to.
 *
 * Served: GET  /eth/v1/beacon/genesis
 *         GET  /eth/v1/config/spec
 *         GET  /eth/v1/beacon/headers/{block_id}
 *         GET  /eth/v1/beacon/states/{state_id}/finality_checkpoints
 *         GET  /eth/v1/beacon/states/{state_id}/validators
 *         POST /eth/v1/beacon/rewards/attestations/{epoch}
 *         GET  /eth/v1/beacon/rewards/blocks/{block_id}
 *         POST /eth/v1/beacon/rewards/sync_committee/{block_id}
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface FakeBeaconConfig {
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
  /** Slots without a block. */
  missed?: (slot: number) => boolean;
  /** Answer the first N requests with 503 / 429, to exercise retries. */
  failFirst?: { count: number; status: 429 | 503 };
}

export const GWEI_32 = 32_000_000_000n;
/** The consensus spec's MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX (mainnet and minimal presets). */
export const MIN_SLASHING_PENALTY_QUOTIENT = 32n;
const FAR_FUTURE = '18446744073709551615';

export function createBeaconModel(config: FakeBeaconConfig) {
  const epochOf = (slot: number) => Math.floor(slot / config.slotsPerEpoch);
  const activation = (v: number) => config.activation?.[v] ?? 0;
  const slashed = (v: number, epoch: number) => config.slashedAt?.[v] !== undefined && config.slashedAt[v]! <= epoch;
  const active = (v: number, epoch: number) => activation(v) <= epoch;
  const missed = (slot: number) => slot > config.headSlot || (config.missed?.(slot) ?? false);
  const indexes = Array.from({ length: config.validators }, (_, v) => v);

  return {
    config,
    epochOf,
    /** Components of the attestation reward of `v` in `epoch` (null when not active). */
    attestation(v: number, epoch: number): { head: bigint; target: bigint; source: bigint; inclusion_delay: bigint; inactivity: bigint } | null {
      if (!active(v, epoch)) return null;
      if (slashed(v, epoch)) return { head: 0n, target: -60n, source: -40n, inclusion_delay: 0n, inactivity: -5n };
      return { head: BigInt(v % 3) + 1n, target: 20n, source: 10n + BigInt(epoch % 4), inclusion_delay: 0n, inactivity: 0n };
    },
    proposer(slot: number): number {
      const eligible = indexes.filter((v) => active(v, epochOf(slot)) && !slashed(v, epochOf(slot)));
      return eligible[slot % eligible.length]!;
    },
    blockReward(slot: number): { proposer: number; total: bigint } | null {
      if (missed(slot)) return null;
      return { proposer: this.proposer(slot), total: 40n + BigInt(slot % 5) };
    },
    syncRewards(slot: number): Map<number, bigint> | null {
      if (missed(slot)) return null;
      const committee = [slot % config.validators, (slot + 1) % config.validators].filter((v) => active(v, epochOf(slot)));
      return new Map(committee.map((v) => [v, slashed(v, epochOf(slot)) ? -3n : 3n]));
    },
    effectiveBalance: (v: number) => (v % 4 === 0 ? 31_000_000_000n : GWEI_32),
    validatorsAt(slot: number) {
      const epoch = epochOf(slot);
      return indexes.map((v) => {
        const isSlashed = slashed(v, epoch);
        const status = !active(v, epoch) ? 'pending_queued' : isSlashed ? 'active_slashed' : 'active_ongoing';
        const credentials = v % 2 === 0 ? `0x010000000000000000000000${(0xabc000 + v).toString(16).padStart(40, '0')}` : `0x00${'11'.repeat(31)}`;
        return {
          index: String(v),
          balance: String(GWEI_32 + BigInt(v * 1000 + epoch)),
          status,
          validator: {
            pubkey: `0x${(v + 1).toString(16).padStart(96, '0')}`,
            withdrawal_credentials: credentials,
            effective_balance: String(this.effectiveBalance(v)),
            slashed: isSlashed,
            activation_eligibility_epoch: '0',
            activation_epoch: active(v, epoch) ? String(activation(v)) : FAR_FUTURE,
            exit_epoch: FAR_FUTURE,
            withdrawable_epoch: FAR_FUTURE,
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

  const route = (method: string, path: string): [number, unknown] => {
    const notFound: [number, unknown] = [404, { code: 404, message: 'Not Found' }];
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/eth/v1/beacon/genesis') {
      return [200, { data: { genesis_time: String(config.genesisTime), genesis_validators_root: `0x${'ab'.repeat(32)}`, genesis_fork_version: '0x00000000' } }];
    }
    if (method === 'GET' && path === '/eth/v1/config/spec') {
      return [200, { data: { SECONDS_PER_SLOT: String(config.secondsPerSlot), SLOTS_PER_EPOCH: String(config.slotsPerEpoch), MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX: String(MIN_SLASHING_PENALTY_QUOTIENT), CONFIG_NAME: 'fake' } }];
    }
    if (method === 'GET' && (m = /^\/eth\/v1\/beacon\/headers\/(\w+)$/.exec(path))) {
      const slot = model.slotOf(m[1]!);
      if (slot === null || model.blockReward(slot) === null) return notFound;
      const root = `0x${slot.toString(16).padStart(64, '0')}`;
      return [200, envelope({ root, canonical: true, header: { message: { slot: String(slot), proposer_index: String(model.proposer(slot)), parent_root: root, state_root: root, body_root: root }, signature: `0x${'00'.repeat(96)}` } })];
    }
    if (method === 'GET' && (m = /^\/eth\/v1\/beacon\/states\/(\w+)\/finality_checkpoints$/.exec(path))) {
      if (model.slotOf(m[1]!) === null) return notFound;
      const checkpoint = (epoch: number) => ({ epoch: String(epoch), root: `0x${epoch.toString(16).padStart(64, '0')}` });
      return [200, envelope({ previous_justified: checkpoint(config.finalizedEpoch + 1), current_justified: checkpoint(config.finalizedEpoch + 2), finalized: checkpoint(config.finalizedEpoch) })];
    }
    if (method === 'GET' && (m = /^\/eth\/v1\/beacon\/states\/(\w+)\/validators$/.exec(path))) {
      const slot = model.slotOf(m[1]!);
      return slot === null ? notFound : [200, envelope(model.validatorsAt(slot))];
    }
    if (method === 'POST' && (m = /^\/eth\/v1\/beacon\/rewards\/attestations\/(\d+)$/.exec(path))) {
      const epoch = Number(m[1]);
      if (epoch >= model.epochOf(config.headSlot)) return notFound;
      const total_rewards = [];
      for (let v = 0; v < config.validators; v++) {
        const reward = model.attestation(v, epoch);
        if (reward) total_rewards.push({ validator_index: String(v), ...Object.fromEntries(Object.entries(reward).map(([k, x]) => [k, String(x)])) });
      }
      return [200, envelope({ ideal_rewards: [{ effective_balance: String(GWEI_32), head: '3', target: '20', source: '13', inclusion_delay: '0', inactivity: '0' }], total_rewards })];
    }
    if (method === 'GET' && (m = /^\/eth\/v1\/beacon\/rewards\/blocks\/(\w+)$/.exec(path))) {
      const slot = model.slotOf(m[1]!);
      const reward = slot === null ? null : model.blockReward(slot);
      if (!reward) return notFound;
      return [200, envelope({ proposer_index: String(reward.proposer), total: String(reward.total), attestations: String(reward.total - 2n), sync_aggregate: '2', proposer_slashings: '0', attester_slashings: '0' })];
    }
    if (method === 'POST' && (m = /^\/eth\/v1\/beacon\/rewards\/sync_committee\/(\w+)$/.exec(path))) {
      const slot = model.slotOf(m[1]!);
      const rewards = slot === null ? null : model.syncRewards(slot);
      if (!rewards) return notFound;
      return [200, envelope([...rewards].map(([v, reward]) => ({ validator_index: String(v), reward: String(reward) })))];
    }
    return notFound;
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
      const [status, body] = route(req.method ?? 'GET', path);
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
