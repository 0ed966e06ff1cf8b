/**
 * Fault injection on `10xgraph api` (the built CLI, a real SQLite file): clients run the
 * remote-tool loop (invoke → remote call → result → answer) over invoke, the NDJSON stream and
 * the WebSocket while the server is SIGKILLed again and again at chosen points of the loop:
 *
 * - `hold-call`: a model turn that will call tools is running (the remote call is not stored);
 * - `hold-answer`: the client's results were received and the answering turn runs (not stored);
 * - `hold-*-stream`: the same on a stream or WebSocket whose chunks have started (mid-stream);
 * - `stored-call` / `stored-answer`: right after the database shows a new waiting / completed
 *   thread (stored; the answer may or may not have reached the client);
 * - `progress`: as soon as the database has grown by a random number of messages.
 *
 * The points are found by reading the server's stdout (the agent prints `HOLD` and never ends
 * that turn) or by polling the database, never by sleeping. After each kill, before and after
 * the restart on the same port, every thread must be consistent (`threadProblems`), no stored
 * message may have gone, the restart may change nothing, and every
 * waiting thread must still be waiting for the same calls as the API sees them. Each client
 * then retries and its loop must end with the model's answer, with every message once.
 *
 * A client that lost an answer first retries what it had sent (which the server must refuse
 * when it was already stored), then asks the server where its thread stands
 * (`GET /v1/threads/{id}/state`: its messages and the remote calls it waits for), which must
 * agree with the database, and goes on from there, counting how often it had to.
 *
 * TENXGRAPH_FAULT_KILLS (default 100) and TENXGRAPH_FAULT_SEED (a number or "random") make
 * longer or other runs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { completedResult, Message, pendingRemoteCalls, TenxGraphClient } from '../../client-sdk/src';
import type { FetchLike, RemoteToolCall, Message as WireMessage, WebSocketConstructor } from '../../client-sdk/src';
import { ApiProcess, FAULT_AGENT_CONFIG, pollUntil } from './netSupport/apiProcess';
import { countFrom, Random, seedFrom } from './netSupport/random';
import { ThreadDb, threadProblems, type StoredThread } from './netSupport/threadDb';

const KILLS = countFrom('TENXGRAPH_FAULT_KILLS', 100);
const SEED = seedFrom('TENXGRAPH_FAULT_SEED', 20_251_130);
const WORKERS = 4;

type KillKind = 'hold-call' | 'hold-answer' | 'hold-call-stream' | 'hold-answer-stream' | 'stored-call' | 'stored-answer' | 'progress';
const KILL_KINDS: KillKind[] = ['hold-call', 'hold-answer', 'hold-call-stream', 'hold-answer-stream', 'stored-call', 'stored-answer', 'progress'];

type Transport = 'invoke' | 'sse' | 'ws';

/** One conversation: a thread the client names, and what the client knows is stored. */
interface Conversation {
  tag: string;
  threadId: string;
  rounds: number;
  calls: number;
  transport: Transport;
  user: WireMessage;
  /** Messages the server confirmed as stored (a 200 answer, or a run's `state` chunk), in thread order. */
  confirmed: WireMessage[];
  /** The input of the run under way, until its answer confirms it. */
  inFlight?: WireMessage[];
  answer?: string;
}

const stats = {
  kills: new Map<KillKind, number>(),
  conversations: 0,
  interrupted: 0,
  resent: 0,
  refusedRetries: 0,
  fromServer: 0,
  probes: 0,
  handlerRuns: 0,
};

/** The value the client's `lookup` handler returns for a key. */
function valueOf(key: unknown): string {
  return `value(${String(key)})`;
}

function expectedAnswer(conv: Conversation): string {
  const values: string[] = [];
  for (let r = 0; r < conv.rounds; r++) for (let c = 0; c < conv.calls; c++) values.push(valueOf(`${conv.tag}-r${r}-c${c}`));
  return `answer ${conv.tag}: ${values.join(' ')}`;
}

