/**
 * The fake QRL node as a process of its own (the benchmark runs it beside the indexer, as a real
 * node would be): generates the pow chain, serves it, and prints `chain {blocks, transactions,
 * coinbaseOnly}` then `listening HOST:PORT HEIGHT`.
 *
 *   node --import tsx test/fakes/qrl-node/main.ts '{"seed":1,"days":2,"scale":4000}'
 *   node --import tsx test/fakes/qrl-node/main.ts '{"days":3055.6,"scale":800,"coinbaseOnlyShare":0.8,"toHeight":20000}'
 */
import { generatePowItems, startNodeWithChain, type PowItemsOptions } from './world.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as PowItemsOptions & { signatureBytes?: number; port?: number };
const items = await generatePowItems(options);
const { node, address } = await startNodeWithChain(items, { signatureBytes: options.signatureBytes ?? 2500 });
let transactions = 0;
let coinbaseOnly = 0;
for (const view of node.views()) {
  if (view.kind !== 'block') continue;
  transactions += view.block.transactions.length;
  if (view.block.transactions.length === 1) coinbaseOnly++;
}
// What the node holds (its chain, orphans left out), before the line callers wait for.
console.log(`chain ${JSON.stringify({ blocks: node.height + 1, transactions, coinbaseOnly })}`);
console.log(`listening ${address} ${node.height}`);
const stop = () => void node.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
