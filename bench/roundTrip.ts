/**
 * The one round-trip harness of the runtime and store sections: a remote-tool round trip
 * (`TenxGraphClient.invoke`) against `10xgraph api` in a server process of its own
 * (bench/serverChild.ts), beside the floor (the same two HTTP exchanges against a bare
 * `node:http` server, also in a process of its own), in interleaved batches, with wall time and
 * the server process's CPU per round trip. Both sections call `compareRoundTrips` and print
 * `ROUND_TRIP_HEADER` rows, so their figures measure the same thing.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Message, TenxGraphClient, type FetchLike } from '../client-sdk/src';

/** Concurrent clients, and the round trips measured at each (split into interleaved batches). */
export const LEVELS = [
  { clients: 1, roundTrips: 600 },
  { clients: 10, roundTrips: 1000 },
  { clients: 100, roundTrips: 2000 },
];
/**
 * Round trips per client in one batch: the server and the floor take turns batch by batch, so a
 * machine whose speed changes from one second to the next (a shared virtual machine) weighs on
 * both alike. Short batches: a slow spell spans many turns of each.
 */
export const TRIPS_PER_CLIENT_PER_BATCH = 5;
/** Whatever the clients, no batch is shorter than this many round trips. */
export const MIN_BATCH = 50;
/** Unmeasured round trips (at least) before each level: connections open, code compiled by the JIT. */
export const WARMUP = 300;

/** One round trip; true when it ended as it should. */
export type Operation = () => Promise<boolean>;

const location = { latitude: 48.8584, longitude: 2.2945, label: 'Champ de Mars' };

/** A client of `baseUrl` (sending `token`, if given) with the quick start's `get_user_location` handler, and its round trip. */
export function roundTripOf(baseUrl: string, token?: string): { client: TenxGraphClient; roundTrip: Operation } {
  const client = new TenxGraphClient({ baseUrl, ...(token === undefined ? {} : { token }) }).registerToolHandler('get_user_location', () => location);
  const roundTrip = async () => {
    const result = await client.invoke([Message.text_message('Where am I?')]);
    const last = result.messages[result.messages.length - 1];
    return result.rounds === 1 && last !== undefined && Message.text(last).includes('Champ de Mars');
  };
  return { client, roundTrip };
}