/**
 * Messages as stored and as sent compared: what they say (id, role, content, tool calls, metadata).
 * The answers add the keys a message leaves out at their empty value (`delta`, `tools_calls`,
 * `metadata`) and a `timestamp`, which the database's rows need not carry.
 */
function said(messages: readonly WireMessage[]): unknown[] {
  return messages.map((m) => ({ message_id: m.message_id, role: m.role, content: m.content, tools_calls: m.tools_calls ?? null, metadata: m.metadata ?? {} }));
}

function lastText(messages: readonly WireMessage[]): string | undefined {
  const last = messages[messages.length - 1];
  return last && last.role === 'assistant' ? Message.text(last) : undefined;
}

/** Kills, restarts and checks the server; the workers wait on its gate while it is down. */
class Chaos {
  epoch = 0;
  down = false;
  private gate: Promise<void> = Promise.resolve();
  private openGate: () => void = () => undefined;
  /** The message ids of each thread as last seen, to prove no stored message ever goes. */
  private readonly seen = new Map<string, string[]>();

  constructor(
    readonly server: ApiProcess,
    readonly db: ThreadDb,
    readonly planFile: string,
    readonly random: Random,
  ) {}

  /** Resolves when the server is up and checked. */
  ready(): Promise<void> {
    return this.gate;
  }

  /** Whether a kill happened since `epoch` (or is happening). */
  killedSince(epoch: number): boolean {
    return this.down || this.epoch !== epoch;
  }

  /** Picks a kill point, waits for it, kills, checks, restarts and checks again. */
  async cycle(): Promise<void> {
    const kind = this.random.pick(KILL_KINDS);
    const held = await this.reach(kind);
    this.down = true;
    this.gate = new Promise((resolveGate) => (this.openGate = resolveGate));
    this.epoch++;
    await this.server.kill();
    stats.kills.set(kind, (stats.kills.get(kind) ?? 0) + 1);
    writeFileSync(this.planFile, '');
    const before = this.checkAll(`after kill ${this.epoch} (${kind})`);
    if (held) this.checkHeld(held, before);
    await this.server.start();
    const afterRestart = this.checkAll(`after restart ${this.epoch}`);
    for (const thread of afterRestart) {
      const old = before.find((t) => t.threadId === thread.threadId);
      assert.deepEqual(thread, old, `the restart changed thread ${thread.threadId}`);
    }
    assert.equal(afterRestart.length, before.length, 'the restart lost or made threads');
    await this.probeWaiting(afterRestart.filter((t) => t.status === 'waiting'));
    this.down = false;
    this.openGate();
  }

  /** Waits for the kill point of `kind`; for a held turn, resolves to its tag, stage and round. */
  private async reach(kind: KillKind): Promise<{ tag: string; stage: string; round: number } | undefined> {
    if (kind.startsWith('hold-')) {
      const stage = kind.includes('call') ? 'call' : 'answer';
      const plan = kind.endsWith('-stream') ? { stage, tagIncludes: this.random.chance(0.5) ? '-sse' : '-ws' } : { stage };
      writeFileSync(this.planFile, JSON.stringify(plan));
      const match = await this.server.waitForOutput(/HOLD (\S+) (call|answer) (\d+)/, 20_000);
      return { tag: match[1]!, stage: match[2]!, round: Number(match[3]) };
    }
    if (kind === 'progress') {
      const base = Number(this.db.scalar('SELECT COUNT(*) FROM messages'));
      const target = base + this.random.int(1, 8);
      await pollUntil(() => Number(this.db.scalar('SELECT COUNT(*) FROM messages')) >= target, `${target} stored messages`, 20_000);
      return undefined;
    }
    const status = kind === 'stored-call' ? 'waiting' : 'completed';
    const since = new Date().toISOString();
    await pollUntil(
      () => this.db.scalar('SELECT thread_id FROM threads WHERE status = ? AND updated_at > ? LIMIT 1', status, since) as string | undefined,
      `a thread newly ${status}`,
      20_000,
    );
    return undefined;
  }

