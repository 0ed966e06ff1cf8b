/**
 * `10xgraph api` as a real process (the built `runtime/dist/cli.js`) for the network hardening tests:
 * started on loopback, restarted on the same port after a SIGKILL, its stdout and stderr kept
 * so a test can wait for a line instead of sleeping.
 */
import { poll } from '../../support/poll';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

/** The repository's root folder. */
export const ROOT = resolve(__dirname, '..', '..', '..');
/** The CLI bundle under test. */
export const CLI = join(ROOT, 'runtime', 'dist', 'cli.js');
/** The config of the fault-injection agent (a scripted model calling the remote tool `lookup`). */
export const FAULT_AGENT_CONFIG = join(__dirname, 'faultAgent', '10xgraph.json');

/** How to start the server. */
export interface ApiProcessOptions {
  config: string;
  db: string;
  /** 0 (the default) picks a free port on the first start; restarts reuse the port. */
  port?: number;
  env?: NodeJS.ProcessEnv;
  /** More command-line arguments (e.g. `--thread-lease 2`). */
  args?: string[];
}

/** Polls `probe` every `everyMs` until it returns something other than undefined or false. */
export function pollUntil<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 15_000, everyMs = 1): Promise<T> {
  return poll(what, probe, timeoutMs, everyMs);
}

/** A running (or killed) `10xgraph api` process. */
export class ApiProcess {
  port: number;
  stdout = '';
  stderr = '';
  /** Every stderr text of every life of the process, for the final "nothing failed" checks. */
  allStderr = '';
  starts = 0;
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private readonly waiters = new Set<() => void>();

  constructor(readonly options: ApiProcessOptions) {
    this.port = options.port ?? 0;
  }

  /** The base URL, e.g. `http://127.0.0.1:41234`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The process id of the current life. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Whether the current life is running. */
  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the server and resolves once it logs `Listening on`. */
  async start(): Promise<this> {
    if (this.alive) throw new Error('the server is already running');
    this.stdout = '';
    this.stderr = '';
    const args = [CLI, 'api', '--config', this.options.config, '--host', '127.0.0.1', '--port', String(this.port), '--db', this.options.db, ...(this.options.args ?? [])];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TENXGRAPH_TOKEN: '', ...this.options.env } });
    this.child = child;
    this.starts++;
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      this.stdout += text;
      this.wake();
    });
    child.stderr!.setEncoding('utf8').on('data', (text: string) => {
      this.stderr += text;
      this.allStderr += text;
      this.wake();
    });
    this.exited = new Promise((resolveExit) =>
      child.once('exit', () => {
        this.wake();
        resolveExit();
      }),
    );
    const line = await this.waitForOutput(/Listening on http:\/\/127\.0\.0\.1:(\d+)/, 20_000);
    this.port = Number(line[1]);
    return this;
  }

  /** Resolves with the first match of `pattern` in this life's stdout; rejects if the process exits first. */
  waitForOutput(pattern: RegExp, timeoutMs = 15_000): Promise<RegExpMatchArray> {
    return new Promise((resolveMatch, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no ${pattern} on the server's stdout within ${timeoutMs} ms; stdout: ${this.stdout.slice(-500)} stderr: ${this.stderr.slice(-1500)}`));
      }, timeoutMs);
      const check = () => {
        const match = pattern.exec(this.stdout);
        if (match) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolveMatch(match);
        } else if (!this.alive) {
          clearTimeout(timer);
          this.waiters.delete(check);
          reject(new Error(`the server exited (code ${this.child?.exitCode}, signal ${this.child?.signalCode}) before printing ${pattern}; stderr: ${this.stderr.slice(-1500)}`));
        }
      };
      this.waiters.add(check);
      check();
    });
  }

  private wake(): void {
    for (const check of [...this.waiters]) check();
  }

  /** SIGKILLs the current life and resolves once the process is gone. */
  async kill(): Promise<void> {
    if (!this.child) return;
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Stops the server politely (SIGTERM), falling back to SIGKILL. */
  async stop(): Promise<void> {
    if (!this.child || !this.alive) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }

  /** How the current life ended: exit code and signal (both null while it runs). */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } {
    return { code: this.child?.exitCode ?? null, signal: this.child?.signalCode ?? null };
  }
}
