/**
 * Benchmark of what the security settings cost: the remote-tool round trip (bench/roundTrip.ts)
 * against `10xgraph api` with `"auth": "jwt"`, `"authorization": "ownership"` and a Redis rate
 * limit counted per user, beside the same server and graph without them, in one run, batch by
 * batch in turns: every request then verifies a JWT, checks the thread's owner and runs one
 * script in a real Redis (Debian's `redis-server`, started here on a free loopback port).
 *
 *   node --import tsx bench/security.ts      # prints the Markdown section
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { SignJWT } from 'jose';
import { TestRedis } from '../test/support/redis';
import { compareRoundTrips, describeHarness, LEVELS, msText, ratio, roundTripOf, startServerProcess, type Summary } from './roundTrip';

const QUICKSTART = resolve(__dirname, '..', 'examples', 'quickstart');
const SECRET = 'a-benchmark-secret-that-is-longer-than-32-bytes';

/** Runs the benchmark and returns it as a Markdown section. */
export async function benchSecurity(log: (line: string) => void = () => {}): Promise<string> {
  const redis = await TestRedis.start();
  // The configs sit in a folder of their own beside the quick start, whose graph they import.
  const folder = mkdtempSync(join(__dirname, '.security-'));
  const rows: string[] = [];
  try {
    const config = JSON.parse(readFileSync(join(QUICKSTART, '10xgraph.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(folder, 'graph.ts'), `export { app } from './${relative(folder, join(QUICKSTART, 'graph')).split('\\').join('/')}';\n`);
    writeFileSync(join(folder, 'plain.json'), JSON.stringify({ ...config, agent: 'graph:app' }));
    writeFileSync(
      join(folder, 'secure.json'),
      JSON.stringify({
        ...config,
        agent: 'graph:app',
        auth: 'jwt',
        authorization: 'ownership',
        rate_limit: { requests: 1_000_000_000, window: 60, by: 'user', backend: 'redis', redis: { url: redis.url } },
      }),
    );
    const token = await new SignJWT({ user_id: 'bench' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('2h').sign(new TextEncoder().encode(SECRET));
    const env = { JWT_SECRET_KEY: SECRET, JWT_ALGORITHM: 'HS256' };
    const plainServer = await startServerProcess({ kind: 'api', config: join(folder, 'plain.json'), db: ':memory:' });
    const secureServer = await startServerProcess({ kind: 'api', config: join(folder, 'secure.json'), db: ':memory:', env });
    const plain = roundTripOf(plainServer.url);
    const secure = roundTripOf(secureServer.url, token);
    try {
      for (const { clients, roundTrips } of LEVELS) {
        log(`bench: round trips with jwt + ownership + Redis rate limit, ${clients} clients…`);
        const { subject, floor } = await compareRoundTrips(
          { roundTrip: secure.roundTrip, server: secureServer },
          { roundTrip: plain.roundTrip, server: plainServer },
          clients,
          roundTrips,
        );
        rows.push(row(clients, subject, floor));
      }
    } finally {
      plain.client.close();
      secure.client.close();
      await Promise.all([plainServer.stop(), secureServer.stop()]);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await redis.stop();
  }
  return [
    '## Security: authentication, ownership and a Redis rate limit on the round trip',
    '',
    'The round trip of the runtime section (`TenxGraphClient.invoke("Where am I?")`, the quick-start graph, threads in memory)',
    'against `10xgraph api` with `"auth": "jwt"` (HS256, `jose`), `"authorization": "ownership"` (each run checks the',
    "thread's owner) and `rate_limit` on the `redis` backend counted per user (a limit never reached, so every request runs the",
    'counting script in a real Redis on loopback), beside the same server without those settings: the ratios are what the three',
    'cost together. Both servers run in processes of their own and take turns batch by batch, as in the runtime section.',
    ...describeHarness(availableParallelism()),
    '',
    '| clients | round trips | median | p99 | round trips/s | without: median | without: p99 | without: /s | median ÷ without | server CPU per round trip | without: CPU | CPU ÷ without |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ].join('\n');
}

function row(clients: number, subject: Summary, bare: Summary): string {
  return `| ${clients} | ${subject.count}${subject.errors ? ` (${subject.errors} failed)` : ''} | ${msText(subject.median)} | ${msText(subject.p99)} | ${Math.round(subject.perSecond)} | ${msText(bare.median)} | ${msText(bare.p99)} | ${Math.round(bare.perSecond)} | ${ratio(subject.median / bare.median)} | ${msText(subject.serverCpuPer)} | ${msText(bare.serverCpuPer)} | ${ratio(subject.serverCpuPer / bare.serverCpuPer)} |`;
}

if (require.main === module) {
  benchSecurity((line) => process.stderr.write(`${line}\n`)).then(
    (section) => process.stdout.write(section + '\n'),
    (error: unknown) => {
      process.stderr.write(`bench/security: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