  /** A held turn was never stored: its thread is as it was before that run. */
  private checkHeld(held: { tag: string; stage: string; round: number }, threads: StoredThread[]): void {
    const thread = threads.find((t) => t.messages[0] && Message.text(t.messages[0]).includes(`[t:${held.tag}]`));
    if (held.stage === 'call' && held.round === 0) {
      // The first run never stored: the thread holds no message (its row may exist, marked new).
      assert.ok(!thread, `the held first turn of ${held.tag} left stored messages`);
      return;
    }
    assert.ok(thread, `no stored thread for the held turn of ${held.tag}`);
    assert.equal(thread.status, 'waiting', `the held turn of ${held.tag} was stored`);
    const results = thread.messages.filter((m) => m.content.some((b) => b.type === 'tool_result')).length;
    assert.equal(results, held.round - 1, `the held turn of ${held.tag} (round ${held.round}) stored its tool results`);
  }

  /** Checks every thread; returns them. */
  private checkAll(when: string): StoredThread[] {
    const threads = this.db.threads();
    const problems = threads.flatMap(threadProblems);
    assert.deepEqual(problems, [], `${when}: inconsistent threads`);
    for (const thread of threads) {
      const ids = thread.messages.map((m) => m.message_id);
      const previous = this.seen.get(thread.threadId) ?? [];
      assert.deepEqual(ids.slice(0, previous.length), previous, `${when}: thread ${thread.threadId} lost stored messages`);
      this.seen.set(thread.threadId, ids);
    }
    for (const id of this.seen.keys())
      assert.ok(
        threads.some((t) => t.threadId === id),
        `${when}: thread ${id} disappeared`,
      );
    return threads;
  }

  /** Asks the API about each waiting thread: it must still wait for exactly the stored calls. */
  private async probeWaiting(threads: StoredThread[]): Promise<void> {
    for (const thread of threads) {
      stats.probes++;
      const refusal = await postInvoke(this.server.url, { messages: [Message.text_message('probe: is this thread waiting?')], config: { thread_id: thread.threadId } });
      assert.equal(refusal.status, 422, `a new turn on waiting thread ${thread.threadId} was not refused: ${JSON.stringify(refusal.body)}`);
      assert.equal(refusal.body.error.code, 'MISSING_TOOL_RESULTS');
      for (const call of thread.pending)
        assert.ok(refusal.body.error.message.includes(call.id), `the refusal does not name pending call ${call.id}: ${refusal.body.error.message}`);
    }
    const one = threads[0];
    if (one) {
      const bogus = Message.tool_message([completedResult('call_that_never_was', 1)]);
      const refusal = await postInvoke(this.server.url, { messages: [bogus], config: { thread_id: one.threadId } });
      assert.equal(refusal.status, 422);
      assert.equal(refusal.body.error.code, 'UNKNOWN_CALL_ID');
    }
  }
}

async function postInvoke(base: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}/v1/graph/invoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: JSON.parse(await response.text()) };
}

/** A client of one worker: a real TenxGraphClient whose fetch is watched (not changed) to learn what was confirmed. */
class Worker {
  readonly client: TenxGraphClient;
  private readonly byThread = new Map<string, Conversation>();

  constructor(
    readonly index: number,
    readonly chaos: Chaos,
    readonly random: Random,
  ) {
    const watched: FetchLike = async (input, init) => {
      // Nothing reaches a restarted server before its checks are done.
      await chaos.ready();
      const isInvoke = input.endsWith('/v1/graph/invoke') && typeof init?.body === 'string';
      const body = isInvoke ? (JSON.parse(init!.body as string) as { messages: WireMessage[]; config?: { thread_id?: string } }) : undefined;
      const conv = body?.config?.thread_id ? this.byThread.get(body.config.thread_id) : undefined;
      if (conv && body) conv.inFlight = body.messages;
      const response = await fetch(input, init);
      if (conv && body && response.status === 200) {
        // The answer echoes the request's messages first, then the run's.
        const data = ((await response.clone().json()) as { data: { messages: WireMessage[] } }).data;
        assert.deepEqual(
          data.messages.slice(0, body.messages.length).map((m) => m.message_id),
          body.messages.map((m) => m.message_id),
          'the answer does not echo the request first',
        );
        conv.confirmed.push(...data.messages);
        conv.inFlight = undefined;
      }
      return response;
    };
    this.client = new TenxGraphClient({ baseUrl: chaos.server.url, fetch: watched, WebSocket: WebSocket as unknown as WebSocketConstructor });
    this.client.registerToolHandler('lookup', (args) => {
      stats.handlerRuns++;
      return valueOf(args.key);
    });
  }

