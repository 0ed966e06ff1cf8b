/**
 * The real `10xgraph api` (node dist/cli.js api) on the quick start, in its own process on a free
 * loopback port, with everything it prints captured so a test can read its log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { poll, within } from '../../support/poll';
import { CLI, ROOT } from '../../support/run';

const CONFIG = join(ROOT, 'examples', 'quickstart', '10xgraph.json');

/** How to start it. */
export interface ApiProcessOptions {
  /** TENXGRAPH_TOKEN of the server. */
  token?: string;
  /** `--cors-origin` flags. */
  corsOrigins?: string[];
  /** More arguments, e.g. `--log-level debug`. */
  args?: string[];
}

/** A running `10xgraph api`. */
export class ApiProcess {
  /** stdout and stderr, interleaved as they came. */
  output = '';
  url = '';
  private exited: Promise<void>;
  private running = true;

  private constructor(private readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8').on('data', (text: string) => (this.output += text));
    child.stderr!.setEncoding('utf8').on('data', (text: string) => (this.output += text));
    this.exited = new Promise((resolve) =>
      child.once('exit', () => {
        this.running = false;
        resolve();
      }),
    );
  }

  /** Starts it and resolves once it says where it listens. */
  static async start(options: ApiProcessOptions = {}): Promise<ApiProcess> {
    const env: NodeJS.ProcessEnv = {};
    // Only what the test sets: a token or origin list from the surrounding shell would change the verdicts.
    for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('TENXGRAPH_')) env[key] = value;
    if (options.token !== undefined) env.TENXGRAPH_TOKEN = options.token;
    const args = [CLI, 'api', '--config', CONFIG, '--port', '0', '--db', ':memory:'];
    for (const origin of options.corsOrigins ?? []) args.push('--cors-origin', origin);
    args.push(...(options.args ?? []));
    const api = new ApiProcess(spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    try {
      // Either it says where it listens, or it exits (a refused flag, a port in use): fail at once then.
      const EXITED = Symbol('exited');
      const url = await poll('10xgraph api to say where it listens', () => (api.running ? /Listening on (http:\/\/\S+)/.exec(api.output)?.[1] : EXITED), 30_000);
      if (url === EXITED) throw new Error(`10xgraph api exited before listening:\n${api.output}`);
      api.url = url;
    } catch (error) {
      await api.stop();
      throw error;
    }
    return api;
  }

  /** The server's origin, e.g. http://127.0.0.1:41234. */
  get origin(): string {
    return new URL(this.url).origin;
  }

  /** Stops it (SIGTERM, as Ctrl+C or a service manager would) and waits until it has exited. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    if (
      (await within(
        this.exited.then(() => true),
        10_000,
      )) === undefined
    ) {
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }
}
