/**
 * The thread stores under load: remote-tool round trips (`TenxGraphClient.invoke`, as in the
 * runtime section) against `10xgraph api` with threads in SQLite and in PostgreSQL, beside the
 * bare `node:http` floor, at 1, 10 and 100 clients; then the throughput of 1, 2 and 4 `api`
 * processes sharing one PostgreSQL. The cluster is started for the run (initdb and pg_ctl into
 * a temporary folder, as the tests do) and removed after.
 *
 *   node --import tsx bench/store.ts      # after `npm run build`; prints the Markdown section
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startApiServer } from '../runtime/src/api';
import { createLogger } from '../runtime/src/api/log';
import { Message, TenxGraphClient } from '../runtime/src/client';
import { TestPostgres } from '../test/support/postgres';
import { recordRoundTrip, startFloorServer } from './runtime';

const ROOT = resolve(__dirname, '..');
const CONFIG = join(ROOT, 'examples', 'quickstart', '10xgraph.json');
/** Concurrent clients, and the round trips measured at each (split into interleaved batches). */
const LEVELS = [
  { clients: 1, roundTrips: 1200 },
  { clients: 10, roundTrips: 1500 },
  { clients: 100, roundTrips: 3000 },
];
/**
 * Round trips per client in one batch: the store and the floor take turns batch by batch, so a
 * machine whose speed changes from one second to the next (a shared virtual machine) weighs on
 * both alike. Short batches: a slow spell spans many turns of each.
 */
const TRIPS_PER_CLIENT_PER_BATCH = 5;
/** Whatever the clients, no batch is shorter than this many round trips. */
const MIN_BATCH = 50;
/** Unmeasured round trips (at least) before each level: connections open, code compiled by the JIT. */
const WARMUP = 500;
/** Seconds of load per instance count in the multi-instance measurement. */
const INSTANCE_SECONDS = 6;
/** Concurrent clients spread over the instances. */
const INSTANCE_CLIENTS = 64;

type Operation = () => Promise<boolean>;

const location = { latitude: 48.8584, longitude: 2.2945, label: 'Champ de Mars' };

function roundTripOf(baseUrl: string): { client: TenxGraphClient; roundTrip: Operation } {
  const client = new TenxGraphClient({ baseUrl }).registerToolHandler('get_user_location', () => location);
  const roundTrip = async () => {
    const result = await client.invoke([Message.text_message('Where am I?')]);
    const last = result.messages[result.messages.length - 1];
    return result.status === 'completed' && result.rounds === 1 && last !== undefined && Message.text(last).includes('Champ de Mars');
  };
  return { client, roundTrip };
}

/** Runs `count` operations from `clients` loops; the latencies of those that succeeded, and the failures. */
async function run(operation: Operation, clients: number, count: number): Promise<{ latencies: number[]; errors: number; seconds: number; cpuMs: number }> {
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
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
  const used = process.cpuUsage(cpu);
  return { latencies, errors, seconds: (performance.now() - started) / 1000, cpuMs: (used.user + used.system) / 1000 };
}

interface Summary {
  count: number;
  errors: number;
  median: number;
  p99: number;
  perSecond: number;
  /** CPU time of this process (client and server) per successful round trip, in ms. */
  cpuPer: number;
}

function summarise(batches: Array<{ latencies: number[]; errors: number; seconds: number; cpuMs?: number }>): Summary {
  const all = batches.flatMap((batch) => batch.latencies).sort((a, b) => a - b);
  const seconds = batches.reduce((sum, batch) => sum + batch.seconds, 0);
  const at = (p: number) => (all.length ? all[Math.min(all.length - 1, Math.max(0, Math.ceil(p * all.length) - 1))]! : Number.NaN);
  const cpuMs = batches.reduce((sum, batch) => sum + (batch.cpuMs ?? Number.NaN), 0);
  return {
    count: all.length,
    errors: batches.reduce((sum, batch) => sum + batch.errors, 0),
    median: at(0.5),
    p99: at(0.99),
    perSecond: all.length / seconds,
    cpuPer: cpuMs / all.length,
  };
}

