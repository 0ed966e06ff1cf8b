/**
 * `npm run example:browser`: starts `10xgraph api` with the quick-start graph on
 * http://127.0.0.1:8000 and serves the browser example on a second loopback origin,
 * http://localhost:5173, then prints both. Ctrl+C stops both.
 *
 *   node --import tsx examples/browser/serve.ts [--port 5173] [--api-port 8000]
 *
 * The page script is bundled with esbuild in memory at start-up, and SQLite's WebAssembly is
 * served from node_modules/sql.js: nothing is written, nothing comes from a CDN. With
 * TENXGRAPH_TOKEN set, the server requires the token and allows the page's origin only
 * (`--cors-origin`); paste the token into the page's Token field.
 *
 * The tests and the benchmark use `bundlePage` and `startPageServer` from here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

const HERE = __dirname;
const ROOT = join(HERE, '..', '..');
const CONFIG = join('examples', 'quickstart', '10xgraph.json');

/** One file of the page, in memory. */
interface PageFile {
  type: string;
  body: Buffer;
}

/** The page's files by URL path: index.html, style.css, app.js (+ its map) and SQLite's wasm. */
export type PageFiles = Map<string, PageFile>;

/** Bundles app.ts with esbuild (for browsers, in memory) and gathers the files the page serves. */
export async function bundlePage(): Promise<PageFiles> {
  const result = await esbuild.build({
    entryPoints: [join(HERE, 'app.ts')],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    sourcemap: 'linked',
    outfile: join(HERE, 'app.js'),
    logLevel: 'silent',
  });
  const files: PageFiles = new Map();
  for (const output of result.outputFiles) {
    const name = `/${output.path.slice(HERE.length + 1)}`;
    files.set(name, { type: name.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8', body: Buffer.from(output.contents) });
  }
  const index = readFileSync(join(HERE, 'index.html'));
  files.set('/', { type: 'text/html; charset=utf-8', body: index });
  files.set('/index.html', { type: 'text/html; charset=utf-8', body: index });
  files.set('/style.css', { type: 'text/css; charset=utf-8', body: readFileSync(join(HERE, 'style.css')) });
  const wasm = require.resolve('sql.js/dist/sql-wasm-browser.wasm');
  files.set('/sql-wasm-browser.wasm', { type: 'application/wasm', body: readFileSync(wasm) });
  return files;
}

/** A running static server of the page. */
export interface PageServer {
  /** The page's URL, e.g. http://localhost:5173/. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * The policy of the page itself: its own scripts only (WebAssembly compiled from them allowed),
 * network requests to any http(s)/ws(s) server, since the Server field may name any.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' http: https: ws: wss:; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'";

/**
 * Serves `files` on 127.0.0.1 (`port` 0 picks a free one). `apiUrl` (or its current value) is
 * served as config.json, so the page's Server field starts with the server it was served for. Only GET and HEAD of
 * the page's own files are answered.
 */
export function startPageServer(files: PageFiles, options: { port?: number; apiUrl: string | (() => string); hostname?: string }): Promise<PageServer> {
  const apiUrl = options.apiUrl;
  const config = (): PageFile => ({ type: 'application/json', body: Buffer.from(JSON.stringify({ apiUrl: typeof apiUrl === 'function' ? apiUrl() : apiUrl })) });
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://page').pathname;
    const file = path === '/config.json' ? config() : files.get(path);
    const headers = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'content-security-policy': CONTENT_SECURITY_POLICY };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { ...headers, allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Only GET and HEAD are served here.\n');
      return;
    }
    if (!file) {
      response.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end(`No ${path} here: the example serves /, /app.js, /style.css and /sql-wasm-browser.wasm.\n`);
      return;
    }
    response.writeHead(200, { ...headers, 'content-type': file.type, 'content-length': file.body.length });
    response.end(request.method === 'HEAD' ? undefined : file.body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://${options.hostname ?? 'localhost'}:${port}/`,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

function readPort(args: string[], flag: string, fallback: number): number {
  const index = args.indexOf(flag);
  if (index === -1) return fallback;
  const value = Number(args[index + 1]);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new Error(`${flag} needs a port number between 0 and 65535, not '${args[index + 1] ?? ''}'.`);
  }
  return value;
}

/**
 * Whether `port` on 127.0.0.1 is free, tried before `10xgraph api` starts: its own message about
 * a port in use names its own flag (`--port`), which here is the page's, not the server's.
 */
function portIsFree(port: number): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const probe = createNetServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** Starts `10xgraph api` on the quick start and resolves with its URL once it listens. */
function startApi(port: number, pageOrigin: string): Promise<{ child: ChildProcess; url: string }> {
  const args = [join(ROOT, 'runtime', 'dist', 'cli.js'), 'api', '--config', CONFIG, '--port', String(port), '--db', ':memory:'];
  // With a token only listed origins are allowed; without one any loopback origin is.
  if (process.env.TENXGRAPH_TOKEN) args.push('--cors-origin', pageOrigin);
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    let pending = '';
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        process.stdout.write(`  api | ${line}\n`);
        seen += `${line}\n`;
      }
      const match = /Listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve({ child, url: match[1]! });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', reject);
    // Its output is already on the terminal (the `api |` lines): the error does not print it again.
    child.once('exit', (code) => reject(new Error(`10xgraph api exited (${code}) before listening${seen ? '; its output is above' : ''}.`)));
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const pagePort = readPort(args, '--port', 5173);
  const apiPort = readPort(args, '--api-port', 8000);
  const files = await bundlePage();
  let apiUrl = `http://127.0.0.1:${apiPort}`;
  let page: PageServer;
  try {
    page = await startPageServer(files, { port: pagePort, apiUrl: () => apiUrl });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'EADDRINUSE' ? `port ${pagePort} (for the page) is in use: pass another with --port N.` : (error as Error).message);
  }
  const pageOrigin = new URL(page.url).origin;
  let api: { child: ChildProcess; url: string };
  try {
    if (!(await portIsFree(apiPort))) throw new Error(`port ${apiPort} (for 10xgraph api) is in use: pass another with --api-port N.`);
    api = await startApi(apiPort, pageOrigin);
  } catch (error) {
    await page.close();
    throw error;
  }
  apiUrl = api.url;
  // Ctrl+C: stop the server, then the page server, then exit (0 when asked to stop, 1 when the server died).
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    api.child.kill('SIGTERM');
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  api.child.once('exit', (code) => {
    if (!stopping) process.stderr.write(`example:browser: 10xgraph api stopped (exit ${code}); stopping the page server.\n`);
    void page.close().then(() => process.exit(stopping ? 0 : 1));
  });
  process.stdout.write(
    [
      '',
      `10xgraph api (the quick-start graph): ${api.url}`,
      `Browser example, on a second origin:  ${page.url}   <- open this in a browser`,
      process.env.TENXGRAPH_TOKEN
        ? `The server requires TENXGRAPH_TOKEN: paste it into the page's Token field (only ${pageOrigin} is allowed).`
        : `No token: the server allows any loopback origin.`,
      'Ctrl+C stops both.',
      '',
    ].join('\n'),
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`example:browser: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
