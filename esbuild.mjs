// One script, one entry per bundle. `node esbuild.mjs [--production] [--watch]`.
// A missing entry is an error: a bundle that silently stops being built would ship stale.
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/**
 * In cli.js, `require('./api')` and `require('./types')` of main.ts load the command's own bundle
 * (cli-api.js, cli-types.js) instead of carrying it: an audit parses neither.
 * @type {import('esbuild').Plugin}
 */
const commandBundles = {
  name: 'cli-command-bundles',
  setup(build) {
    build.onResolve({ filter: /^\.\/(api|types)$/ }, (args) =>
      args.importer.endsWith(join('cli', 'main.ts')) ? { path: `./cli-${args.path.slice(2)}.js`, external: true } : undefined,
    );
  },
};

/**
 * api.js (`10xgraph/api`) takes the graph's error classes from index.js (`10xgraph`), so an
 * `AgentLoadError` is a `GraphError` of the library agent modules import.
 * @type {import('esbuild').Plugin}
 */
const graphErrorsFromIndex = {
  name: 'graph-errors-from-index',
  setup(build) {
    const errors = resolve('runtime/src/graph/errors');
    build.onResolve({ filter: /(^|\/)errors$/ }, (args) => (resolve(args.resolveDir, args.path) === errors ? { path: './index.js', external: true } : undefined));
  },
};

/**
 * ajv, which the rule set needs only for a schema its own checks cannot settle, is a file of its
 * own beside the language server (server-ajv.js), read on first use, so that start-up neither
 * compiles nor evaluates it: the first diagnostics of a config rarely need it. The rule set
 * requires ajv inside a function already.
 * @type {import('esbuild').Plugin}
 */
const serverChunks = {
  name: 'server-chunks',
  setup(build) {
    build.onResolve({ filter: /^ajv$/ }, () => ({ path: './server-ajv.js', external: true }));
  },
};
const requireHere = createRequire(import.meta.url);

