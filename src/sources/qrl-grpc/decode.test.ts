/**
 * The decoder on messages built here and sent through real protobuf bytes: every subtype the
 * generated chain lacks (multisig create, spend and vote), lattice keys of real sizes, slave-signed
 * senders, and what a malformed transaction or header becomes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import { POW_COINBASE_SENTINEL } from '../../chain/chains.ts';
import { powAddressFromParts } from '../../chain/addresses.ts';
import { decodeBlock } from './decode.ts';
import { NodeDataError } from './errors.ts';
import { messages } from './proto.ts';

const pk = (seed: string) => Buffer.concat([Buffer.from('000600', 'hex'), createHash('sha256').update(`root${seed}`).digest(), createHash('sha256').update(`seed${seed}`).digest()]);
const addressOf = (key: Buffer) => powAddressFromParts(key.subarray(0, 3), createHash('sha256').update(key).digest());
const bytesOf = (address: string) => Buffer.from(address.slice(1), 'hex');
const hash = (n: number) => createHash('sha256').update(String(n)).digest();
const signature = (ots: number) => {
  const s = Buffer.alloc(100);
  s.writeUInt32BE(ots, 0);
  return s;
};

/** Encodes a block with these transactions to bytes and decodes it back as the node's answer would be. */
function roundTrip(transactions: object[], height = 5) {
  const block = { header: { hash_header: hash(1000 + height), block_number: height, timestamp_seconds: 1_600_000_000, hash_header_prev: hash(999 + height), reward_block: '6000000000' }, transactions };
  const bytes = messages.GetBlockByNumberResp.encode(messages.GetBlockByNumberResp.fromObject({ block })).finish();
  const decoded = messages.GetBlockByNumberResp.decode(bytes) as unknown as { block: Record<string, unknown> };
  return decodeBlock(decoded.block, height, 123);
}

const alice = pk('alice');
const slave = pk('slave');
const bob = addressOf(pk('bob'));
const carol = addressOf(pk('carol'));

it('decodes multisig create, spend and vote, slave-signed transfers and the coinbase', () => {
  const block = roundTrip([
    { transaction_hash: hash(1), nonce: 6, coinbase: { addr_to: bytesOf(bob), amount: '6000000100' } },
    { transaction_hash: hash(2), fee: 10, public_key: slave, master_addr: bytesOf(addressOf(alice)), signature: signature(7), nonce: 3, transfer: { addrs_to: [bytesOf(bob), bytesOf(carol)], amounts: [5, 7] } },
    { transaction_hash: hash(3), fee: 20, public_key: alice, signature: signature(8), nonce: 4, multi_sig_create: { signatories: [bytesOf(bob), bytesOf(carol)], weights: [1, 1], threshold: 2 } },
    { transaction_hash: hash(4), fee: 30, public_key: alice, signature: signature(9), nonce: 5, multi_sig_spend: { multi_sig_address: bytesOf(carol), addrs_to: [bytesOf(bob)], amounts: [99], expiry_block_number: 100 } },
    { transaction_hash: hash(5), fee: 40, public_key: alice, signature: signature(10), nonce: 6, multi_sig_vote: { shared_key: hash(4), unvote: false } },
    { transaction_hash: hash(6), fee: 40, public_key: slave, master_addr: bytesOf(bob), signature: signature(3), nonce: 2, multi_sig_vote: { shared_key: hash(4), unvote: true } },
  ]);
  assert.equal(block.size, 123);
  assert.equal(block.reward, 6_000_000_000n);
  assert.equal(block.miner, bob);
  assert.deepEqual(block.deadLetters, []);
  const [coinbase, transfer, create, spend, vote, unvote] = block.transactions;
  assert.equal(coinbase!.from, POW_COINBASE_SENTINEL);
  assert.equal(coinbase!.value, 6_000_000_100n);
  assert.equal(coinbase!.otsIndex, null);
  assert.equal(transfer!.from, addressOf(alice));
  assert.equal(transfer!.masterAddr, addressOf(alice));
  assert.equal(transfer!.signer, addressOf(slave));
  assert.equal(transfer!.otsIndex, 7);
  assert.equal(transfer!.value, 12n);
  assert.equal(transfer!.to, null);
  assert.deepEqual(transfer!.recipients, [{ to: bob, amount: 5n }, { to: carol, amount: 7n }]);
  assert.equal(create!.type, 'multi_sig_create');
  assert.equal(create!.from, addressOf(alice));
  assert.equal(create!.signer, null);
  assert.equal(create!.value, 0n);
  // QRL's multisig address: descriptor 110000, SHA-256 of it and the creating hash, checksum.
  const multiSigDescriptor = Buffer.from('110000', 'hex');
  const made = powAddressFromParts(multiSigDescriptor, createHash('sha256').update(Buffer.concat([multiSigDescriptor, hash(3)])).digest());
  assert.deepEqual(create!.multiSig, { kind: 'create', address: made, signatories: [{ address: bob, weight: 1 }, { address: carol, weight: 1 }], threshold: 2 });
  assert.equal(spend!.type, 'multi_sig_spend');
  assert.equal(spend!.to, carol);
  assert.equal(spend!.value, 0n);
  assert.equal(spend!.recipients, null, 'a spend credits nobody when it is made');
  assert.deepEqual(spend!.multiSig, { kind: 'spend', multiSigAddress: carol, recipients: [{ to: bob, amount: 99n }], expiryHeight: 100 });
  assert.equal(vote!.type, 'multi_sig_vote');
  assert.equal(vote!.input, hash(4).toString('hex'));
  assert.equal(vote!.fee, 40n);
  assert.equal(vote!.nonce, 6);
  assert.deepEqual(vote!.multiSig, { kind: 'vote', sharedKey: hash(4).toString('hex'), unvote: false });
  // A slave votes for its master: the vote is the master's, the one-time key the slave's.
  assert.equal(unvote!.from, bob);
  assert.equal(unvote!.signer, addressOf(slave));
  assert.equal(unvote!.otsIndex, 3);
  assert.deepEqual(unvote!.multiSig, { kind: 'vote', sharedKey: hash(4).toString('hex'), unvote: true });
  assert.equal(transfer!.multiSig, undefined, 'other transactions carry no multisig body');
});

