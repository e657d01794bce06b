import tseslint from 'typescript-eslint';

/** The layers data flows through: a file may import from its own layer and those before it, never after. */
const LAYERS = [
  ['src/time.ts', 'src/log.ts', 'src/config/**', 'src/chain/**'],
  ['src/store/**'],
  ['src/sources/**'],
  ['src/rollups/**'],
  // Definitions both API groups share (total supply, holder tiers, wallet classes, windows ending at
  // the latest block): they read the store and rollups, and know nothing of HTTP.
  ['src/domain/**'],
  ['src/ingest/**'],
  ['src/auth/**'],
  ['src/api/**'],
];
const FOLDERS = ['config', 'chain', 'store', 'sources', 'rollups', 'domain', 'ingest', 'auth', 'api', 'cli'];
const layerOf = (folder) => LAYERS.findIndex((globs) => globs.includes(`src/${folder}/**`));

const layering = LAYERS.map((files, layer) => {
  const later = FOLDERS.filter((folder) => folder === 'cli' || layerOf(folder) > layer);
  return {
    files,
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: `(^|/)(${later.join('|')})/`, message: 'Layers, lowest first: chain, config and time; store; sources; rollups; domain; ingest; auth; api; cli. This import runs up them.' }],
      }],
    },
  };
});

export default tseslint.config(
  { ignores: ['node_modules/', '.quarry/', 'dist/', 'bench/.work/', 'bench/results/', 'test/.work/'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  ...layering,
  {
    // A route group's subfolders hold helpers: they never import the group's own route files.
    files: ['src/api/routes/*/*/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^\\.\\./[^./][^/]*$', message: "A folder's helpers must not import its parent's routes." }],
      }],
    },
  },
  {
    // Tests read loosely typed JSON answers.
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
