/**
 * The validator routes' answers computed from the fake beacon node's model and the chain builder's
 * blocks (test/api/validators/world.ts), never from the store.
 */
import type { CanonicalBlock } from '../../../src/chain/model.ts';
import { isoSeconds as iso } from '../../support/expected-transaction.ts';
import type { ValidatorsWorld } from './world.ts';

const FAR_FUTURE = 2n ** 64n - 1n;
const PLANCK_PER_GWEI = 10n ** 9n;
const epoch = (text: string) => (BigInt(text) === FAR_FUTURE ? null : Number(text));

export type Record = ValidatorsWorld['head'][number];

/** A validator of the head state as the list shows it. */
export function expectedSummary(r: Record) {
  const v = r.validator;
  return {
    index: Number(r.index),
    pubkey: v.pubkey,
    status: r.status,
    balance: (BigInt(r.balance) * PLANCK_PER_GWEI).toString(),
    effective_balance: (BigInt(v.effective_balance) * PLANCK_PER_GWEI).toString(),
    withdrawal_address: `Q${String(v.withdrawal_credentials).slice(2)}`,
    activation_epoch: epoch(v.activation_epoch),
    exit_epoch: epoch(v.exit_epoch),
    slashed: v.slashed,
  };
}

export type Summary = ReturnType<typeof expectedSummary>;

/** The head's validators in the order `sort` names, within `status` (a status, or a group: its first word). */
export function expectedList(w: ValidatorsWorld, sort: string, status: string | null): Summary[] {
  const kept = w.head.filter((r) => status === null || r.status === status || r.status.split('_')[0] === status).map(expectedSummary);
  const byBalance = sort.endsWith('balance');
  const sign = sort.startsWith('-') ? -1 : 1;
  return kept.sort((a, b) => {
    const balance = BigInt(a.balance) - BigInt(b.balance);
    const first = byBalance && balance !== 0n ? (balance < 0n ? -1 : 1) : a.index - b.index;
    return sign * first;
  });
}

/** The withdrawals paid from validator `v` in the blocks, newest first. */
export function expectedWithdrawals(blocks: CanonicalBlock[], v: number) {
  return blocks
    .flatMap((b) => b.withdrawals.map((w, position) => ({ b, w, position })))
    .filter(({ w }) => w.validatorIndex === v)
    .sort((x, y) => y.b.height - x.b.height || y.position - x.position)
    .map(({ b, w }) => ({ index: w.index, height: b.height, block_hash: b.hash, timestamp: iso(b.timestamp), address: w.address, amount: w.amount.toString() }));
}

/** The blocks validator `v` proposed, newest first, each with the stored block of its slot's time. */
export function expectedProposals(w: ValidatorsWorld, v: number) {
  const byTime = new Map(w.blocks.map((b) => [b.timestamp, b]));
  return w.proposals
    .filter((p) => p.proposer === v)
    .reverse()
    .map((p) => {
      const b = byTime.get(p.ts);
      return {
        slot: p.slot,
        timestamp: iso(p.ts),
        proposer_reward: p.reward.toString(),
        height: b?.height ?? null,
        hash: b?.hash ?? null,
        tx_count: b ? b.transactions.length : null,
        fee_recipient: b?.miner ?? null,
        priority_fees: b ? b.transactions.reduce((sum, t) => sum + t.fee - t.burned, 0n).toString() : null,
      };
    });
}

/** Validator `v`'s days, oldest first; the last `window` of them when given. */
export function expectedDays(w: ValidatorsWorld, v: number, window: number | null = null) {
  const all = w.days.filter((d) => d.index === v);
  const lastDay = w.days.at(-1)!.day;
  const from = window === null ? '' : new Date(Date.parse(`${lastDay}T00:00:00Z`) - (window - 1) * 86_400_000).toISOString().slice(0, 10);
  return all
    .filter((d) => d.day >= from)
    .map((d) => ({ day: d.day, status: d.status, balance: d.balance.toString(), effective_balance: d.effectiveBalance.toString(), rewards: d.rewards.toString() }));
}

/** The proposer the beacon node names for block `b`'s slot, when the staking sync read it (a finalized epoch). */
export function expectedProposer(w: ValidatorsWorld, b: CanonicalBlock): number | null {
  return w.proposals.find((p) => p.ts === b.timestamp)?.proposer ?? null;
}
