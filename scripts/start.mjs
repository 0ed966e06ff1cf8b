// `npm start`: the whole demo. Builds, packages every part (the .vsix and the npm tarballs, as
// `npm run package`), starts the quick-start server on loopback, runs the example client through
// the remote-tool loop, audits the config against the live server, stops the server and says what
// ran and what to do next. `npm start -- --serve` keeps the server running afterwards (Ctrl+C
// stops it).
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

/**
 * Runs a command in the foreground; stops the demo when it fails. `keep` runs it with its output
 * captured and shows only the lines it matches (the packager's own summary, not npm's and vsce's
 * file listings); on a failure everything it printed is shown.
 */
function run(command, args, { allowFailure = false, keep } = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: keep ? ['ignore', 'pipe', 'pipe'] : 'inherit', encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (keep) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
    const shown = result.status === 0 ? output.split('\n').filter((line) => keep.test(line)) : output.split('\n');
    process.stdout.write(shown.map((line) => `${line}\n`).join(''));
  }
  if (result.status !== 0 && !allowFailure) {
    process.stderr.write(`npm start: '${[command, ...args].join(' ')}' failed (exit ${result.status ?? result.signal}).\n`);
    process.exit(1);
  }
  return result.status;
}

/** Starts `10xgraph api` on a free loopback port and resolves with its URL; its log is shown line by line. */
function startServer(db) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['runtime/dist/cli.js', 'api', '--config', config, '--port', serve ? '8000' : '0', '--db', db], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not say where it listens within 30 s:\n${out}`));
    }, 30_000);
    let pending = '';
    let listening = false;
    const onData = (chunk) => {
      const text = chunk.toString();
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) process.stdout.write(`   server | ${line}\n`);
      // Kept only until the server says where it listens: with --serve its log goes on for hours.
      if (listening) return;
      out += text;
      const match = /Listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        listening = true;
        clearTimeout(timer);
        resolve({ child, url: match[1], exited });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const exited = new Promise((done) =>
      child.on('close', (code, signal) => {
        if (pending) process.stdout.write(`   server | ${pending}\n`);
        pending = '';
        done(code ?? signal);
      }),
    );
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${out}`));
    });
  });
}

/** Stops the server and waits for the last lines of its log (SIGKILL after 10 s). */
async function stopServer(server) {
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
  await server.exited;
  clearTimeout(timer);
}

step('Build (esbuild: CLI, language server, extension)');
run(process.execPath, ['esbuild.mjs']);

step('Package every part: the VS Code extension and the npm tarballs');
run(process.execPath, ['scripts/package.mjs'], { keep: /^package: / });
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
const vsix = join(root, 'artifacts', `10xgraph-${version}.vsix`);

step(`Start the quick-start server: 10xgraph api --config ${config}`);
const dbDir = mkdtempSync(join(tmpdir(), '10xgraph-demo-'));
let server;
try {
  server = await startServer(join(dbDir, 'threads.sqlite'));
} catch (error) {
  process.stderr.write(`npm start: ${error.message}\n`);
  rmSync(dbDir, { recursive: true, force: true });
  process.exit(1);
}
let failed = false;
const client = `node --import tsx examples/quickstart/client.ts`;
let audited = false;
try {
  step(`Run the example client through the remote-tool loop against ${server.url}`);
  failed ||= run(process.execPath, ['--import', 'tsx', 'examples/quickstart/client.ts', server.url], { allowFailure: true }) !== 0;

  step(`Audit the config against the live server: 10xgraph audit ${config} --graph-url ${server.url}`);
  audited = run(process.execPath, ['runtime/dist/cli.js', 'audit', config, '--graph-url', server.url], { allowFailure: true }) === 0;
  failed ||= !audited;
} finally {
  if (!serve) {
    step('Stop the server (its log ends here)');
    await stopServer(server);
    rmSync(dbDir, { recursive: true, force: true });
  }
}

step(failed ? 'Done, with failures (see above)' : 'Done');
const shownVsix = relative(process.cwd(), vsix) || vsix;
process.stdout.write(
  [
    'What ran:',
    `  built the CLI, the language server and the extension${existsSync(vsix) ? `; packaged the extension at ${shownVsix}` : ''}`,
    `  10xgraph api on ${server.url}, the example client through the remote-tool loop, and 10xgraph audit (${audited ? 'no errors' : 'see above'})`,
    'Next:',
    ...(serve
      ? [`  the server keeps running at ${server.url} (its log follows; Ctrl+C stops it). Point the example client at it:`, `    ${client} ${server.url}`]
      : ['  start the server, then point the example client at it (in a second terminal):', `    npx 10xgraph api --config ${config}`, `    ${client} http://127.0.0.1:8000`]),
    ...(existsSync(vsix) ? [`  install the extension: code --install-extension ${vsix}`] : []),
    '  the same remote tools in a real browser (geolocation, clipboard, SQLite in the page): npm run example:browser',
    '',
  ].join('\n'),
);
if (serve) {
  // Ctrl+C reaches the server too (one process group): the demo ends once the server has stopped, and
  // takes its temporary database with it, whatever stopped the server.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => server.child.kill('SIGTERM'));
  await server.exited;
  rmSync(dbDir, { recursive: true, force: true });
}
if (failed) process.exit(1);
