/**
 * Replaying a failed fast-check property. A failing `fc.assert` names its seed and path
 * (`{ seed: 272705175, path: "1:1:0", … }`); `npm test` loads this module into every test process
 * (`--import`, scripts/test.ts), and with QUARRY_TEST_PROPERTY_SEED (and QUARRY_TEST_PROPERTY_PATH)
 * set, every property runs from that seed (and goes straight to that counterexample):
 *
 *   QUARRY_TEST_PROPERTY_SEED=272705175 QUARRY_TEST_PROPERTY_PATH=1:1:0 npm test -- rollup-registry
 *
 * Without them fast-check picks a new seed each run. The seeded property tests that do not use
 * fast-check (test/ingest/properties.test.ts) run fixed seeds and name the failing one
 * (`forSeed`, test/support/random-chain.ts).
 */
const seed = process.env.QUARRY_TEST_PROPERTY_SEED;
if (seed) {
  const fc = await import('fast-check');
  const replayPath = process.env.QUARRY_TEST_PROPERTY_PATH;
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(seed), ...(replayPath ? { path: replayPath } : {}) });
}
