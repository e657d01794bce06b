import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatLabelsFile, LabelsFileInvalid, parseLabelsFile } from '../../src/ingest/labels-file.ts';
import { addr } from '../support/chain-builder.ts';

const POS = addr('pos', 'labels-a');
const POS2 = addr('pos', 'labels-b');
const POW = addr('pow', 'labels-c');
const HEADER = 'chain,address,role,exchange,label,category,primary';

function errorsOf(text: string): string[] {
  try {
    parseLabelsFile(text);
  } catch (error) {
    assert.ok(error instanceof LabelsFileInvalid);
    return error.message.split('\n');
  }
  assert.fail('the file was accepted');
}

describe('labels file', () => {
  it('reads venues, relays and labels; comments, blank lines, quoting, any column order and address forms', () => {
    const records = parseLabelsFile([
      '# curated venues',
      'label,chain,address,role,exchange,category,primary',
      `Acme hot wallet,pos,${POS.replace('Q', '0x').toUpperCase().replace('0X', '0x')},hot,Acme,,`,
      '',
      `"Acme deposit, relay",pos,Z${POS2.slice(1)},deposit_relay,Acme,exchange,false`,
      `"The ""Foundation""",pow,${POW},,,treasury,yes`,
    ].join('\r\n'));
    assert.deepEqual(records, [
      { chain: 'pos', address: POS, label: 'Acme hot wallet', category: 'exchange', primary: true, exchange: { name: 'Acme', role: 'hot' }, line: 3 },
      { chain: 'pos', address: POS2, label: 'Acme deposit, relay', category: 'exchange', primary: false, exchange: { name: 'Acme', role: 'deposit_relay' }, line: 5 },
      { chain: 'pow', address: POW, label: 'The "Foundation"', category: 'treasury', primary: true, exchange: null, line: 6 },
    ]);
    // What formatLabelsFile writes, parseLabelsFile reads back.
    assert.deepEqual(parseLabelsFile(formatLabelsFile(records)).map(({ line: _, ...r }) => r), records.map(({ line: _, ...r }) => r));
  });

  it('names the line and field of every error, and accepts nothing from a file with one', () => {
    const errors = errorsOf([
      HEADER,
      `btc,${POS},,,x,entity,`,
      `pos,Qxyz,,,x,entity,`,
      `pow,Q${'0'.repeat(77)}1,,,x,entity,`,
      `pos,${POS},warm,Acme,x,exchange,`,
      `pos,${POS},hot,,x,exchange,`,
      `pos,${POS},,Acme,x,entity,`,
      `pos,${POS},,,,entity,`,
      `pos,${POS},,,x,,`,
      `pos,${POS},,,x,Bad Category,`,
      `pos,${POS},hot,Acme,x,treasury,`,
      `pos,${POS},,,x,entity,maybe`,
      `pos,${POS},,,x,entity`,
      `pos,"${POS},,,x,entity,`,
      `pos,${POS2},hot,Acme,one,,`,
      `pos,${POS2},hot,Acme,one,,false`,
      `pos,${POS2},cold,Acme,two,,false`,
      `pos,${POS2},hot,Acme,three,,true`,
    ].join('\n'));
    assert.deepEqual(errors, [
      'line 2, chain: must be one of pow, pos (got "btc")',
      'line 3, address: not a pos address: must be Q, Z or 0x followed by 40 hex characters (20-byte addresses on this network)',
      'line 4, address: not a pow address: checksum does not match',
      'line 5, role: must be empty or one of hot, cold, deposit_relay (got "warm")',
      'line 6, exchange: required with role hot',
      'line 7, exchange: must be empty without a role',
      'line 8, label: required',
      'line 9, category: required for a label without a role',
      'line 10, category: must be lowercase letters, digits and _ (starting with a letter, at most 40)',
      'line 11, category: must be exchange (or empty) for role hot',
      'line 12, primary: must be true, false, 1, 0, yes, no or empty (got "maybe")',
      'line 13: expected 7 fields, found 6',
      'line 14: unbalanced or misplaced double quote',
      'line 16, label: the same label of this address is on line 15',
      'line 17, role: line 15 gives this address another venue or role (an address has one)',
      'line 18, primary: this address already has a primary label on line 15',
    ]);
  });

  it('requires the header', () => {
    assert.deepEqual(errorsOf(''), ['line 1: empty file: a header (chain,address,role,exchange,label,category,primary) is required']);
    assert.deepEqual(errorsOf(`chain,address,label\npos,${POS},x`), [
      'line 1: the header must name the columns chain,address,role,exchange,label,category,primary once each (in any order); missing role, exchange, category, primary',
    ]);
  });

  it('reads pos addresses at the width of the store: 64 bytes on a 64-byte network', () => {
    const networks = { pow: { addressBytes: 39 }, pos: { addressBytes: 64 } };
    // go-qrllib's checksum parity vector (wallet/common/address_test.go), checksummed and lowercase.
    const wide = 'Qd5812F6Cf4a0f645aa620cd57319a0Ed649dd8f5519A9dde7770ae5b0E49e547985f35eB972A2a07041561aa39c65A3991478f9B1e6749e05277dcf58A9A8B72';
    const [record] = parseLabelsFile(`${HEADER}\npos,${wide},,,Treasury,treasury,\n`, networks);
    assert.equal(record!.address, 'Qd5812f6cf4a0f645aa620cd57319a0ed649dd8f5519a9dde7770ae5b0e49e547985f35eb972a2a07041561aa39c65a3991478f9b1e6749e05277dcf58a9a8b72');
    assert.throws(() => parseLabelsFile(`${HEADER}\npos,${POS},,,Treasury,treasury,\n`, networks), /line 2, address: not a pos address: must be Q followed by 128 hex characters \(64-byte addresses on this network\)/);
  });
});