it('refuses a block with a malformed transaction, naming the transaction and the field', () => {
  const coinbase = { transaction_hash: hash(1), coinbase: { addr_to: bytesOf(bob), amount: 1 } };
  assert.throws(
    () => roundTrip([coinbase, { transaction_hash: hash(2), fee: 1, public_key: alice.subarray(0, 60), signature: signature(1), transfer: { addrs_to: [bytesOf(bob)], amounts: [1] } }]),
    (error: unknown) => error instanceof NodeDataError && error.path === 'transactions[1].public_key' && /67-byte extended public key/.test(error.message),
  );
  assert.throws(
    () => roundTrip([coinbase, { transaction_hash: hash(3), fee: 1, public_key: alice, signature: signature(2), transfer: { addrs_to: [bytesOf(bob)], amounts: [1, 2] } }]),
    /transactions\[1\]\.transfer: 1 recipients but 2 amounts/,
  );
});

it('keeps a transaction of a kind it does not know with its sender and fee, and sets its body aside', () => {
  const block = roundTrip([
    { transaction_hash: hash(1), coinbase: { addr_to: bytesOf(bob), amount: 1 } },
    { transaction_hash: hash(4), fee: 7, public_key: alice, signature: signature(3) },
    { transaction_hash: hash(5), fee: 1, public_key: alice, signature: signature(4), slave: { slave_pks: [slave], access_types: [0] } },
  ]);
  assert.deepEqual(block.transactions.map((t) => t.type), ['coinbase', 'unknown', 'slave']);
  const governance = roundTrip([
    { transaction_hash: hash(1), coinbase: { addr_to: bytesOf(bob), amount: 1 } },
    { transaction_hash: hash(6), fee: 2, public_key: alice, signature: signature(5), proposal_create: { expiry_block_number: 99, description: 'a QIP', qip: { qip_link: 'x' } } },
  ]);
  assert.deepEqual(governance.transactions.map((t) => [t.type, t.fee, t.value]), [['coinbase', 0n, 1n], ['proposal_create', 2n, 0n]]);
  assert.deepEqual(governance.deadLetters, []);
  const unknown = block.transactions[1]!;
  assert.equal(unknown.from, addressOf(alice));
  assert.equal(unknown.fee, 7n);
  assert.equal(unknown.value, 0n);
  assert.deepEqual(block.deadLetters.map((d) => d.item), [hash(4).toString('hex')]);
  assert.match(block.deadLetters[0]!.error, /does not classify/);
  assert.ok(block.deadLetters[0]!.payload, 'the body is kept for diagnosis');
});

it('refuses a header that does not fit', () => {
  assert.throws(() => decodeBlock({ header: { hash_header: Buffer.alloc(5), block_number: 5, hash_header_prev: hash(1) } }, 5, 0), NodeDataError);
  assert.throws(() => decodeBlock(null, 1, 0), NodeDataError);
  const ok = roundTrip([], 6);
  assert.throws(() => decodeBlock({ header: { hash_header: Buffer.from(ok.hash, 'hex'), block_number: 7, hash_header_prev: hash(1) } }, 6, 0), /asked for 6, got 7/);
});

