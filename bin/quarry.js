#!/usr/bin/env -S node --max-semi-space-size=64
// A larger young generation (64 MB semi-spaces, the default is 16): a bulk load creates short-lived
// strings and amounts by the million, and scavenging them took a third of its time (docs/ingest.md).
// The flags live here only: npm start and npm run quarry run this file, and the demo benchmark reads them.
// Runs the TypeScript sources directly through tsx's loader, so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
