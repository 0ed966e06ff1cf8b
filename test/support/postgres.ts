/**
 * A throw-away PostgreSQL cluster for the tests: `initdb` into a temporary folder, `pg_ctl`
 * on a free loopback port (and a socket in the same folder), a database and a user with a
 * password. PostgreSQL refuses to run as root, so as root the cluster runs as `postgres`.
 * `stop()` stops the server and removes the folder.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The user and database every test cluster has. */
export const PG_USER = 'tenx';
export const PG_PASSWORD = 'tenx-secret';
export const PG_DATABASE = 'threads';

/** Finds PostgreSQL's programs: on PATH, else in Debian's versioned folder. */
function binary(name: string): string {
  const onPath = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return onPath;
  for (const version of ['17', '16', '15', '14', '13']) {
    const candidate = `/usr/lib/postgresql/${version}/bin/${name}`;
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} not found: install PostgreSQL (Debian: apt-get install postgresql); .ci/run does it.`);
}

/** A free loopback port (the kernel's pick; closed again before PostgreSQL takes it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A running test cluster. */
export class TestPostgres {
  private constructor(
    readonly folder: string,
    private chosenPort: number,
  ) {}

  /** The loopback port the server listens on. */
  get port(): number {
    return this.chosenPort;
  }

  /** The URL of the test database, password included. */
  get url(): string {
    return `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${this.port}/${PG_DATABASE}`;
  }

  /** The same URL with another password. */
  urlWithPassword(password: string): string {
    return `postgres://${PG_USER}:${encodeURIComponent(password)}@127.0.0.1:${this.port}/${PG_DATABASE}`;
  }

  private get data(): string {
    return join(this.folder, 'data');
  }

  /** Creates a cluster in a new temporary folder, starts it and creates the user and database. */
  static async start(): Promise<TestPostgres> {
    const folder = mkdtempSync(join(tmpdir(), '10xgraph-pg-'));
    chmodSync(folder, 0o755);
    const cluster = new TestPostgres(folder, await freePort());
    try {
      if (process.getuid?.() === 0) {
        const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
        const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
        chownSync(folder, uid, gid);
      }
      cluster.run('initdb', ['-D', cluster.data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '--no-sync', '-E', 'UTF8']);
      // The port was free when picked, not necessarily when the server binds it: another process
      // may take it in between, and then another free port is picked.
      for (let attempt = 1; ; attempt++) {
        try {
          cluster.startServer();
          break;
        } catch (error) {
          if (attempt === 5 || !/Address already in use|could not bind/i.test(String(error))) throw error;
          cluster.chosenPort = await freePort();
        }
      }
      const admin = new pg.Client({ host: folder, port: cluster.port, user: 'postgres', database: 'postgres' });
      await admin.connect();
      try {
        await admin.query(`CREATE ROLE ${PG_USER} LOGIN PASSWORD '${PG_PASSWORD}'`);
        await admin.query(`CREATE DATABASE ${PG_DATABASE} OWNER ${PG_USER}`);
      } finally {
        await admin.end();
      }
      return cluster;
    } catch (error) {
      cluster.stopServer();
      rmSync(folder, { recursive: true, force: true });
      throw error;
    }
  }

  /** Starts the server (again) on the same port and waits until it accepts connections. */
  startServer(): void {
    this.run('pg_ctl', [
      '-D',
      this.data,
      '-l',
      join(this.folder, 'server.log'),
      '-w',
      '-t',
      '30',
      '-o',
      `-k ${this.folder} -h 127.0.0.1 -p ${this.port} -c fsync=off -c max_connections=200`,
      'start',
    ]);
  }

  /** Stops the server (fast: open sessions are ended), keeping the data. */
  stopServer(): void {
    if (!existsSync(join(this.data, 'postmaster.pid'))) return;
    this.run('pg_ctl', ['-D', this.data, '-m', 'fast', '-w', '-t', '30', 'stop']);
  }

  /** Runs SQL in the test database as its owner, through the socket; resolves to the rows. */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ host: this.folder, port: this.port, user: 'postgres', database: PG_DATABASE });
    await client.connect();
    try {
      return (await client.query<R>(sql, values)).rows;
    } finally {
      await client.end();
    }
  }

  /** Drops everything 10xgraph made in the test database, so the next test starts empty. */
  async reset(): Promise<void> {
    await this.query('DROP TABLE IF EXISTS tenxgraph_messages, tenxgraph_threads, tenxgraph_schema');
  }

  /** Stops the server and removes the folder. */
  stop(): void {
    try {
      this.stopServer();
    } finally {
      rmSync(this.folder, { recursive: true, force: true });
    }
  }

  private run(name: string, args: string[]): void {
    const program = binary(name);
    const asRoot = process.getuid?.() === 0;
    const result = asRoot ? spawnSync('runuser', ['-u', 'postgres', '--', program, ...args], { encoding: 'utf8' }) : spawnSync(program, args, { encoding: 'utf8' });
    if (result.status !== 0) {
      const log = existsSync(join(this.folder, 'server.log')) ? spawnSync('tail', ['-n', '20', join(this.folder, 'server.log')], { encoding: 'utf8' }).stdout : '';
      throw new Error(`${name} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}${log}`);
    }
  }
}