/** A block at `height` whose previous hash is `prev`, encoded and decoded as the node's answer would be. */
function withPrev(height: number, prev: Buffer, rest: object = {}) {
  const block = { header: { hash_header: hash(1000 + height), block_number: height, timestamp_seconds: 1_529_000_000, hash_header_prev: prev, reward_block: '65000000000000000' }, ...rest };
  const bytes = messages.GetBlockByNumberResp.encode(messages.GetBlockByNumberResp.fromObject({ block })).finish();
  return decodeBlock((messages.GetBlockByNumberResp.decode(bytes) as unknown as { block: Record<string, unknown> }).block, height, 35_511);
}

it('decodes a mainnet-shaped genesis: the network id as previous hash, coinbase and transfers, the zero address reserve', () => {
  const networkId = Buffer.from('The sleeper must awaken', 'utf8');
  assert.equal(networkId.length, 23);
  const premine = addressOf(alice);
  const block = withPrev(0, networkId, {
    transactions: [
      { transaction_hash: hash(1), master_addr: Buffer.alloc(32), nonce: 1, coinbase: { addr_to: bytesOf(premine), amount: '65000000000000000' } },
      { transaction_hash: hash(2), public_key: alice, signature: signature(0), nonce: 1, transfer: { addrs_to: [bytesOf(bob), bytesOf(carol)], amounts: ['70000000000000', '2000000000000'] } },
      { transaction_hash: hash(3), public_key: alice, signature: signature(1), nonce: 2, transfer: { addrs_to: [bytesOf(carol)], amounts: ['500000000000000'] } },
    ],
    genesis_balance: [{ address: Buffer.alloc(32), balance: '105000000000000000' }],
  });
  assert.equal(block.height, 0);
  assert.equal(block.parentHash, networkId.toString('hex'));
  assert.equal(Buffer.from(block.parentHash, 'hex').toString('utf8'), 'The sleeper must awaken');
  assert.equal(block.reward, 65_000_000n * 10n ** 9n);
  assert.deepEqual(block.deadLetters, []);
  assert.deepEqual(block.transactions.map((t) => t.type), ['coinbase', 'transfer', 'transfer']);
  assert.equal(block.transactions[0]!.from, POW_COINBASE_SENTINEL);
  assert.equal(block.transactions[0]!.to, premine);
  assert.equal(block.transactions[1]!.from, premine);
  assert.equal(block.transactions[2]!.otsIndex, 1);
  assert.deepEqual(block.allocations, [{ address: POW_COINBASE_SENTINEL, amount: 105_000_000n * 10n ** 9n }]);
  // Testnet's network id is 13 bytes; an empty one is kept as empty.
  assert.equal(withPrev(0, Buffer.from('Final Testnet')).parentHash, Buffer.from('Final Testnet').toString('hex'));
  assert.equal(withPrev(0, Buffer.alloc(0)).parentHash, '');
});

it('refuses a previous hash that is not 32 bytes above genesis', () => {
  assert.throws(() => withPrev(1, Buffer.from('The sleeper must awaken')), /hash_header_prev.*32-byte hash, got 23 bytes/);
  assert.throws(() => withPrev(2, Buffer.alloc(0)), /hash_header_prev.*got 0 bytes/);
  assert.equal(withPrev(1, hash(7)).parentHash, hash(7).toString('hex'));
});

it('refuses a genesis_balance address that is neither 39 bytes nor the zero address', () => {
  assert.throws(() => withPrev(0, Buffer.from('x'), { genesis_balance: [{ address: Buffer.alloc(32, 1), balance: '1' }] }), /genesis_balance\[0\]\.address/);
});

it('decodes a latticePK transaction\'s keys (pk1 Kyber, pk2 Dilithium, pk3 ECDSA) as hex, an absent one as empty', () => {
  const kyber = Buffer.alloc(1184, 0x4b);
  const dilithium = Buffer.alloc(1472, 0x44);
  const block = roundTrip([
    { transaction_hash: hash(1), nonce: 1, coinbase: { addr_to: bytesOf(bob), amount: '6000000000' } },
    { transaction_hash: hash(2), fee: 15, public_key: alice, signature: signature(4), nonce: 2, latticePK: { pk1: kyber, pk2: dilithium, pk3: Buffer.from('04aa', 'hex') } },
    { transaction_hash: hash(3), fee: 15, public_key: alice, signature: signature(5), nonce: 3, latticePK: { pk1: kyber } },
  ]);
  const [, full, partial] = block.transactions;
  assert.equal(full!.type, 'latticePK');
  assert.equal(full!.from, addressOf(alice));
  assert.deepEqual(full!.lattice, { kyberPk: '4b'.repeat(1184), dilithiumPk: '44'.repeat(1472), ecdsaPk: '04aa' });
  assert.deepEqual(partial!.lattice, { kyberPk: '4b'.repeat(1184), dilithiumPk: '', ecdsaPk: '' });
  assert.equal(full!.value, 0n);
});
