// ESLint with typed linting (typescript-eslint): the rules that catch what tsc does not, and the
// boundaries between the parts. `npm run lint`; `npm test` runs it before the tests.
import tseslint from 'typescript-eslint';

/** Imports that cross a boundary: the runtime only through its package name, the parts through common/. */
const boundaries = (...patterns) => ({
  'no-restricted-imports': ['error', { patterns: patterns.map(([group, message]) => ({ group, message })) }],
});

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'artifacts/**', 'test/fixtures/**', 'test/e2e/harness/out/**', '.vscode-test/**', '**/*.d.ts'],
  },
  {
    files: ['runtime/src/**/*.ts', 'client-sdk/src/**/*.ts', 'server/src/**/*.ts', 'client/src/**/*.ts', 'common/**/*.ts', 'test/**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its error: handle it, or say `void` on purpose.
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    files: ['server/src/**/*.ts', 'client/src/**/*.ts', 'common/**/*.ts'],
    rules: boundaries(
      [['**/runtime/src/**', '**/runtime/src'], 'Import the runtime by its package name and public entry points (10xgraph/rules, 10xgraph/live, 10xgraph/workspace).'],
      [['**/client-sdk/src/**'], 'Import the client by its package name (10xgraph-client).'],
    ),
  },
  {
    files: ['client/src/**/*.ts', 'common/**/*.ts'],
    rules: boundaries(
      [['**/runtime/src/**', '**/runtime/src'], 'Import the runtime by its package name and public entry points (10xgraph/rules, 10xgraph/live, 10xgraph/workspace).'],
      [['**/client-sdk/src/**'], 'Import the client by its package name (10xgraph-client).'],
      [['**/server/src/**', '**/server/src'], 'The extension and the server share only common/ (the protocol and the settings parser).'],
    ),
  },
  {
    files: ['client-sdk/src/**/*.ts'],
    rules: boundaries([
      ['**/runtime/**', '**/server/**', '**/client/src/**', '**/common/**'],
      'The client package stands alone: it imports nothing of the rest of the repository.',
    ]),
  },
);
