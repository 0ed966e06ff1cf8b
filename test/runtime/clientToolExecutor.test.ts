// ToolExecutor: every outcome of a handler becomes a tool_result block, and none throws.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Message, ToolExecutor, completedResult, describeThrown, failureReasonOf, toJsonValue } from '../../client-sdk/src';
import type { RemoteToolCall } from '../../client-sdk/src';

function call(name: string, args: Record<string, unknown> = {}, id = `call_${name}`): RemoteToolCall {
  return { id, name, args, node: 'TOOL' };
}

describe('ToolExecutor', () => {
  test('a registered handler gets the arguments and the call context, and its output comes back completed', async () => {
    const executor = new ToolExecutor();
    let seen: unknown;
    executor.register('echo', (args, context) => {
      seen = { id: context.id, name: context.name, node: context.node, thread_id: context.thread_id, aborted: context.signal.aborted };
      return { echoed: args.text };
    });
    const result = await executor.execute(call('echo', { text: 'hi' }, 'c1'), { thread_id: 't1' });
    assert.deepEqual(result, { type: 'tool_result', call_id: 'c1', output: { echoed: 'hi' }, is_error: false, status: 'completed' });
    assert.deepEqual(seen, { id: 'c1', name: 'echo', node: 'TOOL', thread_id: 't1', aborted: false });
  });

  test("an unregistered tool gives a failed result whose reason (output.error) is exactly Tool '<name>' not found", async () => {
    const result = await new ToolExecutor().execute(call('read_clipboard', {}, 'c2'));
    assert.deepEqual(result, { type: 'tool_result', call_id: 'c2', output: { error: "Tool 'read_clipboard' not found" }, is_error: true, status: 'failed' });
  });

  test("a handler that throws an Error gives a failed result with the error's message", async () => {
    const executor = new ToolExecutor();
    executor.register('boom', async () => {
      throw new Error('Database is locked');
    });
    executor.register('sync_boom', () => {
      throw new TypeError('bad argument: query');
    });
    assert.deepEqual(await executor.execute(call('boom')), {
      type: 'tool_result',
      call_id: 'call_boom',
      output: { error: 'Database is locked' },
      is_error: true,
      status: 'failed',
    });
    const sync = await executor.execute(call('sync_boom'));
    assert.equal(sync.status, 'failed');
    assert.equal(sync.is_error, true);
    assert.equal(failureReasonOf(sync), 'bad argument: query');
  });

  test('non-Error throws give readable messages', async () => {
    const executor = new ToolExecutor();
    const thrown: Array<[unknown, string]> = [
      ['plain string failure', 'plain string failure'],
      ['', "Tool 't' threw an empty string"],
      [{ message: 'object with a message' }, 'object with a message'],
      [{ code: 42, reason: 'nope' }, `Tool 't' threw a non-Error value: {"code":42,"reason":"nope"}`],
      [undefined, "Tool 't' threw undefined instead of an Error"],
      [null, "Tool 't' threw null instead of an Error"],
      [7, "Tool 't' threw a non-Error value: 7"],
      [new Error(''), "Tool 't' threw Error without a message"],
    ];
    for (const [value, expected] of thrown) {
      executor.register('t', () => {
        throw value;
      });
      const result = await executor.execute(call('t'));
      assert.equal(result.status, 'failed', `throwing ${String(value)}`);
      assert.equal(result.is_error, true, `throwing ${String(value)}`);
      assert.deepEqual(result.output, { error: expected }, `throwing ${String(value)}`);
      assert.equal(describeThrown(value, 't'), expected);
    }
    // A value whose JSON form cannot be made still reads as something.
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    assert.equal(describeThrown(circular, 't'), "Tool 't' threw a non-Error value: [object Object]");
    assert.equal(describeThrown(Promise.reject.bind(Promise), 't'), `Tool 't' threw a non-Error value: ${String(Promise.reject.bind(Promise))}`);
  });

  test('a handler that hangs fails after its time-out, and its signal is aborted', async () => {
    const executor = new ToolExecutor({ timeoutMs: 5000 });
    let signal: AbortSignal | undefined;
    executor.register(
      'hang',
      (_args, context) => {
        signal = context.signal;
        return new Promise(() => undefined);
      },
      { timeoutMs: 50 },
    );
    const started = Date.now();
    const result = await executor.execute(call('hang'));
    assert.deepEqual(result, { type: 'tool_result', call_id: 'call_hang', output: { error: "Tool 'hang' timed out after 50 ms" }, is_error: true, status: 'failed' });
    assert.ok(Date.now() - started < 4000, 'the per-handler time-out wins over the executor default');
    assert.equal(signal?.aborted, true);
  });

  test('the executor-wide time-out applies to handlers without their own, and a handler rejecting late is harmless', async () => {
    const executor = new ToolExecutor({ timeoutMs: 30 });
    let rejectLate: (error: Error) => void = () => undefined;
    executor.register('late', () => new Promise((_resolve, reject) => (rejectLate = reject)));
    const result = await executor.execute(call('late'));
    assert.equal(failureReasonOf(result), "Tool 'late' timed out after 30 ms");
    // Rejecting after the time-out must not surface as an unhandled rejection (the test runner fails on one).
    rejectLate(new Error('too late'));
    await new Promise((resolve) => setImmediate(resolve));
  });

  test('a fast handler under a time-out completes normally', async () => {
    const executor = new ToolExecutor({ timeoutMs: 1000 });
    executor.register('quick', async () => 'done');
    assert.deepEqual(await executor.execute(call('quick')), { type: 'tool_result', call_id: 'call_quick', output: 'done', is_error: false, status: 'completed' });
  });

  test('an output that is not JSON-serialisable gives a failed result saying so', async () => {
    const executor = new ToolExecutor();
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    const cases: Array<[unknown, string]> = [
      [circular, 'it contains a circular reference'],
      [{ total: 10n }, "property 'total' is a bigint"],
      [{ fn: () => 1 }, "property 'fn' is a function"],
      [Symbol('s'), 'the result is a symbol'],
      [{ ratio: Number.NaN }, "property 'ratio' is NaN"],
      [[1, Number.POSITIVE_INFINITY], "property '1' is Infinity"],
    ];
    for (const [output, reason] of cases) {
      executor.register('bad', () => output);
      const result = await executor.execute(call('bad'));
      assert.equal(result.status, 'failed');
      assert.equal(
        failureReasonOf(result),
        `Tool 'bad' returned a result that is not JSON-serialisable (${reason}); return plain data: objects, arrays, strings, numbers, booleans or null.`,
      );
    }
  });

  test('outputs travel as their JSON form; undefined becomes null', async () => {
    const executor = new ToolExecutor();
    executor.register('date', () => ({ at: new Date('2024-01-02T03:04:05.000Z'), skip: undefined }));
    executor.register('nothing', () => undefined);
    assert.deepEqual((await executor.execute(call('date'))).output, { at: '2024-01-02T03:04:05.000Z' });
    assert.equal((await executor.execute(call('nothing'))).output, null);
    assert.deepEqual(toJsonValue([1, 'a', null, true]), { ok: true, value: [1, 'a', null, true] });
  });

  test('toJsonValue gives exactly the JSON form, as a copy, for plain data and everything else', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { b: 2, a: [1, { c: 'd' }] });
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = { next: deep };
    const cases: unknown[] = [
      { name: 'Champ de Mars', at: { latitude: 48.8584, longitude: 2.2945 }, tags: ['a', 'b'], none: null, yes: true, 2: 'two', 1: 'one' },
      nullProto,
      -0,
      [-0, 1.5, 'x'],
      [1, , 3],
      { skip: undefined, keep: 1, list: [undefined, 2] },
      new Point(1, 2),
      { when: new Date('2024-01-02T03:04:05.000Z') },
      { custom: { toJSON: () => 'custom form' } },
      JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as unknown,
      {
        get computed() {
          return 42;
        },
      },
      deep,
      'text \u2028 \ud800',
      [],
      {},
    ];
    for (const value of cases) {
      const result = toJsonValue(value);
      assert.ok(result.ok);
      const expected = JSON.parse(JSON.stringify(value)) as unknown;
      assert.deepEqual(result.value, expected);
      assert.ok(Object.is(JSON.stringify(result.value), JSON.stringify(expected)));
      if (typeof value === 'object' && value !== null) assert.notEqual(result.value, value);
    }
    // A copy: changing what the handler returned afterwards changes nothing that travels.
    const original = { list: [1, 2], inner: { a: 1 } };
    const copied = toJsonValue(original);
    original.list.push(3);
    original.inner.a = 2;
    assert.deepEqual(copied, { ok: true, value: { list: [1, 2], inner: { a: 1 } } });
    assert.equal(Object.getPrototypeOf((toJsonValue(JSON.parse('{"__proto__": {"polluted": true}}')) as { value: object }).value), Object.prototype);
    assert.deepEqual(
      toJsonValue({
        get broken(): never {
          throw new Error('no reading');
        },
      }),
      { ok: false, reason: 'no reading' },
    );
  });

  test('executeAll runs the handlers concurrently and keeps the order of the calls', async () => {
    const executor = new ToolExecutor();
    let running = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    executor.register('wait', async (args) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      return args.n;
    });
    const pending = executor.executeAll([call('wait', { n: 1 }, 'a'), call('missing', {}, 'b'), call('wait', { n: 3 }, 'c')]);
    // Both handlers must be running before either is released: they were started together.
    while (releases.length < 2) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(peak, 2);
    releases.reverse().forEach((release) => release());
    const results = await pending;
    assert.deepEqual(
      results.map((r) => [r.call_id, r.status, r.is_error, r.output]),
      [
        ['a', 'completed', false, 1],
        ['b', 'failed', true, { error: "Tool 'missing' not found" }],
        ['c', 'completed', false, 3],
      ],
    );
  });

  test("the caller's abort ends a running handler with a failed result and aborts its signal", async () => {
    const executor = new ToolExecutor();
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    executor.register('watch', (_args, context) => {
      signal = context.signal;
      return new Promise(() => undefined);
    });
    const pending = executor.execute(call('watch'), { signal: controller.signal });
    while (signal === undefined) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error('the user closed the page'));
    assert.deepEqual(await pending, {
      type: 'tool_result',
      call_id: 'call_watch',
      output: { error: "Tool 'watch' was cancelled: the user closed the page" },
      is_error: true,
      status: 'failed',
    });
    assert.equal(signal.aborted, true);
    const late = await executor.execute(call('watch'), { signal: controller.signal });
    assert.equal(failureReasonOf(late), "Tool 'watch' was cancelled before it ran");
  });

  test('bad registrations are refused with a clear message', () => {
    const executor = new ToolExecutor();
    assert.throws(() => executor.register(' ', () => 1), /non-blank tool name/);
    assert.throws(() => executor.register('x', 'nope' as unknown as () => unknown), /handler of tool 'x' is not a function/);
    assert.throws(() => executor.register('x', () => 1, { timeoutMs: 0 }), /timeoutMs of tool 'x' must be a positive number/);
    assert.throws(() => new ToolExecutor({ timeoutMs: Number.NaN }), /timeoutMs must be a positive number/);
    executor.register('x', () => 1);
    assert.deepEqual(executor.names(), ['x']);
    assert.equal(executor.unregister('x'), true);
    assert.equal(executor.has('x'), false);
  });
});

describe('Message', () => {
  test('text_message makes a user text message with a fresh id', () => {
    const a = Message.text_message('Where am I?');
    const b = Message.text_message('Where am I?');
    assert.equal(a.role, 'user');
    assert.deepEqual(a.content, [{ type: 'text', text: 'Where am I?' }]);
    assert.match(a.message_id, /^msg_[0-9a-f-]{36}$/);
    assert.notEqual(a.message_id, b.message_id);
    assert.equal(Message.text(a), 'Where am I?');
  });

  test('tool_message carries one tool_result block per result', () => {
    const message = Message.tool_message([completedResult('c', 1)]);
    assert.equal(message.role, 'tool');
    assert.deepEqual(message.content, [{ type: 'tool_result', call_id: 'c', output: 1, is_error: false, status: 'completed' }]);
    assert.equal(Message.text(message), '');
  });
});
