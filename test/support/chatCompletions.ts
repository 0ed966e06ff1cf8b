/**
 * A loopback stand-in of an OpenAI-compatible chat-completions API for the model tests: it records
 * each request (path, headers, JSON body) and answers as the test says, with `reply` (a JSON answer
 * and its status) or, for full control of the bytes (a stream), `answer`.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export class ChatCompletionsStandIn {
  readonly requests: Array<{ path: string; headers: IncomingHttpHeaders; body: any }> = [];
  /** The JSON answer to a request (200 unless `status` says). */
  reply: (body: any) => { status?: number; json: unknown } = () => ({ json: {} });
  /** Writes the answer to a request; by default the one `reply` makes. */
  answer: (res: ServerResponse, body: any) => void | Promise<void> = (res, body) => {
    const { status = 200, json } = this.reply(body);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(json));
  };
  /** The API's base URL (`http://127.0.0.1:PORT/v1`), once started. */
  url = '';
  private server!: Server;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        const body = JSON.parse(raw);
        this.requests.push({ path: req.url ?? '', headers: req.headers, body });
        void this.answer(res, body);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
