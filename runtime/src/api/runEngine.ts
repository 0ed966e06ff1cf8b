/**
 * The runs of `10xgraph api`, whatever route starts them (invoke, stream, a WebSocket frame):
 * `prepare` locks the thread and checks the request against it, `execute` runs the graph from
 * the thread's checkpoint, emitting the chunks of the real 10xGraph wire (the request's messages
 * echoed, the model's text deltas, each message, an error), renews the lock's lease while it
 * goes and commits the outcome; `stop` ends a run a client asks to stop, and `drain` lets the
 * runs in flight finish when the server closes. The remote calls sent and the results answered
 * are logged here, with how long the client took.
 */
import { performance } from 'node:perf_hooks';
import type { AgentState, Message, RemoteToolCall as RemoteCall, RunMeta, StreamChunk, StreamEvent } from '10xgraph-client/wire';
import type { CompiledGraph } from '../graph/compiledGraph';
import { errorCodeOf, errorMessageOf } from '../graph/errors';
import { validateResume } from '../graph/resume';
import type { Checkpoint } from '../graph/types';
import type { Caller } from './access';
import { ApiError, runErrorOf } from './errors';
import { loadCrypto } from './lazy';
import type { ApiLogger } from './log';
import { shownValue } from './origin';
import { stateView, wireMessage } from './stateView';
import { LockLostError, StoreUnavailableError, type ThreadRecord, type ThreadStore } from './store/index';
import { busy, cancelledResults } from './threadRoutes';
import type { RunRequest } from './validate';

/** The graph a server runs: a compiled graph, possibly made by another copy of the library. */
export type ServableGraph = Pick<CompiledGraph, 'describe' | 'stream'>;

/** A run whose thread is locked and whose request fits the thread. */
export interface PreparedRun {
  threadId: string;
  runId: string;
  request: RunRequest;
  record: ThreadRecord;
  meta: RunMeta;
}

/** How a run ended, as invoke answers it. */
export interface RunOutcome {
  status: 'completed' | 'waiting' | 'error';
  /** The request's messages (their ids assigned), then those the run added. */
  messages: Message[];
  pending: RemoteCall[];
  /** The API's code (`NODE_MODEL_ERROR`, …) and HTTP status of a failed run. */
  error?: { code: string; message: string; status: number };
  /** The thread's state after the run, as the API shows it: made when the run's options or granularity ask for it. */
  state?: AgentState;
  meta: RunMeta;
}

/** What a run makes besides its outcome: the model's text deltas among its chunks, and the state after it. */
export interface EmitOptions {
  deltas: boolean;
  /** Make `RunOutcome.state` (invoke at `full` granularity); streams make it when their granularity sends it. */
  state?: boolean;
}

/** How many sent remote calls are remembered for the duration of their result. */
const MAX_REMEMBERED_CALLS = 10_000;

/** The events each granularity sends (the real server's filter). */
const EVENTS_OF: Record<RunRequest['granularity'], ReadonlySet<StreamEvent>> = {
  low: new Set(['message', 'error']),
  partial: new Set(['message', 'error', 'state']),
  full: new Set(['message', 'error', 'state', 'updates']),
};

/** A chunk with every key, those not given null. */
export function chunkOf(event: StreamEvent, fields: Partial<Omit<StreamChunk, 'event' | 'timestamp'>>): StreamChunk {
  return {
    event,
    message: fields.message ?? null,
    state: fields.state ?? null,
    data: fields.data ?? null,
    thread_id: fields.thread_id ?? null,
    run_id: fields.run_id ?? null,
    metadata: fields.metadata ?? null,
    timestamp: Date.now() / 1000,
  };
}

/** The runs of one server over one graph and one store. */
export class RunEngine {
  private readonly graph: ServableGraph;
  private readonly store: ThreadStore;
  private readonly log: ApiLogger;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Aborts the runs still going when the drain time is up. */
  private readonly stopRuns = new AbortController();
  /** The runs of this process by thread, for `stop`. */
  private readonly running = new Map<string, { stopper: AbortController; userId: string | undefined }>();
  /** When each remote call was sent to the client, for the duration logged with its result. */
  private readonly emittedAt = new Map<string, { at: number; threadId: string | undefined }>();
  private closing = false;

  constructor(graph: ServableGraph, store: ThreadStore, log: ApiLogger) {
    this.graph = graph;
    this.store = store;
    this.log = log;
  }

  /** Throws the 503 of a server shutting down; routes call it before they start new work. */
  refuseWhileClosing(): void {
    if (this.closing) throw new ApiError(503, 'SHUTTING_DOWN', 'The server is shutting down; send the request again once it is back.');
  }

