import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { createJobClock } from './progress.ts';

describe('the job clock (the demo load’s time left in all)', () => {
  it('estimates the time left from the time taken and the share of the work done', (t) => {
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    t.after(() => mock.timers.reset());
    // Shares 2 : 1 : 1 of the whole: a half, a quarter and a quarter.
    const clock = createJobClock({ write: 2, index: 1, labels: 1 });
    assert.equal(clock.left(), 'estimating');
    clock.step('write', 100);
    mock.timers.tick(10_000);
    clock.progress(50);
    // A quarter of the work in 10 s: 30 s to go.
    assert.equal(clock.left(), 'about 30 s left');
    mock.timers.tick(10_000);
    clock.progress(100);
    clock.step('index');
    // Half the work in 20 s; the uncounted step has just begun: 20 s to go.
    assert.equal(clock.left(), 'about 20 s left');
    // Uncounted, the step is taken to move at the pace so far (a quarter of the work in 10 s):
    // after 5 s, half of it is done, five eighths of the whole in 25 s.
    mock.timers.tick(5_000);
    assert.equal(clock.left(), 'about 15 s left');
    // Slower than the pace so far, it is never taken as done before it ends.
    mock.timers.tick(60_000);
    assert.equal(clock.left(), `about ${Math.round((85 * (1 - 0.7375)) / 0.7375)} s left`);
    clock.step('labels', 4);
    clock.progress(2);
    // 85 s for seven eighths: about 12 s to go.
    assert.equal(clock.left(), 'about 12 s left');
  });

  it('gives minutes and seconds beyond a minute', (t) => {
    mock.timers.enable({ apis: ['Date'], now: 0 });
    t.after(() => mock.timers.reset());
    const clock = createJobClock({ only: 1 });
    clock.step('only', 1000);
    mock.timers.tick(30_000);
    clock.progress(200);
    assert.equal(clock.left(), 'about 2 min 00 s left');
  });
});
