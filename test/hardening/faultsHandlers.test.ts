/**
 * Hostile tool handlers end to end: a `TenxGraphClient` against the real `10xgraph api` (the
 * built CLI, a SQLite file) whose handlers hang past their time-out, throw things that are not
 * Errors, or return values that cannot travel as JSON. The loop must end with the model's
 * answer, each such call reported as a failed result with a clear error, both as stored in
 * the thread and as the model saw it (the fault agent's answer quotes every result).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { failedResult, failureReasonOf, isFailedResult, Message, pendingRemoteCalls, TenxGraphClient, TenxGraphError } from '../../client-sdk/src';
import type { Message as WireMessage, StreamChunk, ToolHandler, WebSocketConstructor } from '../../client-sdk/src';
import { ApiProcess, FAULT_AGENT_CONFIG } from './netSupport/apiProcess';
import { ThreadDb, threadProblems } from './netSupport/threadDb';

const TIMEOUT_MS = 300;

interface Behaviour {
  name: string;
  handler: ToolHandler;
  /** What the failed result's error must say. */
  error: RegExp;
}

function circular(): unknown {
  const value: Record<string, unknown> = { name: 'loop' };
  value.self = value;
  return value;
}

const BEHAVIOURS: Behaviour[] = [
  { name: 'hangs forever', handler: () => new Promise(() => undefined), error: new RegExp(`^Tool 'lookup' timed out after ${TIMEOUT_MS} ms$`) },
  {
    name: 'hangs and ignores its abort signal',
    handler: (_args, context) => new Promise((resolve) => context.signal.addEventListener('abort', () => setTimeout(() => resolve('too late'), 50))),
    error: /^Tool 'lookup' timed out after \d+ ms$/,
  },
  {
    name: 'throws a string',
    handler: () => {
      throw 'the disk is full';
    },
    error: /^the disk is full$/,
  },
  {
    name: 'throws an empty string',
    handler: () => {
      throw '';
    },
    error: /^Tool 'lookup' threw an empty string$/,
  },
  {
    name: 'throws a number',
    handler: () => {
      throw 42;
    },
    error: /^Tool 'lookup' threw a non-Error value: 42$/,
  },
  {
    name: 'throws undefined',
    handler: () => {
      throw undefined;
    },
    error: /^Tool 'lookup' threw undefined instead of an Error$/,
  },
  {
    name: 'throws null',
    handler: () => {
      throw null;
    },
    error: /^Tool 'lookup' threw null instead of an Error$/,
  },
  {
    name: 'throws a plain object',
    handler: () => {
      throw { code: 7, detail: 'no such key' };
    },
    error: /^Tool 'lookup' threw a non-Error value: \{"code":7,"detail":"no such key"\}$/,
  },
  {
    name: 'throws a symbol',
    handler: () => {
      throw Symbol('oops');
    },
    error: /^Tool 'lookup' threw a non-Error value: Symbol\(oops\)$/,
  },
  {
    name: 'throws a circular object',
    handler: () => {
      throw circular();
    },
    error: /^Tool 'lookup' threw a non-Error value: \[object Object\]$/,
  },
  {
    name: 'rejects with an Error without a message',
    handler: async () => {
      throw new Error();
    },
    error: /^Tool 'lookup' threw Error without a message$/,
  },
  { name: 'rejects later with a string', handler: () => new Promise((_, reject) => setTimeout(() => reject('late refusal'), 20)), error: /^late refusal$/ },
  { name: 'returns a function', handler: () => () => 1, error: /^Tool 'lookup' returned a result that is not JSON-serialisable \(the result is a function\)/ },
  { name: 'returns a bigint', handler: () => 10n, error: /not JSON-serialisable \(the result is a bigint\)/ },
  { name: 'returns a symbol', handler: () => Symbol('s'), error: /not JSON-serialisable \(the result is a symbol\)/ },
  { name: 'returns a circular object', handler: () => circular(), error: /not JSON-serialisable \(it contains a circular reference\)/ },
  { name: 'returns NaN inside an object', handler: () => ({ total: NaN }), error: /not JSON-serialisable \(property 'total' is NaN\)/ },
  { name: 'returns a nested function', handler: () => ({ ok: true, later: { run: () => 1 } }), error: /not JSON-serialisable \(property 'run' is a function\)/ },
  {
    name: 'returns an object whose toJSON throws',
    handler: () => ({
      toJSON() {
        throw new Error('toJSON exploded');
      },
    }),
    error: /not JSON-serialisable \(toJSON exploded\)/,
  },
  {
    name: 'returns an object whose getter throws',
    handler: () => ({
      get secret() {
        throw new Error('getter exploded');
      },
    }),
    error: /not JSON-serialisable \(getter exploded\)/,
  },
];

