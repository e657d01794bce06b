/**
 * A multi-signature address's spends as QRL's node decides them (theQRL/QRL MultiSigSpend,
 * MultiSigVote, VoteStats; docs/api-ots.md), replayed from its history in chain order:
 *
 * - what it received (native transfers to it) adds to its balance;
 * - a spend starts with no signatory approving;
 * - a vote counts when it comes after the spend, its sender is a signatory, the spend is not
 *   executed, the vote's block is not above the spend's expiry and the vote changes the signatory's state (an approval, or the
 *   withdrawal of one: `unvote`); it adds (withdraws) the signatory's weight;
 * - after a counted vote the spend executes when the approving weight is at least the threshold and
 *   the address holds the spend's total: the total leaves the balance;
 * - a spend not executed is expired once the chain's tip reaches its expiry height, open before.
 *
 * A node refuses the votes that do not count; stored ones are shown, marked as not counted.
 */

export interface ReplayInput {
  threshold: number;
  signatories: readonly { address: string; weight: number }[];
  spends: readonly { tx_hash: string; height: number; tx_index: number; expiry_height: number; total: string }[];
  votes: readonly { tx_hash: string; height: number; tx_index: number; ts: number; voter: string; shared_key: string; unvote: boolean }[];
  credits: readonly { height: number; tx_index: number; amount: string }[];
  tip: number;
}

export type SpendStatus = 'open' | 'executed' | 'expired';

export interface VoteOutcome {
  tx_hash: string;
  height: number;
  ts: number;
  voter: string;
  unvote: boolean;
  weight: number;
  /** Whether the node's rules count it. */
  counted: boolean;
}

export interface SpendOutcome {
  status: SpendStatus;
  approvedWeight: number;
  /** Per signatory, in the create's order: approving now, and its latest counted vote. */
  signatories: { address: string; weight: number; approves: boolean; voteTx: string | null }[];
  votes: VoteOutcome[];
  /** The vote that executed it. */
  executedBy: VoteOutcome | null;
}

export interface Replay {
  /** By spend hash. */
  spends: Map<string, SpendOutcome>;
  received: bigint;
  /** The totals of executed spends. */
  spent: bigint;
}

const before = (a: { height: number; tx_index: number }, b: { height: number; tx_index: number }) => a.height < b.height || (a.height === b.height && a.tx_index < b.tx_index);

export function replayMultiSig(input: ReplayInput): Replay {
  const weights = new Map(input.signatories.map((s) => [s.address, s.weight]));
  const spends = new Map<string, SpendOutcome>();
  const meta = new Map<string, { expiry: number; total: bigint; at: { height: number; tx_index: number } }>();
  for (const s of input.spends) {
    spends.set(s.tx_hash, { status: 'open', approvedWeight: 0, signatories: input.signatories.map((g) => ({ address: g.address, weight: g.weight, approves: false, voteTx: null })), votes: [], executedBy: null });
    meta.set(s.tx_hash, { expiry: s.expiry_height, total: BigInt(s.total), at: s });
  }
  let balance = 0n;
  let received = 0n;
  let spent = 0n;
  let c = 0;
  for (const vote of input.votes) {
    // What arrived before the vote (a transfer and a vote are never one transaction).
    for (; c < input.credits.length && before(input.credits[c]!, vote); c++) {
      balance += BigInt(input.credits[c]!.amount);
      received += BigInt(input.credits[c]!.amount);
    }
    const spend = spends.get(vote.shared_key)!;
    const { expiry, total, at } = meta.get(vote.shared_key)!;
    const weight = weights.get(vote.voter) ?? 0;
    const signatory = spend.signatories.find((s) => s.address === vote.voter);
    const counted = before(at, vote) && signatory !== undefined && spend.status !== 'executed' && vote.height <= expiry && signatory.approves === vote.unvote;
    const outcome: VoteOutcome = { tx_hash: vote.tx_hash, height: vote.height, ts: vote.ts, voter: vote.voter, unvote: vote.unvote, weight, counted };
    spend.votes.push(outcome);
    if (!counted) continue;
    signatory.approves = !vote.unvote;
    signatory.voteTx = vote.tx_hash;
    spend.approvedWeight += vote.unvote ? -weight : weight;
    if (spend.approvedWeight >= input.threshold && total <= balance) {
      spend.status = 'executed';
      spend.executedBy = outcome;
      balance -= total;
      spent += total;
    }
  }
  for (; c < input.credits.length; c++) received += BigInt(input.credits[c]!.amount);
  for (const [hash, spend] of spends) if (spend.status !== 'executed' && meta.get(hash)!.expiry <= input.tip) spend.status = 'expired';
  return { spends, received, spent };
}