  /**
   * Locks the thread (the lock and the read are one step, so no run can slip in between) and
   * checks the request against it, and `caller` against the thread (403 when it is another
   * user's; a new thread is recorded as the caller's). `idShownAfterCommit`: the id of a new thread is first shown
   * in the answer, after the commit, so nobody can name it before (invoke).
   */
  async prepare(request: RunRequest, caller: Caller, idShownAfterCommit = false): Promise<PreparedRun> {
    this.refuseWhileClosing();
    const named = request.threadId ?? this.threadAnswered(request);
    const threadId = named ?? loadCrypto().randomUUID();
    const runId = loadCrypto().randomUUID();
    let record: ThreadRecord | undefined;
    try {
      // Another user's thread is refused before its lock is taken: a refused caller never holds it, even for a moment.
      if (named !== undefined && caller.access.enabled) await caller.authorize(threadId, await this.store.userOf(threadId));
      const creator = caller.creator;
      record = await this.store.acquire(threadId, runId, { unseen: named === undefined && idShownAfterCommit, ...(creator === undefined ? {} : { userId: creator }) });
    } catch (error) {
      throw error instanceof StoreUnavailableError ? new ApiError(503, 'TRANSIENT_STORAGE_ERROR', error.message) : error;
    }
    if (!record) throw busy(threadId);
    // Another user's thread is refused before anything of it is read or run.
    try {
      await caller.authorize(threadId, record.userId);
    } catch (error) {
      await this.releaseQuietly(threadId, runId);
      throw error;
    }
    try {
      validateResume(record.checkpoint, request.messages);
    } catch (error) {
      await this.releaseQuietly(threadId, runId);
      const wire = runErrorOf(errorCodeOf(error) ?? 'unknown_call_id');
      throw new ApiError(wire.status, wire.code, `Thread '${threadId}': ${errorMessageOf(error)}`, [
        { loc: ['body', 'messages'], msg: errorMessageOf(error), type: 'value_error' },
      ]);
    }
    const known = new Set(record.checkpoint.state.messages.map((message) => message.message_id));
    const repeated = request.messages.find((message) => known.has(message.message_id));
    if (repeated) {
      await this.releaseQuietly(threadId, runId);
      const text = `Thread '${threadId}' already has a message '${repeated.message_id.slice(0, 100)}'; send another message_id, or "0" to let the server make one.`;
      throw new ApiError(422, 'VALIDATION_ERROR', text, [{ loc: ['body', 'messages', request.messages.indexOf(repeated), 'message_id'], msg: text, type: 'value_error' }]);
    }
    this.logResults(threadId, record.checkpoint.pending ?? [], request.messages);
    const meta: RunMeta = { is_new_thread: record.status === 'new' && record.messageCount === 0, thread_id: threadId };
    return { threadId, runId, request, record, meta };
  }

  /**
   * Runs a prepared run to its end, `emit`ting its chunks as the request's granularity keeps
   * them, and commits its outcome; never throws. Tracked, so `drain` waits for it.
   */
  execute(prepared: PreparedRun, emit: ((chunk: StreamChunk) => void) | undefined, options: EmitOptions = { deltas: false }): Promise<RunOutcome> {
    const run = this.run(prepared, emit, options);
    this.inFlight.add(run);
    const forget = () => this.inFlight.delete(run);
    run.then(forget, forget);
    return run;
  }

  /**
   * The thread a request without `config.thread_id` resumes: when it holds only tool results,
   * for remote calls this process handed to the client from one thread. `@10xscale/agentflow-client`
   * sends the results of a new thread's calls so (it never reads the thread's id back), and the
   * Python server starts a new thread and refuses them; here they reach the thread that waits.
   */
  private threadAnswered(request: RunRequest): string | undefined {
    let threadId: string | undefined;
    for (const message of request.messages) {
      for (const block of message.content) {
        if (block.type !== 'tool_result') return undefined;
        const owner = this.emittedAt.get(block.call_id)?.threadId;
        if (owner === undefined || (threadId !== undefined && owner !== threadId)) return undefined;
        threadId = owner;
      }
    }
    return threadId;
  }

  /**
   * Stops the run this process has going on `threadId`: true when there was one. It ends at the
   * step it was in, as a completed run with the messages it made so far. With `userId` (null: no
   * user), only a run on a thread of that user is stopped: the owner the caller was checked against.
   */
  stop(threadId: string, userId?: string | null): boolean {
    const run = this.running.get(threadId);
    if (!run || (userId !== undefined && run.userId !== (userId ?? undefined))) return false;
    run.stopper.abort();
    return true;
  }

