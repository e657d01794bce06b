import assert from 'node:assert/strict';
import { it } from 'node:test';
import { addDays, dayIndex, DAY_SECONDS, dayName, eachDay } from './time.ts';

/** The day arithmetic against the Date object's own, day by day. */
const byDate = {
  index: (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000 / DAY_SECONDS,
  name: (index: number) => new Date(index * DAY_SECONDS * 1000).toISOString().slice(0, 10),
};

it('dayIndex and addDays agree with Date on every day from 1800 to 2300', () => {
  for (let index = byDate.index('1800-01-01'); index <= byDate.index('2300-12-31'); index++) {
    const day = byDate.name(index);
    assert.equal(dayIndex(day), index, day);
    assert.equal(addDays(day, 1), byDate.name(index + 1), day);
    assert.equal(addDays(day, -366), byDate.name(index - 366), day);
    assert.equal(dayName(index), day);
  }
});

it('dayIndex is NaN for what is not a calendar day', () => {
  for (const text of ['', '2025-1-01', '2025-13-01', '2025-00-10', '2025-02-29', '2024-02-30', '1900-02-29', '2025-04-31', '2025-01-32', '2025-01-00', ' 2025-01-01', '2025-01-01T00:00:00Z', '+025-01-01']) {
    assert.ok(Number.isNaN(dayIndex(text)), JSON.stringify(text));
  }
  assert.equal(dayIndex('2000-02-29'), byDate.index('2000-02-29'));
  assert.equal(dayIndex('2024-02-29'), byDate.index('2024-02-29'));
});

it('eachDay lists every day of a range, oldest first, and none of an empty one', () => {
  assert.deepEqual(eachDay('2024-02-27', '2024-03-02'), ['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01', '2024-03-02']);
  assert.deepEqual(eachDay('2024-03-02', '2024-03-01'), []);
  assert.equal(eachDay('2016-01-01', '2025-12-31').length, 3653);
});
