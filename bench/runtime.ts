/**
 * Benchmark of the remote-tool loop over loopback: `TenxGraphClient.invoke` against
 * `10xgraph api` running the quick-start graph (ScriptedModel), side by side with a bare
 * `node:http` server doing the same number of request/response exchanges (the floor).
 *
 *   node --import tsx bench/runtime.ts      # after `npm run build`; prints the Markdown section
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startApiServer } from '../runtime/src/api';
import { Message, TenxGraphClient, type FetchLike } from '../client-sdk/src';

/** Concurrent clients and the round trips measured at each level (after a warm-up). */
const LEVELS: Array<{ clients: number; roundTrips: number }> = [
  { clients: 1, roundTrips: 500 },
  { clients: 10, roundTrips: 2000 },
  { clients: 100, roundTrips: 4000 },
];
/** Unmeasured round trips before each level, at its concurrency: connections open, code warm. */
const WARMUP = 200;
/** No measurement runs longer than this, so a slow machine still finishes in bounded time. */
const MAX_SECONDS_PER_RUN = 8;

interface Measurement {
  count: number;
  errors: number;
  medianMs: number;
  p99Ms: number;
  perSecond: number;
}

/**
 * Runs the benchmark and returns it as a Markdown section: median and p99 latency and throughput
 * of remote-tool round trips at 1, 10 and 100 concurrent clients, with the bare-HTTP floor and ratios.
 */
export async function benchRuntime(): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-bench-'));
  const silent = { info() {}, warn() {}, error() {} };
  const api = await startApiServer({
    configPath: resolve(__dirname, '..', 'examples', 'quickstart', '10xgraph.json'),
    host: '127.0.0.1',
    port: 0,
    db: join(folder, 'threads.sqlite'),
    log: silent,
  });
  const location = { latitude: 48.8584, longitude: 2.2945, label: 'Champ de Mars' };
  const client = new TenxGraphClient({ baseUrl: api.url }).registerToolHandler('get_user_location', () => location);

  // One round trip: invoke → the run stops on get_user_location → handler → result → the answer.
  const roundTrip = async (): Promise<boolean> => {
    const result = await client.invoke([Message.text_message('Where am I?')]);
    const last = result.messages[result.messages.length - 1];
    return result.status === 'completed' && result.rounds === 1 && last !== undefined && Message.text(last).includes('Champ de Mars');
  };
  // The floor: the same two exchanges with the same bodies (recorded from one real round trip).
  const floor = await startFloorServer(await recordRoundTrip(api.url, (recorder) => recorder.invoke([Message.text_message('Where am I?')])));
  const floorTrip = floor.roundTrip;

  const rows: string[] = [];
  try {
    for (const { clients, roundTrips } of LEVELS) {
      await measure(roundTrip, clients, Math.max(WARMUP, clients * 2));
      await measure(floorTrip, clients, Math.max(WARMUP, clients * 2));
      const runtime = await measure(roundTrip, clients, roundTrips);
      const bare = await measure(floorTrip, clients, roundTrips);
      rows.push(
        `| ${clients} | ${runtime.count}${runtime.errors ? ` (${runtime.errors} failed)` : ''} | ${ms(runtime.medianMs)} | ${ms(runtime.p99Ms)} | ${rate(runtime.perSecond)} | ${ms(bare.medianMs)} | ${ms(bare.p99Ms)} | ${rate(bare.perSecond)} | ${ratio(runtime.medianMs / bare.medianMs)} | ${ratio(runtime.p99Ms / bare.p99Ms)} | ${ratio(bare.perSecond / runtime.perSecond)} |`,
      );
    }
  } finally {
    client.close();
    await api.close();
    await new Promise((done) => floor.server.close(done));
    rmSync(folder, { recursive: true, force: true });
  }

  return [
    '## Runtime: remote-tool round trips over loopback',
    '',
    'One round trip is `TenxGraphClient.invoke("Where am I?")` against `10xgraph api` serving the quick-start graph',
    '(ScriptedModel, threads in SQLite in a temporary file): the run stops on the `get_user_location` remote call, the',
    'client runs its handler and sends the result on the same thread, and the model answers: two HTTP exchanges and',
    'two graph runs on a new thread. The floor is the same two exchanges, with the request and answer bodies of a recorded',
    'round trip, against a bare `node:http` server that parses the JSON body and answers the JSON envelope, on the same keep-alive fetch, in the same run. Client and',
    `servers share one Node ${process.version} process on ${availableParallelism()} cores; at most ${MAX_SECONDS_PER_RUN} s per measurement.`,
    '',
    '| clients | round trips | median | p99 | round trips/s | floor median | floor p99 | floor/s | median ÷ floor | p99 ÷ floor | floor/s ÷ round trips/s |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}

/** Runs `operation` `count` times from `clients` concurrent loops; latencies of successful runs only. */
export async function measure(operation: () => Promise<boolean>, clients: number, count: number): Promise<Measurement> {
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + MAX_SECONDS_PER_RUN * 1000;
  const loop = async () => {
    while (issued < count && performance.now() < deadline) {
      issued++;
      const t0 = performance.now();
      let ok = false;
      try {
        ok = await operation();
      } catch {
        ok = false;
      }
      if (ok) latencies.push(performance.now() - t0);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: clients }, loop));
  const elapsedSeconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    count: latencies.length,
    errors,
    medianMs: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    perSecond: latencies.length / elapsedSeconds,
  };
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** One HTTP exchange of a real round trip: the request body the client sent, the answer's payload. */
export interface RecordedExchange {
  request: string;
  response: { data?: unknown; metadata?: Record<string, unknown> };
}