/** @type {Array<import('esbuild').BuildOptions & {entry: string}>} */
const bundles = [
  // The CLI (`10xgraph audit`, `10xgraph api`). Native and compiler packages stay external, and are
  // optional peers of the package, loaded where needed (runtime/src/peers.ts): better-sqlite3 has a
  // binary addon, esbuild compiles the agent module at run time, pg serves threads in PostgreSQL.
  // ajv and ws (dependencies of the runtime package) stay external too, so a plain audit, which needs
  // none of them, does not pay for compiling them at start-up (pino too: the API loads it on first use; @lezer/python too: only the
  // audit of a Python agent module parses Python); json-schema-to-typescript (with its
  // formatter) is loaded by `10xgraph types` only. It ships in the `10xgraph` package
  // (runtime/bin/10xgraph.js loads it), hence runtime/dist/.
  {
    entry: 'runtime/src/cli/main.ts',
    outfile: 'runtime/dist/cli.js',
    platform: 'node',
    format: 'cjs',
    external: ['better-sqlite3', 'esbuild', 'pg', 'ioredis', 'ajv', 'ws', 'pino', 'json-schema-to-typescript', '@lezer/python', '@lezer/common'],
    plugins: [commandBundles],
  },
  // `10xgraph api` and `10xgraph types`, which cli.js requires for their command only.
  {
    entry: 'runtime/src/cli/api.ts',
    outfile: 'runtime/dist/cli-api.js',
    platform: 'node',
    format: 'cjs',
    external: ['better-sqlite3', 'esbuild', 'pg', 'ioredis', 'ajv', 'ws', 'pino'],
  },
  {
    entry: 'runtime/src/cli/types.ts',
    outfile: 'runtime/dist/cli-types.js',
    platform: 'node',
    format: 'cjs',
    external: ['better-sqlite3', 'esbuild', 'pg', 'ajv', 'ws', 'pino', 'json-schema-to-typescript'],
  },
  // The graph library, for agent modules (`import { StateGraph } from '10xgraph'`): the graph and
  // the chat models, nothing of the API server, the stores or the rule set (`10xgraph/api`,
  // `10xgraph/rules`), so it needs no package beyond its own files. The wire shapes of
  // 10xgraph-client (constants and pure functions, no classes) are bundled in: every agent module
  // loads this file, and resolving one more package costs it start-up time.
  { entry: 'runtime/src/index.ts', outfile: 'runtime/dist/index.js', platform: 'node', format: 'cjs' },
  {
    entry: 'runtime/src/api/index.ts',
    outfile: 'runtime/dist/api.js',
    platform: 'node',
    format: 'cjs',
    external: ['better-sqlite3', 'esbuild', 'pg', 'ioredis', 'ws', 'ajv', 'pino'],
    plugins: [graphErrorsFromIndex],
  },
  // The SQLite store's checkpoint worker thread, a file of its own beside api.js and cli-api.js,
  // which start it (runtime/src/api/store/sqlite.ts).
  { entry: 'runtime/src/api/store/checkpointWorker.ts', outfile: 'runtime/dist/sqliteCheckpoint.js', platform: 'node', format: 'cjs', external: ['better-sqlite3'] },
  { entry: 'runtime/src/rules/index.ts', outfile: 'runtime/dist/rules.js', platform: 'node', format: 'cjs', external: ['ajv', 'jsonc-parser'] },
  { entry: 'runtime/src/live/index.ts', outfile: 'runtime/dist/live.js', platform: 'node', format: 'cjs' },
  { entry: 'runtime/src/workspace/index.ts', outfile: 'runtime/dist/workspace.js', platform: 'node', format: 'cjs' },
  // The client package (10xgraph-client) is browser-compatible: fetch and WebSocket only, no
  // dependencies. `10xgraph/client` re-exports it rather than carrying a second copy.
  { entry: 'client-sdk/src/index.ts', outfile: 'client-sdk/dist/index.cjs', platform: 'neutral', format: 'cjs', target: 'es2022' },
  { entry: 'client-sdk/src/index.ts', outfile: 'client-sdk/dist/index.mjs', platform: 'neutral', format: 'esm', target: 'es2022' },
  { entry: 'client-sdk/src/wire.ts', outfile: 'client-sdk/dist/wire.cjs', platform: 'neutral', format: 'cjs', target: 'es2022' },
  { entry: 'client-sdk/src/wire.ts', outfile: 'client-sdk/dist/wire.mjs', platform: 'neutral', format: 'esm', target: 'es2022' },
  { entry: 'runtime/src/client.ts', outfile: 'runtime/dist/client.js', platform: 'neutral', external: ['10xgraph-client'], format: 'cjs', mainFields: ['module', 'main'] },
  { entry: 'runtime/src/client.ts', outfile: 'runtime/dist/client.mjs', platform: 'neutral', external: ['10xgraph-client'], format: 'esm', mainFields: ['module', 'main'] },
  // The language server: one file and its part read on first use (ajv), no node_modules at run time.
  // The same bundle twice: in the .vsix (dist/, beside the extension) and in the
  // `10xgraph-language-server` package.
  // ajv is a file of its own beside it, read on first use: see serverChunks.
  { entry: 'server/src/main.ts', outfile: 'dist/server.js', platform: 'node', format: 'cjs', plugins: [serverChunks] },
  { entry: 'server/src/main.ts', outfile: 'server/dist/server.js', platform: 'node', format: 'cjs', plugins: [serverChunks] },
  ...['dist', 'server/dist'].map((folder) => ({ entry: requireHere.resolve('ajv'), outfile: `${folder}/server-ajv.js`, platform: 'node', format: 'cjs' })),
  // The VS Code extension.
  { entry: 'client/src/extension.ts', outfile: 'dist/extension.js', platform: 'node', format: 'cjs', external: ['vscode'] },
];

/**
 * Writes a build's files each through a temporary file and a rename, so that a process loading a
 * bundle while it is rebuilt (a test, a running CLI) reads the old file or the new, never half.
 */
function writeAtomically(result) {
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
}

// A production build is what ships (the .vsix and the npm packages): no source maps; the two
// programs nobody imports (the extension and the language server) are minified as well, the
// libraries stay readable for their users' debuggers.
const MINIFIED = new Set(['dist/extension.js', ...['dist', 'server/dist'].flatMap((folder) => ['server.js', 'server-ajv.js'].map((file) => `${folder}/${file}`))]);
const contexts = [];
for (const { entry, ...options } of bundles) {
  if (!existsSync(entry)) {
    console.error(`esbuild: ${entry} does not exist, so ${options.outfile} cannot be built; fix the entry in esbuild.mjs.`);
    process.exit(1);
  }
  const config = {
    entryPoints: [entry],
    bundle: true,
    target: 'node20',
    sourcemap: !production,
    minify: production && MINIFIED.has(options.outfile),
    logLevel: 'warning',
    // jsonc-parser's `main` is a UMD build whose dynamic requires esbuild cannot follow.
    mainFields: ['module', 'main'],
    ...options,
  };
  if (watch) {
    const ctx = await esbuild.context(config);
    await ctx.watch();
    contexts.push(ctx);
  } else {
    writeAtomically(await esbuild.build({ ...config, write: false }));
  }
}
if (watch) console.log('esbuild: watching');
