/**
 * The thread stores under load: remote-tool round trips (`TenxGraphClient.invoke`, as in the
 * runtime section, through the same harness, bench/roundTrip.ts) against `10xgraph api` with threads in SQLite and in PostgreSQL, beside the
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
import { TestPostgres } from '../test/support/postgres';
import { describeHarness, measureStores, msText, ROUND_TRIP_HEADER, roundTripOf, runBatch, summarise } from './roundTrip';

const ROOT = resolve(__dirname, '..');
const CONFIG = join(ROOT, 'examples', 'quickstart', '10xgraph.json');
/** Seconds of load per instance count in the multi-instance measurement. */
const INSTANCE_SECONDS = 6;
/** Concurrent clients spread over the instances. */
const INSTANCE_CLIENTS = 64;

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

/** Runs the benchmark and returns it as a Markdown section. */
export async function benchStore(log: (line: string) => void = () => {}): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-bench-store-'));
  const cluster = await TestPostgres.start();
  const instanceRows: string[] = [];
  let rows: string[] = [];
  try {
    rows = await measureStores(
      CONFIG,
      [
        ['SQLite', join(folder, 'threads.sqlite')],
        ['PostgreSQL', cluster.url],
      ],
      log,
    );

    await cluster.reset();
    for (const count of [1, 2, 4]) {
      log(`bench: store, ${count} instance(s) on one PostgreSQL…`);
      const instances = await Promise.all(Array.from({ length: count }, () => startInstance(cluster.url)));
      try {
        const trips = instances.map((instance) => roundTripOf(instance.url));
        // Warm every instance, then load them all for a fixed time.
        await Promise.all(trips.map((trip) => runBatch(trip.roundTrip, undefined, 4, 100)));
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
        const summary = summarise([{ latencies, errors, seconds: (performance.now() - started) / 1000, serverCpuMs: Number.NaN }]);
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
    cluster.stop();
    rmSync(folder, { recursive: true, force: true });
  }

  return [
    '## Thread stores: SQLite and PostgreSQL',
    '',
    'One round trip is `TenxGraphClient.invoke("Where am I?")` against `10xgraph api` serving the quick-start graph, as in',
    'the runtime section and through the same harness (bench/roundTrip.ts): two HTTP exchanges, two graph runs, two commits,',
    'with threads in SQLite in a temporary file or in PostgreSQL (a local cluster started for the run, fsync off); the server',
    'logs as `10xgraph api` does, into a sink that drops the text.',
    ...describeHarness(availableParallelism()),
    'Targets: SQLite at most 1.5× the floor at 1 client, PostgreSQL at most 3×.',
    '',
    ...ROUND_TRIP_HEADER,
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
