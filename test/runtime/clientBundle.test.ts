// The built `10xgraph-client` bundle is browser-compatible: it loads and runs the remote-tool loop
// in a context that has only what a browser page has (fetch, WebSocket, AbortController,
// TextDecoder, crypto, timers): no require, process or Buffer. Needs `npm run build` first.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import WebSocket from 'ws';
import { startApiServer, type RunningApiServer } from '../../runtime/src/api';
import type * as ClientModule from '../../client-sdk/src';

const root = resolve(__dirname, '..', '..');
let server: RunningApiServer;

before(async () => {
  server = await startApiServer({
    configPath: join(root, 'examples', 'quickstart', '10xgraph.json'),
    host: '127.0.0.1',
    port: 0,
    db: ':memory:',
    log: { info() {}, warn() {}, error() {} },
  });
});

after(async () => {
  await server?.close();
});

/** Loads the CommonJS bundle into a fresh context holding browser globals only. */
function loadInBrowserLikeContext(): typeof ClientModule {
  const code = readFileSync(join(root, 'client-sdk', 'dist', 'index.cjs'), 'utf8');
  const module = { exports: {} as Record<string, unknown> };
  const context = createContext({
    module,
    exports: module.exports,
    fetch,
    WebSocket,
    AbortController,
    AbortSignal,
    TextDecoder,
    TextEncoder,
    URL,
    crypto: globalThis.crypto,
    setTimeout,
    clearTimeout,
    console,
  });
  runInContext(code, context, { filename: 'index.cjs' });
  return module.exports as unknown as typeof ClientModule;
}

describe('10xgraph-client bundle', () => {
  test('the ESM and CommonJS bundles use no Node built-ins', () => {
    for (const file of ['index.mjs', 'index.cjs']) {
      const code = readFileSync(join(root, 'client-sdk', 'dist', file), 'utf8');
      assert.doesNotMatch(code, /\brequire\(|["']node:|\bprocess\.|\bBuffer\b/, file);
    }
    assert.match(readFileSync(join(root, 'client-sdk', 'dist', 'index.mjs'), 'utf8'), /export \{[^}]*TenxGraphClient/);
  });

  test('in a browser-like context it runs the loop over invoke, the stream and the WebSocket', async () => {
    const { TenxGraphClient, Message, pendingRemoteCalls } = loadInBrowserLikeContext();
    const client = new TenxGraphClient({ baseUrl: server.url }).registerToolHandler('read_clipboard', () => 'from the browser');
    const result = await client.invoke([Message.text_message("What's on my clipboard?")]);
    const answer = (messages: ClientModule.Message[]) => Message.text(messages[messages.length - 1]!);
    assert.equal(result.rounds, 1);
    // The bundle's arrays have their own realm's Array.prototype, which deepEqual compares: check the length.
    assert.equal(pendingRemoteCalls(result.messages).length, 0);
    assert.ok(answer(result.messages).includes('read_clipboard: from the browser'), answer(result.messages));

    for (const transport of ['http', 'ws'] as const) {
      const messages: ClientModule.Message[] = [];
      let deltas = '';
      for await (const chunk of client.stream("What's on my clipboard?", { transport })) {
        if (chunk.message?.delta === true) deltas += Message.text(chunk.message);
        else if (chunk.message) messages.push(chunk.message);
      }
      assert.ok(answer(messages).includes('read_clipboard: from the browser'), `${transport}: ${answer(messages)}`);
      // The stream's text deltas, read by the bundle's own decoder, make up the answer.
      assert.equal(deltas, answer(messages), transport);
    }
    client.close();
  });
});
