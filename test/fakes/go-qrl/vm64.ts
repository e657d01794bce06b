/**
 * Anvil's 32-byte ABI words as a 64-byte go-qrl node (VM64) writes them, and back, following the
 * 64-byte go-qrl fork rgeraldes24/go-qrl at commit 7f427122d (main, 2026-07-21):
 * - log topics are 64 bytes (common/types.go `LogTopicLength = 64`; core/vm/instructions.go
 *   `makeLog` writes each topic as a 512-bit VM word, `Bytes64()`); an indexed address is the whole
 *   topic (`AddressToLogTopic`), the event hash and other bytesN sit in the high bytes
 *   (`HashToLogTopic`, `BytesToLeftAlignedLogTopic`), numbers in the low bytes, signed ones
 *   sign-extended (accounts/abi/topics.go `MakeTopics`, `genIntType`); a topic is printed as 0x +
 *   128 lowercase hex (`LogTopic.MarshalText`);
 * - ABI words are 64 bytes (accounts/abi/pack.go `packElement`: addresses `LeftPadBytes(a, 64)`,
 *   which a 64-byte address fills; uints and ints `math.U512Bytes`; bool one word; bytesN
 *   `RightPadBytes(b, 64)`; strings and bytes a length word and the bytes padded to a multiple of
 *   64, after an offset word in the head); selectors stay 4 bytes (accounts/abi/method.go).
 *
 * Simpler than the node: Anvil's contracts are compiled for 32-byte words, so the fake rewrites
 * their output after the fact, by type where it knows the type: the events of `KNOWN_EVENTS` (the
 * test contracts' events) and the returns of `KNOWN_RETURNS` (ERC-20 name, symbol, decimals,
 * balanceOf, totalSupply). Any other log keeps topic0 as an event hash and has every other topic
 * and data word widened as an unsigned number; any other call's return data likewise, word by
 * word. Transaction `input` and call frames' `input`/`output` stay Anvil's (32-byte words), so the
 * intrinsic gas of a transaction still matches the gas Anvil charged.
 */
import { decodeAbiParameters, keccak256, parseAbiItem, toEventSelector, toHex, type AbiEvent } from 'viem';
import type { AddressBook } from './shapes.ts';

type Json = Record<string, any>;

const Z64 = '0'.repeat(64);

/** The events whose argument types the fake knows (test/fixtures/contracts). */
const KNOWN_EVENTS = [
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'event Split(address indexed from, uint256 total, uint256 recipients)',
  'event Created(address child, bool salted)',
].map((signature) => parseAbiItem(signature) as AbiEvent);
const EVENTS = new Map(KNOWN_EVENTS.map((event) => [toEventSelector(event), event]));

/** Return types of the calls the fake knows, by selector. `text` is a string or, for early tokens, a bytes32. */
const KNOWN_RETURNS: Record<string, 'text' | 'uint'> = {
  [selector('name()')]: 'text',
  [selector('symbol()')]: 'text',
  [selector('decimals()')]: 'uint',
  [selector('totalSupply()')]: 'uint',
  [selector('balanceOf(address)')]: 'uint',
};

function selector(signature: string): string {
  return keccak256(toHex(signature)).slice(0, 10);
}

/** One 32-byte word (64 hex digits) of the given ABI type as a 64-byte one (128 hex digits). */
function widenWord(book: AddressBook, word: string, type: string): string {
  if (type === 'address') return book.out(`0x${word.slice(24)}`).slice(1).toLowerCase();
  if (/^bytes\d+$/.test(type) || type === 'hash') return word + Z64;
  if (/^int\d*$/.test(type)) return (parseInt(word[0]!, 16) >= 8 ? 'f' : '0').repeat(64) + word;
  return Z64 + word;
}

const words = (hex: string): string[] => hex.match(/.{64}/g) ?? [];

/** A log of Anvil's as the 64-byte node writes it. */
export function widenLog(book: AddressBook, l: Json): Json {
  const topics: string[] = (l.topics ?? []).map((t: string) => t.slice(2).toLowerCase());
  const data = String(l.data ?? '0x').slice(2).toLowerCase();
  const event = topics.length > 0 ? EVENTS.get(`0x${topics[0]}`) : undefined;
  const indexed = event ? event.inputs.filter((i) => i.indexed).map((i) => i.type) : [];
  const unindexed = event ? event.inputs.filter((i) => !i.indexed).map((i) => i.type) : [];
  const known = event !== undefined && indexed.length === topics.length - 1 && data.length === 64 * unindexed.length;
  return {
    ...l,
    topics: topics.map((t, i) => `0x${widenWord(book, t, i === 0 ? 'hash' : known ? indexed[i - 1]! : 'uint256')}`),
    data: data.length % 64 === 0 ? `0x${words(data).map((w, i) => widenWord(book, w, known ? unindexed[i]! : 'uint256')).join('')}` : l.data,
  };
}

/** `qrl_call`'s return data in 64-byte words, by what the call's selector returns. */
export function widenReturn(book: AddressBook, input: unknown, returned: unknown): unknown {
  if (typeof returned !== 'string' || returned === '0x') return returned;
  const hex = returned.slice(2).toLowerCase();
  if (hex.length % 64 !== 0) return returned;
  const kind = typeof input === 'string' ? KNOWN_RETURNS[input.slice(0, 10).toLowerCase()] : undefined;
  if (kind === 'text' && hex.length === 64) return `0x${widenWord(book, hex, 'bytes32')}`;
  if (kind === 'text') {
    try {
      const [text] = decodeAbiParameters([{ type: 'string' }], returned as `0x${string}`);
      const bytes = Buffer.from(text, 'utf8').toString('hex');
      const padded = bytes.padEnd(Math.ceil(bytes.length / 128) * 128, '0');
      return `0x${number(64)}${number(bytes.length / 2)}${padded}`;
    } catch {
      return returned;
    }
  }
  return `0x${words(hex).map((w) => widenWord(book, w, 'uint256')).join('')}`;
}

const number = (n: number) => n.toString(16).padStart(128, '0');

/** One 64-byte word of a go-qrl client's calldata as Anvil's 32-byte word. */
function narrowWord(book: AddressBook, word: string): string {
  const high = word.slice(0, 64);
  const low = word.slice(64);
  if (/^0+$/.test(high)) return low;
  if (/^0+$/.test(low)) return high;
  // A 64-byte address: the Anvil account it maps to (an unknown one maps to an empty account).
  return '0'.repeat(24) + book.in(word).slice(2);
}

/** Calldata of 64-byte words (selector, then static arguments) as Anvil reads it; anything else as it is. */
export function narrowCalldata(book: AddressBook, input: unknown): unknown {
  if (typeof input !== 'string' || !/^0x[0-9a-fA-F]{8}(?:[0-9a-fA-F]{128})*$/.test(input)) return input;
  const wide = input.slice(10).toLowerCase().match(/.{128}/g) ?? [];
  return input.slice(0, 10).toLowerCase() + wide.map((w) => narrowWord(book, w)).join('');
}

/** A log filter's topic (64 bytes) as Anvil's (32 bytes), by the same rule. */
export function narrowTopic(book: AddressBook, t: unknown): unknown {
  if (typeof t !== 'string' || !/^0x[0-9a-fA-F]{128}$/.test(t)) return t;
  return `0x${narrowWord(book, t.slice(2).toLowerCase())}`;
}