  /** Runs conversations until `stop()` says so; each must end with its answer. */
  async run(stop: () => boolean): Promise<void> {
    for (let n = 0; !stop(); n++) await this.converse(n);
    this.client.close();
  }

  private async converse(n: number): Promise<void> {
    const transport: Transport = this.index < 3 ? (['invoke', 'sse', 'ws'] as const)[this.index]! : this.random.pick(['invoke', 'sse', 'ws'] as const);
    const tag = `w${this.index}-c${n}-${transport}`;
    const rounds = this.random.int(1, 2);
    const calls = this.random.int(1, 3);
    const conv: Conversation = {
      tag,
      threadId: `thread-${tag}-${SEED}`,
      rounds,
      calls,
      transport,
      user: Message.text_message(`[t:${tag}] rounds=${rounds} calls=${calls}`),
      confirmed: [],
    };
    this.byThread.set(conv.threadId, conv);
    let next: WireMessage[] | undefined = [conv.user];
    let interrupted = false;
    while (next) {
      await this.chaos.ready();
      const epoch = this.chaos.epoch;
      try {
        await this.runLoop(conv, next);
        next = undefined;
      } catch (error) {
        if (!this.chaos.killedSince(epoch)) throw error;
        interrupted = true;
        next = await this.recover(conv);
      }
    }
    stats.conversations++;
    if (interrupted) stats.interrupted++;
    assert.equal(conv.answer, expectedAnswer(conv), `conversation ${tag} ended with the wrong answer`);
    const stored = this.chaos.db.thread(conv.threadId);
    assert.ok(stored, `thread of ${tag} not stored`);
    assert.deepEqual(threadProblems(stored), []);
    assert.equal(stored.status, 'completed');
    assert.equal(stored.messages.length, 2 + 3 * rounds, `thread of ${tag}: user, ${rounds} × (call, remote call, results), answer`);
    assert.deepEqual(said(stored.messages), said(conv.confirmed), `thread of ${tag}: the stored messages are not exactly those the client saw`);
    assert.equal(stored.messages.filter((m) => m.role === 'user').length, 1, `thread of ${tag}: the user message is stored twice`);
  }

  /** Runs the client's loop from `messages` to the answer, noting what each run's end confirms. */
  private async runLoop(conv: Conversation, messages: WireMessage[]): Promise<void> {
    const options = { config: { thread_id: conv.threadId } };
    if (conv.transport === 'invoke') {
      const result = await this.client.invoke(messages, options);
      assert.deepEqual(pendingRemoteCalls(result.messages), [], `conversation ${conv.tag}: the loop ended with calls unanswered`);
      conv.answer = lastText(result.messages);
      return;
    }
    conv.inFlight = messages;
    let produced: WireMessage[] = [];
    // `partial` ends each run with a `state` chunk, sent once the run is stored: what confirms it.
    for await (const chunk of this.client.stream(messages, { ...options, transport: conv.transport === 'ws' ? 'ws' : 'http', response_granularity: 'partial' })) {
      if (chunk.event === 'message') {
        const message = chunk.message!;
        if (message.delta === true) continue;
        // Between runs the client yields the tool message it is about to send: the next run's input.
        if (conv.inFlight === undefined) {
          conv.inFlight = [message];
          // The generator sends it when resumed: not before a restarted server is checked.
          await this.chaos.ready();
        } else if (!conv.inFlight.some((sent) => sent.message_id === message.message_id)) produced.push(message);
      } else if (chunk.event === 'error') {
        throw new Error(`conversation ${conv.tag}: the server sent an error chunk: ${JSON.stringify(chunk.data)}`);
      } else if (chunk.event === 'state') {
        const status = chunk.state?.execution_meta.status;
        assert.ok(status === 'interrupted_after' || status === 'completed', `conversation ${conv.tag}: a run ended ${String(status)}`);
        conv.confirmed.push(...(conv.inFlight ?? []), ...produced);
        conv.inFlight = undefined;
        if (status === 'completed') conv.answer = lastText(produced);
        produced = [];
      }
    }
  }

