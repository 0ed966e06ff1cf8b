/**
 * The quick-start server (examples/quickstart) on loopback, started in this process through
 * the runtime's own `startApiServer`, so the test can stop it, start it again on the same port,
 * and count the requests it receives.
 */
import { join } from 'node:path';
import { startApiServer, type RunningApiServer } from '../../../runtime/src/api/start';

const CONFIG = join(__dirname, '..', '..', '..', 'examples', 'quickstart', '10xgraph.json');

/** The quick-start server, restartable on one port. */
export class QuickstartServer {
  private running: RunningApiServer | undefined;
  private port = 0;
  /** Requests received, over every start. */
  requests: string[] = [];

  /** The base URL (valid once started). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Starts it (on the port it had before, if it ran already). With `token`, every route but
   * `/ping` requires `Authorization: Bearer <token>`.
   */
  async start(options: { token?: string } = {}): Promise<void> {
    if (this.running !== undefined) return;
    const quiet = { info: () => {}, warn: () => {}, error: () => {} };
    this.running = await startApiServer({
      configPath: CONFIG,
      host: '127.0.0.1',
      port: this.port,
      db: ':memory:',
      log: quiet,
      ...(options.token !== undefined ? { token: options.token } : {}),
    });
    this.port = Number(new URL(this.running.url).port);
    this.running.api.server.on('request', (request: { method?: string; url?: string; headers: Record<string, string | string[] | undefined> }) => {
      this.requests.push(`${request.method} ${request.url}${request.headers.authorization !== undefined ? ' (with a token)' : ''}`);
    });
  }

  /** Stops it; `start` brings it back on the same port. */
  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    await running?.close();
  }

  /** The names of the graph's ToolNodes, as `GET /v1/graph` reports them. */
  async toolNodes(): Promise<string[]> {
    const body = (await (await fetch(`${this.url}/v1/graph`)).json()) as { data: { nodes: { name: string; type?: string }[] } };
    return body.data.nodes.filter((node) => node.type === 'tool_node').map((node) => node.name);
  }

  /** The names of every node. */
  async nodeNames(): Promise<string[]> {
    const body = (await (await fetch(`${this.url}/v1/graph`)).json()) as { data: { nodes: { name: string }[] } };
    return body.data.nodes.map((node) => node.name);
  }
}
