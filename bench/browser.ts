/**
 * Benchmark of a remote-tool round trip driven from a real browser page: the browser example
 * (examples/browser) in Debian's Chromium, its own client and its own `get_user_location` handler
 * (the real Geolocation API, position emulated by the browser context), against the same round
 * trip from Node (`TenxGraphClient` with a handler returning a fixed position), both against one
 * `10xgraph api` on the quick start, in the same run, through `invoke`, the HTTP stream and the
 * WebSocket.
 *
 *   node --import tsx bench/browser.ts      # after `npm run build`; prints the Markdown section
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';
import WebSocket from 'ws';
import { startApiServer } from '../runtime/src/api';
import { Message, TenxGraphClient } from '../client-sdk/src';
import { bundlePage, startPageServer } from '../examples/browser/serve';
import { CHROMIUM_ARGS } from '../test/support/chromiumFlags';

const CHROMIUM = process.env.TENXGRAPH_CHROMIUM ?? '/usr/bin/chromium';
const LOCATION = { latitude: 59.3293, longitude: 18.0686, accuracy: 12 };
const PROMPT = 'Where am I?';
const TRANSPORTS = ['invoke', 'http', 'ws'] as const;
type Transport = (typeof TRANSPORTS)[number];
/** Round trips per block; blocks of the browser and of Node alternate, so drift hits both alike. */
const BLOCK = 100;
const BLOCKS = 3;
const WARMUP = 30;
/** What the model's final answer must hold: the handler's latitude. */
const EXPECT = String(LOCATION.latitude);

interface Block {
  times: number[];
  failures: number;
}

/**
 * Round trips run inside the page, timed with the page's own clock, so no Playwright traffic
 * sits inside a measurement. Plain JavaScript in a string: it runs as the page's code.
 */
const PAGE_ROUND_TRIPS = `async ({ count, transport, prompt, expect }) => {
  const example = window.tenxgraphExample;
  const client = example.createClient();
  const times = [];
  let failures = 0;
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      let text = '';
      try {
        if (transport === 'invoke') {
          const result = await client.invoke([example.Message.text_message(prompt)]);
          const last = result.messages[result.messages.length - 1];
          text = last ? example.Message.text(last) : '';
        } else {
          for await (const chunk of client.stream([example.Message.text_message(prompt)], { transport })) {
            if (chunk.event === 'message' && chunk.data.role === 'assistant') text = example.Message.text(chunk.data);
          }
        }
      } catch {
        text = '';
      }
      if (text.includes(expect)) times.push(performance.now() - started);
      else failures++;
    }
  } finally {
    client.close();
  }
  return { times, failures };
}`;

/** The page's geolocation call alone (what the page's handler waits for), timed in the page. */
const PAGE_GEOLOCATION = `async ({ count }) => {
  const times = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await new Promise((resolve, reject) => navigator.geolocation.getCurrentPosition(resolve, reject, { timeout: 10000, maximumAge: 60000 }));
    times.push(performance.now() - started);
  }
  return { times, failures: 0 };
}`;

/**
 * Runs the benchmark and returns it as a Markdown section: median and p95 of one round trip from
 * the browser page and from Node, per transport, and their ratio. Without Chromium the section
 * says so and how to install it.
 */
