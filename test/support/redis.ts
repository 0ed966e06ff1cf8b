/**
 * A throw-away Redis for the tests: Debian's `redis-server` on a free loopback port, its working
 * folder a temporary one, nothing saved to disk. `stopServer()` and `startServer()` take it down
 * and bring it back on the same port (an outage); `stop()` stops it and removes the folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poll } from './poll';
import { freePort } from './postgres';

/** Where Debian installs the server. */
const REDIS_SERVER = '/usr/bin/redis-server';

/** The last output kept of a server, for the message when it does not start. */
const KEPT_OUTPUT = 4000;

/** The servers running, killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A running test Redis. */
export class TestRedis {
  private child: ChildProcess | undefined;
  private output = '';

  private constructor(
    readonly folder: string,
    private chosenPort: number,
  ) {}

  /** The loopback port the server listens on, the same across restarts. */
  get port(): number {
    return this.chosenPort;
  }

  /** The URL of the server's database 0. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** Starts a server in a new temporary folder and waits until it answers PING. */
  static async start(): Promise<TestRedis> {
    if (!existsSync(REDIS_SERVER)) {
      throw new Error(`${REDIS_SERVER} not found: install Redis (Debian: apt-get install redis-server); .ci/run does it.`);
    }
    const redis = new TestRedis(mkdtempSync(join(tmpdir(), '10xgraph-redis-')), await freePort());
    try {
      // The port was free when picked, not necessarily when the server binds it: then another is picked.
      for (let attempt = 1; ; attempt++) {
        try {
          await redis.startServer();
          break;
        } catch (error) {
          if (attempt === 5 || !/Address already in use/i.test(String(error))) throw error;
          redis.chosenPort = await freePort();
        }
      }
      return redis;
    } catch (error) {
      await redis.stop();
      throw error;
    }
  }

  /** Starts the server (again) on the same port and waits until it answers PING. */
  async startServer(): Promise<void> {
    if (this.child) return;
    this.output = '';
    const child = spawn(REDIS_SERVER, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.folder], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-KEPT_OUTPUT);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    let exited = false;
    running.add(child);
    child.once('exit', () => {
      exited = true;
      running.delete(child);
      if (this.child === child) this.child = undefined;
    });
    try {
      await poll(`redis-server to answer PING on port ${this.port}`, async () => {
        if (exited) throw new Error(`redis-server exited: ${this.output}`);
        return await ping(this.port);
      });
    } catch (error) {
      await this.stopServer();
      throw new Error(`redis-server did not start on port ${this.port}: ${error instanceof Error ? error.message : String(error)}\n${this.output}`, { cause: error });
    }
  }

  /** Stops the server (at once, as a crash would) and waits until it has exited. */
  async stopServer(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGKILL');
      await exited;
    }
    this.child = undefined;
  }

  /** Stops the server and removes the folder. */
  async stop(): Promise<void> {
    try {
      await this.stopServer();
    } finally {
      rmSync(this.folder, { recursive: true, force: true });
    }
  }
}

/** Whether a Redis answers PING on a loopback port. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) finish(answer.startsWith('+PONG'));
    });
  });
}