/** The store's round trips and the floor's, batch by batch in turns. */
async function compare(store: Operation, floor: Operation, clients: number, roundTrips: number): Promise<{ store: Summary; floor: Summary }> {
  const per = Math.max(MIN_BATCH, clients * TRIPS_PER_CLIENT_PER_BATCH);
  const batches = Math.max(2, Math.round(roundTrips / per));
  await run(store, clients, Math.max(WARMUP, clients * 2));
  await run(floor, clients, Math.max(WARMUP, clients * 2));
  const storeBatches = [];
  const floorBatches = [];
  for (let i = 0; i < batches; i++) {
    storeBatches.push(await run(store, clients, per));
    floorBatches.push(await run(floor, clients, per));
  }
  return { store: summarise(storeBatches), floor: summarise(floorBatches) };
}

/** A `10xgraph api` process on `db`; resolves once it listens. */
async function startInstance(db: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(ROOT, 'runtime', 'dist', 'cli.js'), 'api', '--config', CONFIG, '--port', '0', '--db', db], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TENXGRAPH_TOKEN: '' },
  });
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      const match = /Listening on (http:\/\/\S+)/.exec(output);
      if (match) resolveUrl(match[1]!);
    });
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.once('exit', (code) => reject(new Error(`10xgraph api exited (${code}) before listening: ${output.slice(-500)}`)));
  });
  child.removeAllListeners('exit');
  return { child, url };
}