/**
 * Records the HTTP exchanges of one `invoke` round trip against `baseUrl`, so that the floor
 * can carry the same bodies: a floor that sends and answers a few bytes would flatter itself.
 */
export async function recordRoundTrip(baseUrl: string, trip: (client: TenxGraphClient) => Promise<unknown>): Promise<RecordedExchange[]> {
  const exchanges: RecordedExchange[] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const text = await response.text();
    exchanges.push({ request: String(init?.body ?? ''), response: JSON.parse(text) as RecordedExchange['response'] });
    return new Response(text, { status: response.status, headers: response.headers });
  };
  const client = new TenxGraphClient({ baseUrl, fetch: recording as FetchLike }).registerToolHandler('get_user_location', () => ({
    latitude: 48.8584,
    longitude: 2.2945,
    label: 'Champ de Mars',
  }));
  await trip(client);
  client.close();
  return exchanges;
}

/**
 * A bare request/response server, the floor: reads the body and parses it as JSON, as any JSON
 * API must, and answers the JSON envelope of the exchange its path names (`/0`, `/1`, … of
 * `exchanges`; a small envelope without them) with a fresh request id and timestamp, and the
 * same headers `10xgraph api` sends. No routing, validation, graph or store: that is the floor.
 */
export async function startFloorServer(exchanges: readonly RecordedExchange[] = []): Promise<{ server: Server; url: string; roundTrip: () => Promise<boolean> }> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      const received = text === '' ? undefined : (JSON.parse(text) as unknown);
      const requestId = randomUUID();
      const recorded = exchanges[Number((req.url ?? '/').slice(1))]?.response;
      const metadata = { request_id: requestId, timestamp: new Date().toISOString(), message: String(recorded?.metadata?.message ?? 'ok') };
      const payload = JSON.stringify(recorded ? { data: recorded.data, metadata } : { data: { received: received === undefined ? 0 : text.length }, metadata });
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(payload),
        'cache-control': 'no-store',
        'x-request-id': requestId,
      });
      res.end(payload);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  // The same exchanges in turn on the same fetch (keep-alive), each answer read and parsed as the client does.
  const bodies = exchanges.length ? exchanges.map((exchange) => exchange.request) : [JSON.stringify({ messages: [Message.text_message('Where am I?')] })];
  const roundTrip = async (): Promise<boolean> => {
    for (let i = 0; i < Math.max(2, bodies.length); i++) {
      const response = await fetch(`${url}${i}`, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: bodies[i % bodies.length] });
      const payload = (await response.json()) as { data?: unknown };
      if (!response.ok || payload.data === undefined) return false;
    }
    return true;
  };
  return { server, url, roundTrip };
}

function ms(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${value.toFixed(2)} ms`;
}

function rate(value: number): string {
  return `${Math.round(value)}`;
}

function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(1)}×` : 'n/a';
}

if (require.main === module) {
  benchRuntime().then(
    (section) => process.stdout.write(section + '\n'),
    (error: unknown) => {
      process.stderr.write(`bench/runtime: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