export async function benchBrowser(log: (line: string) => void = () => undefined): Promise<string> {
  const title = '## Browser: a remote-tool round trip from a real browser page';
  if (!existsSync(CHROMIUM)) {
    return `${title}\n\nNot measured: Debian's Chromium is not installed (no ${CHROMIUM}); \`npm run setup:e2e\` installs it.\n`;
  }
  const silent = { info() {}, warn() {}, error() {} };
  const api = await startApiServer({ configPath: resolve(__dirname, '..', 'examples', 'quickstart', '10xgraph.json'), host: '127.0.0.1', port: 0, db: ':memory:', log: silent });
  const pages = await startPageServer(await bundlePage(), { apiUrl: api.url });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const expect = EXPECT;
  const nodeClient = startNodeClient(api.url);
  const nodeRoundTrips = (count: number, transport: Transport): Promise<Block> => nodeClient.run(count, transport);
  const rows: string[] = [];
  let version = '';
  let geolocationLine = '';
  try {
    version = browser.version();
    const context = await browser.newContext({ geolocation: LOCATION, permissions: ['geolocation'] });
    const page = await context.newPage();
    await page.goto(pages.url);
    await page.locator('#server-status[data-state="connected"]').waitFor({ timeout: 30_000 });
    const inPage = async (count: number, transport: Transport): Promise<Block> =>
      page.evaluate(`(${PAGE_ROUND_TRIPS})(${JSON.stringify({ count, transport, prompt: PROMPT, expect })})`) as Promise<Block>;
    for (const transport of TRANSPORTS) {
      log(`bench: browser ${transport}…`);
      await inPage(WARMUP, transport);
      await nodeRoundTrips(WARMUP, transport);
      const fromPage: Block = { times: [], failures: 0 };
      const fromNode: Block = { times: [], failures: 0 };
      for (let block = 0; block < BLOCKS; block++) {
        for (const [into, run] of [
          [fromPage, inPage],
          [fromNode, nodeRoundTrips],
        ] as const) {
          const result = await run(BLOCK, transport);
          into.times.push(...result.times);
          into.failures += result.failures;
        }
      }
      const b = summarise(fromPage);
      const n = summarise(fromNode);
      rows.push(
        `| ${LABELS[transport]} | ${b.count}${b.failures ? ` (${b.failures} failed)` : ''} | ${ms(b.median)} | ${ms(b.p95)} | ${ms(n.median)} | ${ms(n.p95)} | ${ratio(b.median / n.median)} | ${ratio(b.p95 / n.p95)} |`,
      );
    }
    const geolocation = summarise((await page.evaluate(`(${PAGE_GEOLOCATION})(${JSON.stringify({ count: BLOCK })})`)) as Block);
    geolocationLine = `Of a browser round trip, the handler's \`getCurrentPosition\` alone (a position up to 60 s old is accepted, as in the handler) takes a median of ${ms(geolocation.median)} (p95 ${ms(geolocation.p95)}, ${geolocation.count} calls in the page).`;
    await context.close();
  } finally {
    nodeClient.close();
    await browser.close();
    await pages.close();
    await api.close();
  }
  return [
    title,
    '',
    'One round trip: the prompt "Where am I?" to `10xgraph api` on the quick-start graph (ScriptedModel, threads in',
    'memory); the run stops on the `get_user_location` remote call, the client runs its handler and sends the result',
    'on the same thread, and the model answers with it. **Browser**: the browser example page (examples/browser) in',
    `Chromium ${version} (headless), on another loopback origin than the server (CORS), its own client and its own`,
    'handler calling `navigator.geolocation.getCurrentPosition` (position emulated by the browser context), timed',
    'inside the page with `performance.now()`. **Node**: `TenxGraphClient` in its own Node process (as the browser is),',
    `with \`ws\` and a handler returning a fixed position. One server for both, in the benchmark's Node ${process.version} process on`,
    `${availableParallelism()} cores; blocks of ${BLOCK} sequential round trips alternate between the browser and Node, ${BLOCKS} each, after ${WARMUP} unmeasured.`,
    '',
    '| transport | round trips | browser median | browser p95 | Node median | Node p95 | browser ÷ Node (median) | browser ÷ Node (p95) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    geolocationLine,
    '',
  ].join('\n');
}

/**
 * The Node side runs in its own process, as the browser does, so neither client shares an event
 * loop with the server. It is this file in `--node-client URL` mode, driven by JSON lines.
 */
function startNodeClient(url: string): { run(count: number, transport: Transport): Promise<Block>; close(): void } {
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--node-client', url], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const waiting: Array<(block: Block) => void> = [];
  lines.on('line', (line) => waiting.shift()?.(JSON.parse(line) as Block));
  return {
    run(count, transport) {
      return new Promise<Block>((resolve, reject) => {
        if (child.exitCode !== null) return reject(new Error(`the Node client exited (${child.exitCode})`));
        waiting.push(resolve);
        child.stdin!.write(`${JSON.stringify({ count, transport })}\n`);
      });
    },
    close() {
      child.stdin!.end();
    },
  };
}

/** The `--node-client URL` mode: runs the round trips each stdin line asks for and answers each with one JSON line. */
async function serveNodeClient(url: string): Promise<void> {
  const node = new TenxGraphClient({ baseUrl: url, WebSocket }).registerToolHandler('get_user_location', () => ({
    latitude: LOCATION.latitude,
    longitude: LOCATION.longitude,
    accuracy_m: LOCATION.accuracy,
  }));
  try {
    for await (const line of createInterface({ input: process.stdin })) {
      const { count, transport } = JSON.parse(line) as { count: number; transport: Transport };
      const times: number[] = [];
      let failures = 0;
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        let text = '';
        try {
          if (transport === 'invoke') {
            const result = await node.invoke([Message.text_message(PROMPT)]);
            const last = result.messages[result.messages.length - 1];
            text = last ? Message.text(last) : '';
          } else {
            for await (const chunk of node.stream([Message.text_message(PROMPT)], { transport })) {
              if (chunk.event === 'message' && chunk.message?.role === 'assistant' && chunk.message.delta !== true) text = Message.text(chunk.message);
            }
          }
        } catch {
          text = '';
        }
        if (text.includes(EXPECT)) times.push(performance.now() - started);
        else failures++;
      }
      process.stdout.write(`${JSON.stringify({ times, failures })}\n`);
    }
  } finally {
    node.close();
  }
}

const LABELS: Record<Transport, string> = { invoke: '`invoke` (2 HTTP requests)', http: 'stream over HTTP (NDJSON)', ws: 'stream over the WebSocket' };

function summarise(block: Block): { count: number; failures: number; median: number; p95: number } {
  const sorted = [...block.times].sort((a, b) => a - b);
  return { count: sorted.length, failures: block.failures, median: percentile(sorted, 0.5), p95: percentile(sorted, 0.95) };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function ms(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${value.toFixed(2)} ms`;
}

function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a';
}

if (require.main === module && process.argv[2] === '--node-client') {
  void serveNodeClient(process.argv[3]!);
} else if (require.main === module) {
  benchBrowser((line) => process.stderr.write(`${line}\n`)).then(
    (section) => process.stdout.write(section + '\n'),
    (error: unknown) => {
      process.stderr.write(`bench/browser: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