  /**
   * After a kill: retries what was in flight when it was not stored; when it was, checks that
   * the server refuses the retry, then goes on from the stored thread.
   */
  private async recover(conv: Conversation): Promise<WireMessage[] | undefined> {
    await this.chaos.ready();
    const stored = this.chaos.db.thread(conv.threadId);
    const messages = stored?.messages ?? [];
    assert.deepEqual(said(messages.slice(0, conv.confirmed.length)), said(conv.confirmed), `thread of ${conv.tag}: a message the server had confirmed is gone`);
    const inFlight = conv.inFlight;
    if (inFlight) {
      const committed = messages.some((m) => m.message_id === inFlight[0]!.message_id);
      const isUser = inFlight[0]!.role === 'user';
      if (!committed) {
        if (isUser) assert.equal(messages.length, 0, `thread of ${conv.tag}: messages stored without the user's`);
        else {
          assert.equal(stored?.status, 'waiting', `thread of ${conv.tag}: results not stored, yet the thread does not wait`);
          const answered = inFlight[0]!.content.map((b) => (b.type === 'tool_result' ? b.call_id : '')).sort();
          assert.deepEqual(stored!.pending.map((c) => c.id).sort(), answered, `thread of ${conv.tag}: the pending calls changed`);
        }
        stats.resent++;
        return inFlight;
      }
      // Stored, but the client never learned it: a plain retry must be refused, not run twice.
      const epoch = this.chaos.epoch;
      let refusal: { status: number; body: any };
      try {
        refusal = await postInvoke(this.chaos.server.url, { messages: inFlight, config: { thread_id: conv.threadId } });
      } catch (error) {
        if (!this.chaos.killedSince(epoch)) throw error;
        return this.recover(conv);
      }
      assert.equal(refusal.status, 422, `thread of ${conv.tag}: a retry of stored ${isUser ? 'user message' : 'results'} was accepted: ${JSON.stringify(refusal.body)}`);
      if (isUser) {
        assert.equal(refusal.body.error.code, 'MISSING_TOOL_RESULTS');
        for (const call of stored!.pending) assert.ok(refusal.body.error.message.includes(call.id));
      } else {
        assert.equal(refusal.body.error.code, 'UNKNOWN_CALL_ID');
      }
      stats.refusedRetries++;
    }
    conv.inFlight = undefined;
    if (!stored || messages.length === 0) {
      stats.resent++;
      return [conv.user];
    }
    // Go on from the thread as the server tells it, which must be the stored thread.
    const epoch = this.chaos.epoch;
    let view: { messages: WireMessage[]; pending: RemoteToolCall[] };
    try {
      view = await this.threadView(conv.threadId);
    } catch (error) {
      if (!this.chaos.killedSince(epoch)) throw error;
      return this.recover(conv);
    }
    assert.deepEqual(said(view.messages), said(messages), `thread of ${conv.tag}: the server's state is not the stored thread`);
    assert.deepEqual(view.pending, stored.pending, `thread of ${conv.tag}: the server's pending calls are not the stored ones`);
    stats.fromServer++;
    conv.confirmed = view.messages;
    if (view.pending.length === 0) {
      assert.equal(stored.status, 'completed');
      conv.answer = lastText(view.messages);
      return undefined;
    }
    assert.equal(stored.status, 'waiting');
    const results = await this.client.tools.executeAll(view.pending, { thread_id: conv.threadId });
    return [Message.tool_message(results)];
  }