  /**
   * Refuses new runs, lets the runs in flight finish within `drainMs`, then aborts the rest (their
   * threads stay as they were) and waits for them a little longer.
   */
  async drain(drainMs: number): Promise<void> {
    this.closing = true;
    const drained = Promise.allSettled([...this.inFlight]);
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([drained.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), drainMs)))]);
    clearTimeout(timer);
    if (late) {
      this.stopRuns.abort();
      await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
    }
  }

  private async run(prepared: PreparedRun, emit: ((chunk: StreamChunk) => void) | undefined, options: EmitOptions): Promise<RunOutcome> {
    const { threadId, runId, request, record, meta } = prepared;
    const store = this.store;
    const keep = EVENTS_OF[request.granularity];
    // Chunks nobody reads (invoke's) are not made.
    const send = (event: StreamEvent, fields: Partial<Omit<StreamChunk, 'event' | 'timestamp'>>) => {
      if (!emit || !keep.has(event)) return;
      const message = fields.message ? wireMessage(fields.message) : null;
      emit(chunkOf(event, { thread_id: threadId, run_id: runId, ...fields, message, metadata: { ...fields.metadata, ...meta } }));
    };
    let checkpoint: Checkpoint = record.checkpoint;
    const outcome: RunOutcome = { status: 'error', messages: [], pending: [], meta };
    let committed = false;
    let stopped = false;
    const renewal = this.renewLease(threadId, runId);
    // One signal per run, aborted by a stop of its thread or by the server's drain.
    const stopper = new AbortController();
    const drained = () => stopper.abort();
    this.stopRuns.signal.addEventListener('abort', drained, { once: true });
    const running = { stopper, userId: record.userId };
    this.running.set(threadId, running);
    const fail = (code: string, message: string) => {
      const wire = runErrorOf(code);
      outcome.error = { code: wire.code, message, status: wire.status };
      send('error', { data: { reason: message, code: wire.code } });
    };
    send('updates', { data: { status: 'invoking_graph', reason: 'The graph starts', is_new_thread: meta.is_new_thread } });
    // The request's messages first, their ids as the thread keeps them.
    for (const message of request.messages) {
      outcome.messages.push(message);
      send('message', { message, metadata: { status: 'invoking_graph', reason: `initial ${message.role} message` } });
    }
    try {
      for await (const event of this.graph.stream(
        { messages: request.messages, ...(request.values ? { values: request.values } : {}) },
        {
          checkpoint: record.checkpoint,
          recursionLimit: request.recursionLimit,
          threadId,
          signal: stopper.signal,
          deltas: options.deltas,
        },
      )) {
        if (event.type === 'delta') {
          send('message', { message: event.message, metadata: { node_name: event.node } });
        } else if (event.type === 'message') {
          outcome.messages.push(event.message);
          send('message', { message: event.message, metadata: { node_name: event.node } });
        } else if (event.type === 'remote_tool_calls') {
          outcome.pending = event.calls;
          this.logCalls(threadId, event.calls);
        } else if (event.type === 'error') {
          // A run a client stopped is no failure: it ends where it was, the messages it made kept (as the Python server does).
          if (stopper.signal.aborted && !this.stopRuns.signal.aborted) {
            stopped = true;
            send('updates', { data: { status: 'stopped', reason: 'Graph execution stopped by request' } });
          } else fail(event.code, event.message);
        } else if (event.type === 'end') {
          clearInterval(renewal);
          committed = true;
          checkpoint = event.checkpoint;
          // Stopped as it handed calls to the client: they are cancelled, as a stop between runs cancels them.
          if (stopper.signal.aborted && !this.stopRuns.signal.aborted && event.status === 'waiting') {
            stopped = true;
            const cancelled = cancelledResults(checkpoint.pending);
            outcome.messages.push(cancelled);
            send('message', { message: cancelled });
            checkpoint = { state: { ...checkpoint.state, messages: [...checkpoint.state.messages, cancelled] }, pending: [] };
            outcome.pending = [];
          }
          await store.commit(threadId, runId, {
            checkpoint,
            status: checkpoint.pending.length > 0 ? 'waiting' : 'completed',
            from: record.messageCount,
            ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
          });
          outcome.status = outcome.error ? 'error' : stopped || checkpoint.pending.length === 0 ? 'completed' : 'waiting';
          break;
        }
      }
      if (outcome.status === 'error' && !outcome.error) throw new Error('the graph stopped without an end event');
    } catch (error) {
      outcome.status = 'error';
      outcome.pending = [];
      checkpoint = record.checkpoint;
      if (error instanceof StoreUnavailableError || error instanceof LockLostError) {
        this.log.error(`Run ${runId} on thread '${threadId}' was not stored: ${error.message}`);
        fail(error instanceof LockLostError ? 'THREAD_BUSY' : 'TRANSIENT_STORAGE_ERROR', `${error.message} The thread is left as it was before the run.`);
      } else {
        // A graph that throws (rather than ending with an error event) is a server failure.
        this.log.error(`Run ${runId} on thread '${threadId}' failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        fail('INTERNAL_SERVER_ERROR', `The run failed inside the server (${errorMessageOf(error)}); the thread is left as it was before the run.`);
      }
    } finally {
      clearInterval(renewal);
      this.stopRuns.signal.removeEventListener('abort', drained);
      if (this.running.get(threadId) === running) this.running.delete(threadId);
      // A commit releases the lock whether it succeeds or not; every other path releases it here.
      if (!committed) await this.releaseQuietly(threadId, runId);
    }
    if (options.state || (emit && keep.has('state'))) {
      outcome.state = stateView(threadId, checkpoint, outcome.status === 'waiting' ? 'interrupted_after' : outcome.status === 'error' ? 'error' : 'completed');
      send('state', { state: outcome.state });
    }
    send('updates', {
      data: {
        status: 'graph_invoked',
        reason: outcome.error ? outcome.error.message : outcome.status === 'waiting' ? 'Remote tool call - graph interrupted' : 'Graph execution completed successfully',
        is_interrupted: outcome.status === 'waiting',
        total_messages: checkpoint.state.messages.length,
      },
    });
    return outcome;
  }

  /** Renews the run's lease while it goes (stores whose locks expire); a renewal that fails is retried at the next tick. */
  private renewLease(threadId: string, runId: string): NodeJS.Timeout | undefined {
    const store = this.store;
    if (!Number.isFinite(store.leaseMs)) return undefined;
    const renewal = setInterval(
      () => {
        store.renew(threadId, runId).then(
          (held) => {
            if (!held) this.log.warn(`Run ${runId} on thread '${threadId}' no longer holds the thread's lock; its outcome will not be stored.`);
          },
          () => {},
        );
      },
      Math.max(50, Math.floor(store.leaseMs / 3)),
    );
    renewal.unref();
    return renewal;
  }

  /** Releases a lock without throwing: a lock that cannot be released now runs out with its lease. */
  private async releaseQuietly(threadId: string, runId: string): Promise<void> {
    try {
      await this.store.release(threadId, runId);
    } catch (error) {
      this.log.warn(`Thread '${threadId}': its lock could not be released (${errorMessageOf(error)}); it is free again within ${Math.round(this.store.leaseMs / 1000)} s.`);
    }
  }

  /** One record per remote call sent to the client. */
  private logCalls(threadId: string, calls: readonly RemoteCall[]): void {
    const now = performance.now();
    for (const call of calls) {
      this.remember(call.id, now, threadId);
      this.log.info(`Remote call ${call.id} to ${shownValue(call.name)} on ${shownValue(call.node)} sent to the client (thread ${shownValue(threadId)})`, {
        event: 'remote_call',
        thread_id: threadId,
        call_id: call.id,
        tool: call.name,
        node: call.node,
      });
    }
  }

  /** One record per result a client answered a pending call with, and how long the client took. */
  private logResults(threadId: string, pending: readonly RemoteCall[], messages: readonly Message[]): void {
    if (pending.length === 0) return;
    const byId = new Map(pending.map((call) => [call.id, call]));
    const now = performance.now();
    for (const message of messages) {
      for (const block of message.content) {
        const call = block.type === 'tool_result' ? byId.get(block.call_id) : undefined;
        if (!call || block.type !== 'tool_result') continue;
        const sent = this.emittedAt.get(call.id)?.at;
        this.emittedAt.delete(call.id);
        // Unknown when the call was sent by an earlier process or another instance.
        const duration = sent === undefined ? undefined : Math.round(now - sent);
        this.log.info(
          `Remote call ${call.id} to ${shownValue(call.name)} on ${shownValue(call.node)} answered ${block.status}${duration === undefined ? '' : ` after ${duration} ms`} (thread ${shownValue(threadId)})`,
          { event: 'remote_result', thread_id: threadId, call_id: call.id, tool: call.name, node: call.node, status: block.status, duration_ms: duration ?? null },
        );
      }
    }
  }

  private remember(callId: string, at: number, threadId: string): void {
    // Bounded: calls never answered must not grow the map for the life of the process.
    if (this.emittedAt.size >= MAX_REMEMBERED_CALLS) this.emittedAt.delete(this.emittedAt.keys().next().value as string);
    // An id handed out from two threads (model ids are unique only within a turn) names neither.
    const earlier = this.emittedAt.get(callId);
    this.emittedAt.set(callId, { at, threadId: earlier !== undefined && earlier.threadId !== threadId ? undefined : threadId });
  }
}
