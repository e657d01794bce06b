/**
 * A fake QRL node whose chain grows, as a process of its own (the soak, bench/parts/soak.ts): it
 * serves the generator's pow chain up to `startHeight`, then, told `grow <blocks per second>` on
 * stdin, pushes the generator's next items at that rate, reorgs included (the generator puts an
 * orphan branch before the canonical blocks that replace it, and the node switches branch as a
 * real one does). `freeze` stops the growth for good and answers `frozen <height> <hash>`. After
 * every push it prints `head <height> <hash>`, so that its owner knows the tip without asking.
 *
 *   node --import tsx test/fakes/qrl-node/live.ts '{"seed":5,"days":3,"scale":4000,"reorgEvery":300,"startHeight":1100}'
 */
import { createInterface } from 'node:readline';
import type { SourceItem } from '../../../src/chain/model.ts';
import { createSyntheticWorld } from '../../../src/sources/synthetic/index.ts';
import { FakeQrlNode } from './server.ts';

export interface LiveNodeOptions {
  seed: number;
  /** Days of generated pow history: enough for the growth (1,440 blocks a day). */
  days: number;
  scale: number;
  /** Mean blocks between reorgs (depth 1-3). */
  reorgEvery: number;
  /** Served at start: the items up to this height. */
  startHeight: number;
  /** The world's end (its pow history starts `days` before it). */
  end: string;
  signatureBytes?: number;
}

const options = JSON.parse(process.argv[2] ?? '{}') as LiveNodeOptions;
const world = createSyntheticWorld({
  seed: options.seed,
  end: new Date(options.end),
  powDays: options.days,
  posDays: 0.05,
  scale: options.scale,
  reorgEvery: options.reorgEvery,
  // The account id of a migration is Quarry's own: a pow node cannot tell it.
  migrationCutover: null,
});
const items = world.pow.blocks(0)[Symbol.asyncIterator]();
const node = new FakeQrlNode({ signatureBytes: options.signatureBytes ?? 64 });

const heightOf = (item: SourceItem) => (item.kind === 'block' ? item.block.height : item.kind === 'undecodable' ? item.height : -1);
let pending: SourceItem | null = null;
async function next(): Promise<SourceItem | null> {
  if (pending) {
    const item = pending;
    pending = null;
    return item;
  }
  for (;;) {
    const { value, done } = await items.next();
    if (done) return null;
    if (value.kind !== 'caught-up') return value;
  }
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const head = () => say(`head ${node.height} ${node.headHash}`);

for (;;) {
  const item = await next();
  if (!item) throw new Error('live node: the generated history ends before startHeight');
  if (heightOf(item) > options.startHeight) {
    pending = item;
    break;
  }
  node.push(item);
}
const address = await node.start();
say(`listening ${address} ${node.height}`);
head();

let timer: NodeJS.Timeout | undefined;
let frozen = false;
let pushing = false;
/** Pushes the items due since `started` at `rate` a second (a late tick catches up). */
function grow(rate: number): void {
  const started = performance.now();
  let pushed = 0;
  timer = setInterval(() => {
    if (pushing || frozen) return;
    pushing = true;
    void (async () => {
      try {
        const due = Math.floor(((performance.now() - started) / 1000) * rate);
        while (pushed < due && !frozen) {
          const item = await next();
          if (!item) {
            say('exhausted');
            clearInterval(timer);
            return;
          }
          node.push(item);
          pushed++;
          head();
        }
      } finally {
        pushing = false;
      }
    })();
  }, Math.max(10, Math.floor(1000 / rate / 2)));
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, arg] = line.trim().split(/\s+/);
  if (command === 'grow' && !frozen && timer === undefined) grow(Number(arg));
  if (command === 'freeze') {
    frozen = true;
    clearInterval(timer);
    const answer = () => (pushing ? setTimeout(answer, 5) : say(`frozen ${node.height} ${node.headHash}`));
    answer();
  }
});

const stop = () => void node.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
