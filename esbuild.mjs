// One script, one entry per bundle. `node esbuild.mjs [--production] [--watch]`.
// Entries whose source does not exist yet are skipped with a note, so a partial tree builds.
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {Array<import('esbuild').BuildOptions & {entry: string}>} */
const bundles = [
  // The CLI (`10xgraph audit`, `10xgraph api`). Native and compiler packages stay external:
  // better-sqlite3 has a binary addon, esbuild compiles the agent module at run time.
  { entry: 'runtime/src/cli/main.ts', outfile: 'dist/cli.js', platform: 'node', format: 'cjs', external: ['better-sqlite3', 'esbuild'] },
  // The runtime as a library, for agent modules (`import { StateGraph } from '10xgraph'`).
  { entry: 'runtime/src/index.ts', outfile: 'runtime/dist/index.js', platform: 'node', format: 'cjs', external: ['better-sqlite3', 'esbuild', 'ws', 'ajv', 'jsonc-parser', '10xgraph-client'] },
  { entry: 'runtime/src/rules/index.ts', outfile: 'runtime/dist/rules.js', platform: 'node', format: 'cjs', external: ['ajv', 'jsonc-parser'] },
  // The client package (10xgraph-client) is browser-compatible: fetch and WebSocket only, no
  // dependencies. `10xgraph/client` re-exports it rather than carrying a second copy.
  { entry: 'client-sdk/src/index.ts', outfile: 'client-sdk/dist/index.cjs', platform: 'neutral', format: 'cjs' },
  { entry: 'client-sdk/src/index.ts', outfile: 'client-sdk/dist/index.mjs', platform: 'neutral', format: 'esm' },
  { entry: 'client-sdk/src/wire.ts', outfile: 'client-sdk/dist/wire.cjs', platform: 'neutral', format: 'cjs' },
  { entry: 'client-sdk/src/wire.ts', outfile: 'client-sdk/dist/wire.mjs', platform: 'neutral', format: 'esm' },
  { entry: 'runtime/src/client.ts', outfile: 'runtime/dist/client.js', platform: 'neutral', external: ['10xgraph-client'], format: 'cjs', mainFields: ['module', 'main'] },
  { entry: 'runtime/src/client.ts', outfile: 'runtime/dist/client.mjs', platform: 'neutral', external: ['10xgraph-client'], format: 'esm', mainFields: ['module', 'main'] },
  // The language server: one file, no node_modules at run time.
  { entry: 'server/src/main.ts', outfile: 'dist/server.js', platform: 'node', format: 'cjs' },
  // The VS Code extension.
  { entry: 'client/src/extension.ts', outfile: 'dist/extension.js', platform: 'node', format: 'cjs', external: ['vscode'] },
];

// A production build is for the .vsix: it rebuilds only what ships (the extension and the
// language server) and leaves the development bundles of the CLI and the libraries alone.
const SHIPPED = new Set(['dist/extension.js', 'dist/server.js']);
const contexts = [];
for (const { entry, ...options } of bundles) {
  if (production && !SHIPPED.has(options.outfile)) continue;
  if (!existsSync(entry)) {
    console.log(`esbuild: skipped ${options.outfile} (no ${entry} yet)`);
    continue;
  }
  const config = {
    entryPoints: [entry],
    bundle: true,
    target: 'node20',
    sourcemap: !production,
    minify: production,
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
    await esbuild.build(config);
  }
}
if (watch) console.log('esbuild: watching');
