/**
 * The server process of the round-trip harness (bench/roundTrip.ts): told over IPC what to serve
 * (`10xgraph api` on a store, logging as the CLI does into a sink that drops the text, or the
 * bare floor), it answers with its URL, then with its own `process.cpuUsage()` whenever asked,
 * and closes when told to stop.
 */
import { startApiServer } from '../runtime/src/api';
import { createLogger } from '../runtime/src/api/log';
import { startFloorServer, type ServerSpec } from './roundTrip';

type Request = ServerSpec | { cpu: number } | { stop: true };

let close: (() => Promise<void>) | undefined;

process.on('message', (message: Request) => {
  void answer(message).catch((error: unknown) => {
    process.stderr.write(`bench/serverChild: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
});

async function answer(message: Request): Promise<void> {
  if ('cpu' in message) {
    const usage = process.cpuUsage();
    process.send!({ cpu: { id: message.cpu, ms: (usage.user + usage.system) / 1000 } });
  } else if ('stop' in message) {
    await close?.();
    process.disconnect();
    process.exit(0);
  } else if (message.kind === 'api') {
    Object.assign(process.env, message.env ?? {});
    const discard = { write() {} };
    const api = await startApiServer({ configPath: message.config, host: '127.0.0.1', port: 0, db: message.db, log: createLogger({ out: discard, err: discard }) });
    close = () => api.close();
    process.send!({ url: api.url });
  } else {
    const floor = await startFloorServer(message.exchanges);
    close = () =>
      new Promise((done) => {
        floor.server.close(() => done());
        floor.server.closeAllConnections();
      });
    process.send!({ url: floor.url });
  }
}