/**
 * A client whose `lookup` handler behaves by the call's index (`TAG-r0-cI`); `events`, when given,
 * records each handler's start and each time-out (its signal aborted), in order.
 */
function hostileClient(base: string, behaviours: readonly Behaviour[], events?: Array<'start' | 'abort'>): TenxGraphClient {
  const client = new TenxGraphClient({ baseUrl: base, handlerTimeoutMs: TIMEOUT_MS, WebSocket: WebSocket as unknown as WebSocketConstructor });
  client.registerToolHandler('lookup', (args, context) => {
    const index = Number(/-c(\d+)$/.exec(String(args.key))?.[1]);
    events?.push('start');
    context.signal.addEventListener('abort', () => events?.push('abort'));
    return behaviours[index]!.handler(args, context);
  });
  return client;
}

async function runLoop(client: TenxGraphClient, transport: 'invoke' | 'http' | 'ws', text: string, threadId: string): Promise<WireMessage[]> {
  const options = { config: { thread_id: threadId } };
  if (transport === 'invoke') {
    const result = await client.invoke(text, options);
    assert.deepEqual(pendingRemoteCalls(result.messages), [], 'the loop ended with calls unanswered');
    return result.messages;
  }
  const messages: WireMessage[] = [];
  const states: StreamChunk[] = [];
  // `partial` ends each run with its state: the first run waits on the calls, the second completes.
  for await (const chunk of client.stream(text, { ...options, transport, response_granularity: 'partial' })) {
    if (chunk.event === 'message' && chunk.message && chunk.message.delta !== true) messages.push(chunk.message);
    if (chunk.event === 'error') assert.fail(`error chunk: ${JSON.stringify(chunk.data)}`);
    if (chunk.event === 'state') states.push(chunk);
  }
  assert.deepEqual(
    states.map((c) => c.state?.execution_meta.status),
    ['interrupted_after', 'completed'],
  );
  return messages;
}

