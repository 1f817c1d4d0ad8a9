import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const PACKAGES = ['protocol', 'daemon', 'host', 'bridge', 'web', 'cli', 'test-support'];

/**
 * A package reaches another only by its name (`@bastion/daemon/testing`, `@bastion/test-support`),
 * never by a relative path into the other's folder, so what one package uses of another is
 * declared in its exports and its package.json.
 */
function ownFolderOnly(pkg) {
  const others = PACKAGES.filter((other) => other !== pkg).join('|');
  return {
    regex: `^(\\.\\./)+(packages/)?(${others})/`,
    message: `import another package by its name (its exports, or @bastion/test-support), not a relative path out of packages/${pkg}`,
  };
}

/** Benchmarks and the root tests may drive a package's test harnesses, but never reach into its src. */
const NO_PACKAGE_SRC = {
  regex: '^(\\.\\./)+packages/[^/]+/src/',
  message: "use the package's name (@bastion/<package>/testing for internals), not a relative path into its src",
};

const NODE_IN_BROWSER = { group: ['node:*'], message: 'browser-safe package: no node:* imports' };

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'test-output/**', 'bench/results/**', 'packages/web/dist/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['packages/web/vite.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // Each block below sets the whole no-restricted-imports list for its files (a later block
  // replaces an earlier one's options, it does not add to them), so each repeats ownFolderOnly.
  ...['host', 'cli', 'test-support'].map((pkg) => ({
    files: [`packages/${pkg}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns: [ownFolderOnly(pkg)] }] },
  })),
  {
    files: ['packages/daemon/**/*.ts'],
    ignores: ['packages/daemon/src/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ownFolderOnly('daemon')] }] },
  },
  ...['protocol', 'bridge', 'web'].flatMap((pkg) => [
    {
      files: [`packages/${pkg}/**/*.{ts,tsx}`],
      rules: { 'no-restricted-imports': ['error', { patterns: [ownFolderOnly(pkg)] }] },
    },
    {
      files: [`packages/${pkg}/src/**/*.{ts,tsx}`],
      rules: { 'no-restricted-imports': ['error', { patterns: [NODE_IN_BROWSER, ownFolderOnly(pkg)] }] },
    },
  ]),
  {
    files: ['bench/**/*.ts', 'test/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_PACKAGE_SRC] }] },
  },
  {
    files: ['packages/daemon/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@bastion/host', '@bastion/host/*'], message: 'the daemon never imports the host' },
            { group: ['undici'], message: 'the daemon has no network route of its own: use the host transport' },
            ownFolderOnly('daemon'),
          ],
          paths: [
            { name: 'node:https', message: 'the daemon has no network route of its own: use the host transport' },
            {
              name: 'node:net',
              importNames: ['connect', 'createConnection', 'createServer'],
              message: 'the daemon never connects or listens',
            },
          ],
        },
      ],
    },
  },
  {
    // vitest's asymmetric matchers (expect.any, expect.stringMatching) are typed `any`.
    files: ['**/*.test.ts', 'packages/*/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
);