/** A server in a process of its own: its URL, its CPU time so far, and its end. */
export interface ServerProcess {
  url: string;
  /** The process's user + system CPU time so far, in ms (its `process.cpuUsage()`). */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

/** What bench/serverChild.ts serves: `10xgraph api` on a store (with variables set in its environment), or the floor with recorded exchanges. */
export type ServerSpec = { kind: 'api'; config: string; db: string; env?: Record<string, string> } | { kind: 'floor'; exchanges: RecordedExchange[] };

/** Starts bench/serverChild.ts serving `spec`; resolves once it listens. */
export async function startServerProcess(spec: ServerSpec): Promise<ServerProcess> {
  const child: ChildProcess = fork(join(__dirname, 'serverChild.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, TENXGRAPH_TOKEN: '' },
  });
  const replies = new Map<number, (value: number) => void>();
  let next = 0;
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench/serverChild.ts exited (${code}) before listening`)));
    child.on('message', (message: { url?: string; cpu?: { id: number; ms: number } }) => {
      if (message.url) resolve(message.url);
      if (message.cpu) replies.get(message.cpu.id)?.(message.cpu.ms);
    });
    child.send(spec);
  });
  child.removeAllListeners('exit');
  return {
    url,
    cpuMs: () =>
      new Promise<number>((resolve) => {
        const id = next++;
        replies.set(id, (ms) => {
          replies.delete(id);
          resolve(ms);
        });
        child.send({ cpu: id });
      }),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.send({ stop: true });
      await exited;
    },
  };
}

/** One batch: the latencies of the round trips that succeeded, the failures, wall time and the server's CPU time. */
interface Batch {
  latencies: number[];
  errors: number;
  seconds: number;
  serverCpuMs: number;
}

/** Runs `count` operations from `clients` loops, reading the server process's CPU time before and after. */
export async function runBatch(operation: Operation, server: ServerProcess | undefined, clients: number, count: number): Promise<Batch> {
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  const cpuBefore = server ? await server.cpuMs() : Number.NaN;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (issued < count) {
        issued++;
        const t0 = performance.now();
        const ok = await operation().catch(() => false);
        if (ok) latencies.push(performance.now() - t0);
        else errors++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = server ? await server.cpuMs() : Number.NaN;
  return { latencies, errors, seconds, serverCpuMs: cpuAfter - cpuBefore };
}

/** The figures of a set of batches. */
export interface Summary {
  count: number;
  errors: number;
  median: number;
  p99: number;
  perSecond: number;
  /** CPU time of the server process per successful round trip, in ms. */
  serverCpuPer: number;
}

/** Sums batches into their figures. */
export function summarise(batches: readonly Batch[]): Summary {
  const all = batches.flatMap((batch) => batch.latencies).sort((a, b) => a - b);
  const seconds = batches.reduce((sum, batch) => sum + batch.seconds, 0);
  const at = (p: number) => (all.length ? all[Math.min(all.length - 1, Math.max(0, Math.ceil(p * all.length) - 1))]! : Number.NaN);
  return {
    count: all.length,
    errors: batches.reduce((sum, batch) => sum + batch.errors, 0),
    median: at(0.5),
    p99: at(0.99),
    perSecond: all.length / seconds,
    serverCpuPer: batches.reduce((sum, batch) => sum + batch.serverCpuMs, 0) / all.length,
  };
}

/** A subject and the floor, each a round trip against a server process. */
export interface Contender {
  roundTrip: Operation;
  server: ServerProcess;
}

/** The subject's round trips and the floor's at one level, batch by batch in turns, after a warm-up of each. */
export async function compareRoundTrips(subject: Contender, floor: Contender, clients: number, roundTrips: number): Promise<{ subject: Summary; floor: Summary }> {
  const per = Math.max(MIN_BATCH, clients * TRIPS_PER_CLIENT_PER_BATCH);
  const batches = Math.max(2, Math.round(roundTrips / per));
  await runBatch(subject.roundTrip, undefined, clients, Math.max(WARMUP, clients * 2));
  await runBatch(floor.roundTrip, undefined, clients, Math.max(WARMUP, clients * 2));
  const subjectBatches: Batch[] = [];
  const floorBatches: Batch[] = [];
  for (let i = 0; i < batches; i++) {
    subjectBatches.push(await runBatch(subject.roundTrip, subject.server, clients, per));
    floorBatches.push(await runBatch(floor.roundTrip, floor.server, clients, per));
  }
  return { subject: summarise(subjectBatches), floor: summarise(floorBatches) };
}

/**
 * Measures `10xgraph api` on each store against the floor at every level, and returns the table
 * rows (`ROUND_TRIP_HEADER`), the floor carrying the bodies of a real round trip.
 */
export async function measureStores(config: string, stores: ReadonlyArray<readonly [name: string, db: string]>, log: (line: string) => void): Promise<string[]> {
  const recorder = await startServerProcess({ kind: 'api', config, db: ':memory:' });
  const exchanges = await recordRoundTrip(recorder.url, (client) => client.invoke([Message.text_message('Where am I?')])).finally(() => recorder.stop());
  const floorServer = await startServerProcess({ kind: 'floor', exchanges });
  const floor: Contender = { roundTrip: floorRoundTrip(floorServer.url, exchanges), server: floorServer };
  const rows: string[] = [];
  try {
    for (const [name, db] of stores) {
      const server = await startServerProcess({ kind: 'api', config, db });
      const { client, roundTrip } = roundTripOf(server.url);
      try {
        for (const { clients, roundTrips } of LEVELS) {
          log(`bench: round trips, threads in ${name}, ${clients} clients…`);
          const { subject, floor: bare } = await compareRoundTrips({ roundTrip, server }, floor, clients, roundTrips);
          rows.push(roundTripRow(name, clients, subject, bare));
        }
      } finally {
        client.close();
        await server.stop();
      }
    }
  } finally {
    await floorServer.stop();
  }
  return rows;
}

/** The table the runtime and store sections print. */
export const ROUND_TRIP_HEADER = [
  '| threads in | clients | round trips | median | p99 | round trips/s | floor median | floor p99 | floor/s | median ÷ floor | floor/s ÷ round trips/s | server CPU per round trip | floor server CPU | CPU ÷ floor |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];

/** What every section says of the harness, after its own first sentences. */
export function describeHarness(cores: number): string[] {
  return [
    'The floor is the same two exchanges, with the bodies of a recorded round trip, on the same keep-alive fetch, against a bare',
    '`node:http` server that parses each JSON body and answers its JSON envelope. Server and floor each run in a Node process of',
    `their own (bench/serverChild.ts), the clients in the benchmark's process; server CPU is the server process's own`,
    '`process.cpuUsage()` (user + system) over the measured batches, divided by the round trips: the client is not in it, nor are',
    `PostgreSQL's processes. Server and floor take turns in batches of ${TRIPS_PER_CLIENT_PER_BATCH} round trips per client (at least ${MIN_BATCH}), after ${WARMUP} unmeasured`,
    `round trips of each, so a machine whose speed changes from one second to the next weighs on both alike; Node ${process.version} on ${cores} cores.`,
  ];
}

function roundTripRow(name: string, clients: number, subject: Summary, bare: Summary): string {
  return `| ${name} | ${clients} | ${subject.count}${subject.errors ? ` (${subject.errors} failed)` : ''} | ${msText(subject.median)} | ${msText(subject.p99)} | ${Math.round(subject.perSecond)} | ${msText(bare.median)} | ${msText(bare.p99)} | ${Math.round(bare.perSecond)} | ${ratio(subject.median / bare.median)} | ${ratio(bare.perSecond / subject.perSecond)} | ${msText(subject.serverCpuPer)} | ${msText(bare.serverCpuPer)} | ${ratio(subject.serverCpuPer / bare.serverCpuPer)} |`;
}

/** A duration as the tables show it. */
export const msText = (value: number) => (Number.isNaN(value) ? 'n/a' : `${value.toFixed(2)} ms`);
/** A ratio as the tables show it. */
export const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a');

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
  const client = new TenxGraphClient({ baseUrl, fetch: recording as FetchLike }).registerToolHandler('get_user_location', () => location);
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
export async function startFloorServer(exchanges: readonly RecordedExchange[] = []): Promise<{ server: Server; url: string; roundTrip: Operation }> {
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
  return { server, url, roundTrip: floorRoundTrip(url, exchanges) };
}

/** The floor's round trip: the same exchanges in turn on the same fetch (keep-alive), each answer read and parsed as the client does. */
export function floorRoundTrip(url: string, exchanges: readonly RecordedExchange[]): Operation {
  const base = url.endsWith('/') ? url : `${url}/`;
  const bodies = exchanges.length ? exchanges.map((exchange) => exchange.request) : [JSON.stringify({ messages: [Message.text_message('Where am I?')] })];
  return async () => {
    for (let i = 0; i < Math.max(2, bodies.length); i++) {
      const response = await fetch(`${base}${i}`, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: bodies[i % bodies.length] });
      const payload = (await response.json()) as { data?: unknown };
      if (!response.ok || payload.data === undefined) return false;
    }
    return true;
  };
}