describe('hostile tool handlers, end to end against 10xgraph api', () => {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-handlers-'));
  const server = new ApiProcess({ config: FAULT_AGENT_CONFIG, db: join(folder, 'threads.sqlite') });
  let db: ThreadDb;

  before(async () => {
    await server.start();
    db = new ThreadDb(join(folder, 'threads.sqlite'));
  });
  after(async () => {
    db?.close();
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  for (const transport of ['invoke', 'http', 'ws'] as const) {
    test(`${BEHAVIOURS.length} hostile handlers in one round over ${transport}: each a failed result, then the answer`, async () => {
      const events: Array<'start' | 'abort'> = [];
      const client = hostileClient(server.url, BEHAVIOURS, events);
      const tag = `hostile-${transport}`;
      const threadId = `thread-${tag}`;
      try {
        const messages = await runLoop(client, transport, `[t:${tag}] rounds=1 calls=${BEHAVIOURS.length}`, threadId);
        // Every handler ran concurrently: all of them had started before the first time-out came
        // (one after the other, the second would start only once the first had timed out). An
        // order, not a duration: a loaded machine cannot make it fail.
        const firstTimeOut = events.indexOf('abort');
        assert.ok(firstTimeOut > 0, `no handler timed out: ${events.join(' ')}`);
        assert.equal(
          events.slice(0, firstTimeOut).filter((event) => event === 'start').length,
          BEHAVIOURS.length,
          `handlers started before the first time-out: ${events.join(' ')}`,
        );
        const answer = messages[messages.length - 1]!;
        assert.equal(answer.role, 'assistant');
        const stored = db.thread(threadId)!;
        assert.deepEqual(threadProblems(stored), []);
        assert.equal(stored.status, 'completed');
        const blocks = stored.messages.flatMap((m) => m.content);
        const results = blocks.flatMap((b) => (b.type === 'tool_result' ? [b] : []));
        assert.equal(results.length, BEHAVIOURS.length);
        const calls = blocks.flatMap((b) => (b.type === 'remote_tool_call' ? [b] : []));
        const seen = Message.text(answer);
        BEHAVIOURS.forEach((behaviour, i) => {
          const call = calls.find((c) => (c.args as { key?: unknown }).key === `${tag}-r0-c${i}`);
          assert.ok(call, `no remote call for ${behaviour.name}`);
          const result = results.find((r) => r.call_id === call.id);
          assert.ok(result, `no stored result for ${behaviour.name}`);
          assert.equal(result.status, 'failed', `${behaviour.name}: ${JSON.stringify(result)}`);
          assert.equal(result.is_error, true, behaviour.name);
          const reason = (result.output as { error?: unknown } | null)?.error;
          assert.equal(typeof reason, 'string', `${behaviour.name}: the reason is not output.error: ${JSON.stringify(result)}`);
          assert.match(reason as string, behaviour.error, behaviour.name);
          assert.ok(seen.includes(`failed:${reason as string}`), `${behaviour.name}: the model did not see its error`);
        });
      } finally {
        client.close();
      }
    });
  }

  test('a thrown object whose `message` getter throws still ends as a failed result', async () => {
    // Known bug (client-sdk/src/toolExecutor.ts, describeThrown): reading `.message` of the
    // thrown value is not guarded, so execute() rejects and the whole loop breaks.
    const trap: Behaviour = {
      name: 'throws an object whose message getter throws',
      handler: () => {
        throw {
          get message(): string {
            throw new Error('message getter exploded');
          },
        };
      },
      error: /.+/,
    };
    const client = hostileClient(server.url, [trap]);
    try {
      const messages = await client.invoke('[t:trap] rounds=1 calls=1', { config: { thread_id: 'thread-trap' } }).then(
        (result) => result.messages,
        (error: unknown) => assert.fail(`the loop broke instead of sending a failed result: ${String(error)}`),
      );
      const stored = db.thread('thread-trap')!;
      assert.equal(stored.status, 'completed');
      const result = stored.messages.flatMap((m) => m.content).find((b) => b.type === 'tool_result');
      assert.ok(result && result.type === 'tool_result' && isFailedResult(result) && failureReasonOf(result));
      assert.match(Message.text(messages[messages.length - 1]!), /failed:/);
    } finally {
      client.close();
    }
  });

  test('a result larger than the server accepts: the loop fails clearly, the call stays pending, a retry completes', async () => {
    const huge = 'x'.repeat(2 * 1024 * 1024);
    const client = hostileClient(server.url, [{ name: 'returns 2 MiB', handler: () => huge, error: /never/ }]);
    try {
      const error = await client.invoke('[t:huge] rounds=1 calls=1', { config: { thread_id: 'thread-huge' } }).then(
        () => assert.fail('a 2 MiB result went through a 1 MiB body limit'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof TenxGraphError, String(error));
      assert.equal(error.status, 413);
      assert.equal(error.code, 'REQUEST_TOO_LARGE');
      assert.match(error.message, /larger than the server's limit of \d+ bytes/);
      const stored = db.thread('thread-huge')!;
      assert.deepEqual(threadProblems(stored), []);
      assert.equal(stored.status, 'waiting', 'the refused results left the call pending');
      assert.equal(stored.pending.length, 1);
      const results = await client.tools.executeAll([{ ...stored.pending[0]!, name: 'small' }]);
      const retry = await client.invoke([Message.tool_message(results.map((r) => failedResult(r.call_id, 'the result was too large to send')))], {
        config: { thread_id: 'thread-huge' },
      });
      assert.deepEqual(pendingRemoteCalls(retry.messages), []);
      assert.match(Message.text(retry.messages[retry.messages.length - 1]!), /failed:the result was too large to send/);
    } finally {
      client.close();
    }
  });

  test('the server logged no failure', () => {
    assert.ok(server.alive);
    assert.equal(server.allStderr, '');
  });
});