  /**
   * The thread's messages and the remote calls it waits for (its `remote_tool_call` blocks no
   * result answers, each with the ToolNode its message names), as `GET /v1/threads/{id}/state` tells them.
   */
  private async threadView(threadId: string): Promise<{ messages: WireMessage[]; pending: RemoteToolCall[] }> {
    const { state } = await this.client.threadState(threadId);
    assert.ok(state, `the server has no state for thread ${threadId}`);
    const nodes = new Map<string, unknown>();
    for (const message of state.context) for (const block of message.content) if (block.type === 'remote_tool_call') nodes.set(block.id, message.metadata?.node_name);
    const pending = pendingRemoteCalls(state.context).map((block) => ({
      id: block.id,
      name: block.name,
      args: block.args as Record<string, unknown>,
      node: String(nodes.get(block.id)),
    }));
    return { messages: state.context, pending };
  }
}

describe('SIGKILL at random points of the remote-tool loop', () => {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-faults-'));
  const planFile = join(folder, 'hold-plan.json');
  const server = new ApiProcess({ config: FAULT_AGENT_CONFIG, db: join(folder, 'threads.sqlite'), env: { TENXGRAPH_FAULT_PLAN: planFile } });
  let db: ThreadDb;

  before(async () => {
    writeFileSync(planFile, '');
    await server.start();
    db = new ThreadDb(join(folder, 'threads.sqlite'));
  });
  after(async () => {
    db?.close();
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  test(`${KILLS} kills: threads stay consistent and every client loop ends with its answer (seed ${SEED})`, { timeout: 240_000 }, async () => {
    const random = new Random(SEED);
    const chaos = new Chaos(server, db, planFile, random);
    let stopping = false;
    const workers = Array.from({ length: WORKERS }, (_, i) => new Worker(i, chaos, new Random(SEED + 1 + i)));
    const running = workers.map((worker) => worker.run(() => stopping));
    // A worker that fails stops the run at once rather than after every kill.
    let failure: unknown;
    const watched = running.map((p) =>
      p.catch((error: unknown) => {
        failure ??= error;
      }),
    );
    const started = Date.now();
    try {
      for (let k = 0; k < KILLS && failure === undefined; k++) await chaos.cycle();
    } catch (error) {
      // A kill point no client reaches any more (a worker failed): the worker's failure is the cause.
      failure ??= error;
    } finally {
      stopping = true;
      await Promise.all(watched);
    }
    if (failure !== undefined) throw failure;
    const threads = db.threads();
    assert.deepEqual(threads.flatMap(threadProblems), []);
    assert.deepEqual(
      threads.filter((t) => t.status !== 'completed').map((t) => t.threadId),
      [],
      'every thread ends completed',
    );
    assert.equal(threads.length, stats.conversations, 'one thread per conversation');
    assert.equal(server.starts, KILLS + 1);
    assert.doesNotMatch(server.allStderr, /failed|Error/, 'the server logged no failure');
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const kinds = KILL_KINDS.map((k) => `${k} ${stats.kills.get(k) ?? 0}`).join(', ');
    console.log(
      `faults: ${KILLS} kills in ${seconds} s (${kinds}); ${stats.conversations} conversations, ${stats.interrupted} interrupted; ` +
        `${stats.resent} retried as sent, ${stats.refusedRetries} stored retries refused, ${stats.fromServer} resumed from the thread's state; ` +
        `${stats.probes} waiting threads probed; ${stats.handlerRuns} handler runs`,
    );
    if (KILLS >= 20) {
      for (const kind of KILL_KINDS) assert.ok((stats.kills.get(kind) ?? 0) > 0, `no kill of kind ${kind}`);
      assert.ok(stats.interrupted > 0 && stats.refusedRetries > 0 && stats.resent > 0, 'the kills interrupted loops in every way');
    }
  });
});