async function stopInstance(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

const msText = (value: number) => (Number.isNaN(value) ? 'n/a' : `${value.toFixed(2)} ms`);
const ratio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a');

/** Runs the benchmark and returns it as a Markdown section. */
export async function benchStore(log: (line: string) => void = () => {}): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-bench-store-'));
  const silent = { info() {}, warn() {}, error() {} };
  const discard = { write() {} };
  // The floor carries the bodies of a real round trip (recorded once against a throw-away server).
  const recorder = await startApiServer({ configPath: CONFIG, host: '127.0.0.1', port: 0, db: ':memory:', log: silent });
  const exchanges = await recordRoundTrip(recorder.url, (client) => client.invoke([Message.text_message('Where am I?')])).finally(() => recorder.close());
  const floor = await startFloorServer(exchanges);
  const cluster = await TestPostgres.start().catch(async (error: unknown) => {
    await new Promise((done) => floor.server.close(done));
    throw error;
  });
  const floorTrip: Operation = floor.roundTrip;
  const rows: string[] = [];
  const instanceRows: string[] = [];
  try {
    for (const [name, db] of [
      ['SQLite', join(folder, 'threads.sqlite')],
      ['PostgreSQL', cluster.url],
    ] as const) {
      // The server logs as `10xgraph api` does (a line per request and per remote call), into a sink that drops the text.
      const api = await startApiServer({ configPath: CONFIG, host: '127.0.0.1', port: 0, db, log: createLogger({ out: discard, err: discard }) });
      const { client, roundTrip } = roundTripOf(api.url);
      try {
        for (const { clients, roundTrips } of LEVELS) {
          log(`bench: store ${name} at ${clients} clients…`);
          const { store, floor: bare } = await compare(roundTrip, floorTrip, clients, roundTrips);
          rows.push(
            `| ${name} | ${clients} | ${store.count}${store.errors ? ` (${store.errors} failed)` : ''} | ${msText(store.median)} | ${msText(store.p99)} | ${Math.round(store.perSecond)} | ${msText(bare.median)} | ${msText(bare.p99)} | ${Math.round(bare.perSecond)} | ${ratio(store.median / bare.median)} | ${ratio(bare.perSecond / store.perSecond)} | ${msText(store.cpuPer)} | ${msText(bare.cpuPer)} | ${ratio(store.cpuPer / bare.cpuPer)} |`,
          );
        }
      } finally {
        client.close();
        await api.close();
      }
    }

    await cluster.reset();
    for (const count of [1, 2, 4]) {
      log(`bench: store, ${count} instance(s) on one PostgreSQL…`);
      const instances = await Promise.all(Array.from({ length: count }, () => startInstance(cluster.url)));
      try {
        const trips = instances.map((instance) => roundTripOf(instance.url));
        // Warm every instance, then load them all for a fixed time.
        await Promise.all(trips.map((trip) => run(trip.roundTrip, 4, 100)));
        const latencies: number[] = [];
        let errors = 0;
        const started = performance.now();
        const deadline = started + INSTANCE_SECONDS * 1000;
        await Promise.all(
          Array.from({ length: INSTANCE_CLIENTS }, async (_, i) => {
            const trip = trips[i % trips.length]!;
            while (performance.now() < deadline) {
              const t0 = performance.now();
              if (await trip.roundTrip().catch(() => false)) latencies.push(performance.now() - t0);
              else errors++;
            }
          }),
        );
        const summary = summarise([{ latencies, errors, seconds: (performance.now() - started) / 1000 }]);
        instanceRows.push(
          `| ${count} | ${INSTANCE_CLIENTS} | ${summary.count}${errors ? ` (${errors} failed)` : ''} | ${Math.round(summary.perSecond)} | ${msText(summary.median)} | ${msText(summary.p99)} |`,
        );
        for (const trip of trips) trip.client.close();
      } finally {
        await Promise.all(instances.map((instance) => stopInstance(instance.child)));
      }
    }
    const [counts] = await cluster.query<{ threads: number; messages: number }>(
      'SELECT (SELECT count(*)::int FROM tenxgraph_threads) AS threads, (SELECT count(*)::int FROM tenxgraph_messages) AS messages',
    );
    instanceRows.push('', `Afterwards the database held ${counts?.threads} threads and ${counts?.messages} messages (5 per completed round trip).`);
  } finally {
    await new Promise((done) => floor.server.close(done));
    cluster.stop();
    rmSync(folder, { recursive: true, force: true });
  }

  return [
    '## Thread stores: SQLite and PostgreSQL',
    '',
    'One round trip is `TenxGraphClient.invoke("Where am I?")` against `10xgraph api` serving the quick-start graph, as in',
    'the runtime section (two HTTP exchanges, two graph runs, two commits), with threads in SQLite in a temporary file or',
    `in PostgreSQL (a local cluster started for the run, fsync off). The floor is the same two exchanges, with the bodies of a`,
    `recorded round trip, on the same keep-alive fetch, against a bare \`node:http\` server that parses each JSON body and answers`,
    `its JSON envelope. CPU is this process's user + system time (client and server; PostgreSQL's own processes are not in it)`,
    `per round trip: unlike wall-clock time it barely moves with the load of other processes. Store and floor take turns in batches of ${TRIPS_PER_CLIENT_PER_BATCH} round trips per client (at least ${MIN_BATCH}), so a`,
    `machine whose speed changes from one second to the next weighs on both alike; client and server share one Node ${process.version} process on ${availableParallelism()} cores.`,
    'Targets: SQLite at most 1.5× the floor at 1 client, PostgreSQL at most 3×.',
    '',
    '| store | clients | round trips | median | p99 | round trips/s | floor median | floor p99 | floor/s | median ÷ floor | floor/s ÷ round trips/s | CPU per round trip | floor CPU | CPU ÷ floor |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `Several \`10xgraph api\` processes (\`runtime/dist/cli.js\`) on one PostgreSQL: ${INSTANCE_CLIENTS} concurrent clients in this process, spread`,
    `round-robin over the instances, for ${INSTANCE_SECONDS} s each. The load generator shares the ${availableParallelism()} cores with the instances.`,
    '',
    '| instances | clients | round trips | round trips/s | median | p99 |',
    '|---:|---:|---:|---:|---:|---:|',
    ...instanceRows,
    '',
  ].join('\n');
}

if (require.main === module) {
  benchStore((line) => process.stderr.write(`${line}\n`)).then(
    (section) => process.stdout.write(section + '\n'),
    (error: unknown) => {
      process.stderr.write(`bench/store: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
