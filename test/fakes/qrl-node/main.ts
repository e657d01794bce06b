/**
 * The fake QRL node as a process of its own (the benchmark runs it beside the indexer, as a real
 * node would be): generates the pow chain, serves it, and prints `listening HOST:PORT HEIGHT`.
 *
 *   node --import tsx test/fakes/qrl-node/main.ts '{"seed":1,"days":2,"scale":4000}'
 */
import { generatePowItems, startNodeWithChain } from './world.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as { seed?: number; days?: number; scale?: number; signatureBytes?: number; port?: number };
const items = await generatePowItems(options);
const { node, address } = await startNodeWithChain(items, { signatureBytes: options.signatureBytes ?? 2500 });
console.log(`listening ${address} ${node.height}`);
const stop = () => void node.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
