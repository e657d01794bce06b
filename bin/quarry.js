#!/usr/bin/env -S node --max-semi-space-size=64
// A larger young generation (64 MB semi-spaces, the default is 16): a bulk load creates short-lived
// strings and amounts by the million, and scavenging them took a third of its time (docs/ingest.md).
// The flags live here only: npm start and npm run quarry run this file, and the demo benchmark reads them.
// Runs the TypeScript sources compiled once into a cache (compiled-sources.js), so there is no build
// step to remember; where the cache cannot be written, through tsx's loader instead.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cachedCompiledTree } from './compiled-sources.js';

const tree = await cachedCompiledTree(['src']);
if (tree === undefined) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
} else {
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(path.join(tree, 'src', 'cli', 'main.js')).href);
}
