// `npm start`: the whole demo. Builds, packages the .vsix, starts the quick-start server on
// loopback, runs the example client through the remote-tool loop, audits the config against the
// live server, stops the server and says where the .vsix is. `npm start -- --serve` keeps the
// server running afterwards (Ctrl+C stops it).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const serve = process.argv.includes('--serve');
const config = join('examples', 'quickstart', '10xgraph.json');

function step(title) {
  process.stdout.write(`\n== ${title}\n`);
}

/** Runs a command in the foreground; stops the demo when it fails. */
function run(command, args, { allowFailure = false } = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0 && !allowFailure) {
    process.stderr.write(`npm start: '${[command, ...args].join(' ')}' failed (exit ${result.status ?? result.signal}).\n`);
    process.exit(1);
  }
  return result.status;
}

/** Starts `10xgraph api` on a free loopback port and resolves with its URL. */
function startServer(db) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['runtime/dist/cli.js', 'api', '--config', config, '--port', serve ? '8000' : '0', '--db', db], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the server did not say where it listens within 30 s:\n${out}`)), 30_000);
    let pending = '';
    const onData = (chunk) => {
      const text = chunk.toString();
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) process.stdout.write(`   server | ${line}\n`);
      out += text;
      const match = /Listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${out}`));
    });
  });
}

step('Build (esbuild: CLI, language server, extension)');
run(process.execPath, ['esbuild.mjs']);

step('Package the VS Code extension');
run(process.execPath, ['scripts/package.mjs']);
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const vsix = join(root, 'artifacts', `10xgraph-${version}.vsix`);

step(`Start the quick-start server: 10xgraph api --config ${config}`);
const dbDir = mkdtempSync(join(tmpdir(), '10xgraph-demo-'));
let server;
try {
  server = await startServer(join(dbDir, 'threads.sqlite'));
} catch (error) {
  process.stderr.write(`npm start: ${error.message}\n`);
  process.exit(1);
}
let failed = false;
try {
  step(`Run the example client through the remote-tool loop against ${server.url}`);
  failed ||= run(process.execPath, ['--import', 'tsx', 'examples/quickstart/client.ts', server.url], { allowFailure: true }) !== 0;

  step(`Audit the config against the live server: 10xgraph audit ${config} --graph-url ${server.url}`);
  failed ||= run(process.execPath, ['runtime/dist/cli.js', 'audit', config, '--graph-url', server.url], { allowFailure: true }) !== 0;
} finally {
  if (!serve) {
    server.child.kill('SIGTERM');
    rmSync(dbDir, { recursive: true, force: true });
  }
}

step('Done');
if (existsSync(vsix)) {
  process.stdout.write(`The extension is packaged at ${relative(process.cwd(), vsix) || vsix}. Install it with:\n  code --install-extension ${vsix}\n`);
}
process.stdout.write(`Start the server yourself with:\n  npx 10xgraph api --config ${config}\n`);
process.stdout.write('The same remote tools in a real browser (geolocation, clipboard, SQLite in the page): npm run example:browser\n');
if (serve) process.stdout.write(`The server keeps running at ${server.url}; Ctrl+C stops it.\n`);
if (failed) process.exit(1);
