/**
 * The runs of `10xgraph api`, whatever route starts them (invoke, stream, a WebSocket frame):
 * `prepare` locks the thread and checks the request against it, `execute` runs the graph from
 * the thread's checkpoint, renews the lock's lease while it goes and commits the outcome, and
 * `drain` lets the runs in flight finish when the server closes. The remote calls sent and the
 * results answered are logged here, with how long the client took.
 */
import { performance } from 'node:perf_hooks';
import type { Message, RemoteToolCall as RemoteCall, StreamChunk } from '10xgraph-client/wire';
import type { CompiledGraph } from '../graph/compiledGraph';
import { errorCodeOf, errorMessageOf } from '../graph/errors';
import { validateResume } from '../graph/resume';
import { ApiError, statusForRunError } from './errors';
import { loadCrypto } from './lazy';
import type { ApiLogger } from './log';
import { shownValue } from './origin';
import { LockLostError, StoreUnavailableError, type ThreadRecord, type ThreadStore } from './store/index';
import { busy } from './threadRoutes';
import type { RunRequest } from './validate';

/** The graph a server runs: a compiled graph, possibly made by another copy of the library. */
export type ServableGraph = Pick<CompiledGraph, 'describe' | 'stream'>;

/** A run whose thread is locked and whose request fits the thread. */
export interface PreparedRun {
  threadId: string;
  runId: string;
  request: RunRequest;
  record: ThreadRecord;
}

/** How a run ended, as invoke answers it. */
export interface RunOutcome {
  status: 'completed' | 'waiting' | 'error';
  messages: Message[];
  pending: RemoteCall[];
  error?: { code: string; message: string };
}

/** How many sent remote calls are remembered for the duration of their result. */
const MAX_REMEMBERED_CALLS = 10_000;

/** The runs of one server over one graph and one store. */
export class RunEngine {
  private readonly graph: ServableGraph;
  private readonly store: ThreadStore;
  private readonly log: ApiLogger;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Aborts the runs still going when the drain time is up. */
  private readonly stopRuns = new AbortController();
  /** When each remote call was sent to the client, for the duration logged with its result. */
  private readonly emittedAt = new Map<string, number>();
  private closing = false;

  constructor(graph: ServableGraph, store: ThreadStore, log: ApiLogger) {
    this.graph = graph;
    this.store = store;
    this.log = log;
  }

  /** Throws the 503 of a server shutting down; routes call it before they start new work. */
  refuseWhileClosing(): void {
    if (this.closing) throw new ApiError(503, 'shutting_down', 'The server is shutting down; send the request again once it is back.');
  }

  /**
   * Locks the thread (the lock and the read are one step, so no run can slip in between) and
   * checks the request against it. `idShownAfterCommit`: the id of a new thread is first shown
   * in the answer, after the commit, so nobody can name it before (invoke).
   */
  async prepare(request: RunRequest, idShownAfterCommit = false): Promise<PreparedRun> {
    this.refuseWhileClosing();
    const threadId = request.threadId ?? loadCrypto().randomUUID();
    const runId = loadCrypto().randomUUID();
    let record: ThreadRecord | undefined;
    try {
      record = await this.store.acquire(threadId, runId, { unseen: request.threadId === undefined && idShownAfterCommit });
    } catch (error) {
      throw error instanceof StoreUnavailableError ? new ApiError(503, 'store_unavailable', error.message) : error;
    }
    if (!record) throw busy(threadId);
    try {
      validateResume(record.checkpoint, request.messages);
    } catch (error) {
      await this.releaseQuietly(threadId, runId);
      const code = errorCodeOf(error) ?? 'invalid_request';
      throw new ApiError(code === 'invalid_request' ? 400 : statusForRunError(code), code, `Thread '${threadId}': ${errorMessageOf(error)}`);
    }
    this.logResults(threadId, record.checkpoint.pending ?? [], request.messages);
    return { threadId, runId, request, record };
  }

  /**
   * Runs a prepared run to its end, `emit`ting each chunk (metadata first, end last), and
   * commits its outcome; never throws. Tracked, so `drain` waits for it.
   */
  execute(prepared: PreparedRun, emit: (chunk: StreamChunk) => void): Promise<RunOutcome> {
    const run = this.run(prepared, emit);
    this.inFlight.add(run);
    const forget = () => this.inFlight.delete(run);
    run.then(forget, forget);
    return run;
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

  private async run(prepared: PreparedRun, emit: (chunk: StreamChunk) => void): Promise<RunOutcome> {
    const { threadId, runId, request, record } = prepared;
    const store = this.store;
    const outcome: RunOutcome = { status: 'error', messages: [], pending: [] };
    let committed = false;
    const renewal = this.renewLease(threadId, runId);
    emit({ event: 'metadata', data: { thread_id: threadId, run_id: runId } });
    try {
      for await (const event of this.graph.stream(
        { messages: request.messages },
        { checkpoint: record.checkpoint, recursionLimit: request.recursionLimit, threadId, signal: this.stopRuns.signal },
      )) {
        if (event.type === 'message') {
          outcome.messages.push(event.message);
          emit({ event: 'message', data: event.message });
        } else if (event.type === 'remote_tool_calls') {
          outcome.pending = event.calls;
          this.logCalls(threadId, event.calls);
          emit({ event: 'remote_tool_calls', data: { thread_id: threadId, calls: event.calls } });
        } else if (event.type === 'error') {
          outcome.error = { code: event.code, message: event.message };
          emit({ event: 'error', data: outcome.error });
        } else if (event.type === 'end') {
          clearInterval(renewal);
          committed = true;
          await store.commit(threadId, runId, {
            checkpoint: event.checkpoint,
            status: event.status === 'waiting' ? 'waiting' : 'completed',
            from: record.messageCount,
            ...(outcome.error ? { error: outcome.error } : {}),
          });
          outcome.status = outcome.error ? 'error' : event.status;
          break;
        }
      }
      if (outcome.status === 'error' && !outcome.error) throw new Error('the graph stopped without an end event');
    } catch (error) {
      outcome.status = 'error';
      outcome.pending = [];
      if (error instanceof StoreUnavailableError || error instanceof LockLostError) {
        this.log.error(`Run ${runId} on thread '${threadId}' was not stored: ${error.message}`);
        outcome.error = { code: error instanceof LockLostError ? 'thread_busy' : 'store_unavailable', message: `${error.message} The thread is left as it was before the run.` };
      } else {
        this.log.error(`Run ${runId} on thread '${threadId}' failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        outcome.error = { code: 'internal_error', message: `The run failed inside the server (${errorMessageOf(error)}); the thread is left as it was before the run.` };
      }
      emit({ event: 'error', data: outcome.error });
    } finally {
      clearInterval(renewal);
      // A commit releases the lock whether it succeeds or not; every other path releases it here.
      if (!committed) await this.releaseQuietly(threadId, runId);
    }
    emit({ event: 'end', data: { thread_id: threadId, status: outcome.status } });
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
      this.remember(call.id, now);
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
        const sent = this.emittedAt.get(call.id);
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

  private remember(callId: string, at: number): void {
    // Bounded: calls never answered must not grow the map for the life of the process.
    if (this.emittedAt.size >= MAX_REMEMBERED_CALLS) this.emittedAt.delete(this.emittedAt.keys().next().value as string);
    this.emittedAt.set(callId, at);
  }
}
