import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROLLUPS } from '../registry.ts';
import { runOrder } from './order.ts';
import type { AnyRollup, ScratchTable } from './rollup.ts';

const rollup = (name: string, fields: Partial<AnyRollup> = {}): AnyRollup => ({ name, part: 'network', tables: [name], apply: async () => {}, ...fields });
const names = (rollups: AnyRollup[]) => rollups.map((r) => r.name);

describe('the order the engine runs the rollups in', () => {
  it('keeps the listed order where nothing is declared', () => {
    assert.deepEqual(names(runOrder([rollup('a'), rollup('b'), rollup('c')])), ['a', 'b', 'c']);
  });

  it('puts a rollup after those it follows, whatever the listed order', () => {
    const order = names(runOrder([rollup('c', { after: ['b'] }), rollup('b', { after: ['a'] }), rollup('a'), rollup('d')]));
    assert.deepEqual(order, ['a', 'b', 'c', 'd']);
  });

  it('runs the rollups that keep plans last, together, unless another follows one of them', () => {
    const kept = { keepsPlans: ['x'] };
    assert.deepEqual(names(runOrder([rollup('k1', kept), rollup('a'), rollup('k2', kept), rollup('b')])), ['a', 'b', 'k1', 'k2']);
    assert.deepEqual(names(runOrder([rollup('k1', kept), rollup('a', { after: ['k1'] }), rollup('b')])), ['b', 'k1', 'a']);
  });

  it('refuses a cycle, an unknown rollup, and a scratch table read without following its rollup', () => {
    assert.throws(() => runOrder([rollup('a', { after: ['b'] }), rollup('b', { after: ['a'] })]), /circular/);
    assert.throws(() => runOrder([rollup('a', { after: ['nope'] })]), /not registered/);
    const after: ScratchTable = { name: 'a_after', columns: 'address text' };
    assert.throws(() => runOrder([rollup('a', { scratchTables: [after] }), rollup('b', { reads: [after] })]), /without following/);
    assert.deepEqual(names(runOrder([rollup('b', { reads: [after], after: ['a'] }), rollup('a', { scratchTables: [after] })])), ['a', 'b']);
  });

  it('orders the registry: every rollup after those it follows', () => {
    const order = names(runOrder(ROLLUPS));
    assert.equal(order.length, ROLLUPS.length);
    for (const r of ROLLUPS) for (const name of r.after ?? []) assert.ok(order.indexOf(name) < order.indexOf(r.name), `${r.name} after ${name}`);
  });
});
