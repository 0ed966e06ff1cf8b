/**
 * The thread store contract: threads (status, other state values, pending remote calls), their
 * messages and the run lock, behind one asynchronous interface that SQLite (embedded, one
 * process) and PostgreSQL (shared by several `10xgraph api` processes) both implement.
 *
 * The run lock is a lease: `acquire` takes it for `leaseMs`, a run renews it while it goes on,
 * and a lock whose lease ran out is free for the next run. A process killed mid-run therefore
 * holds its threads no longer than one lease.
 */
import { MAX_THREAD_ID_LENGTH } from '10xgraph-client/wire';
import type { Message, RemoteCall } from '../../graph/messages';
import type { Checkpoint } from '../../graph/types';

/** A thread's status between runs. `new` is a thread no run has finished on yet. */
export type ThreadStatus = 'new' | 'completed' | 'waiting';

/** A run's error as stored with the thread. */
export interface StoredError {
  code: string;
  message: string;
}

/** A thread as stored. */
export interface ThreadRecord {
  threadId: string;
  status: ThreadStatus;
  /** Whether a run holds the thread's lock (and its lease has not run out). */
  running: boolean;
  checkpoint: Checkpoint;
  /** How many messages are stored; a run's commit appends the rest of its state's messages. */
  messageCount: number;
  lastError?: StoredError;
  /** The user whose run created the thread; absent when it was created without one (or before threads had users). */
  userId?: string;
  createdAt: string;
  updatedAt: string;
}

/** A page of a thread's messages, with the thread's status: what `GET /v1/threads/{id}` shows. */
export interface ThreadPage {
  threadId: string;
  status: ThreadStatus;
  running: boolean;
  messageCount: number;
  /** The messages from index `offset` on, at most `limit` of them. */
  messages: Message[];
  offset: number;
  pending: RemoteCall[];
  lastError?: StoredError;
  /** The user whose run created the thread, as in `ThreadRecord`. */
  userId?: string;
  createdAt: string;
  updatedAt: string;
}

/** A thread in a listing: what `GET /v1/threads` shows of each, without its messages. */
export interface ThreadSummary {
  threadId: string;
  status: ThreadStatus;
  running: boolean;
  messageCount: number;
  /** The user whose run created the thread, as in `ThreadRecord`. */
  userId?: string;
  createdAt: string;
  updatedAt: string;
}

/** Which threads `list` returns. */
export interface ThreadListOptions {
  /** Only threads whose id contains this text, ignoring case (taken literally: `%` and `_` are no wildcards). */
  search?: string;
  /** Only the threads of this user (exactly); threads without a user are then not listed. */
  userId?: string;
  offset: number;
  limit: number;
}

/** What a run stores when it ends. */
export interface RunCommit {
  checkpoint: Checkpoint;
  status: Exclude<ThreadStatus, 'new'>;
  /**
   * The index of the first message the run added (the stored count when it started); with
   * `rewrite`, the first stored message it replaces (at most the stored count).
   */
  from: number;
  /**
   * Replaces the stored messages from `from` on with the state's (fewer, more or none), rather than
   * appending: how an edit of the thread (a message deleted, the state cleared or put) is stored.
   */
  rewrite?: boolean;
  error?: StoredError;
}

/** How `acquire` takes a thread. */
export interface AcquireOptions {
  /**
   * The caller made the thread id up just now (a random UUID) and shows it to nobody before the
   * run commits, as `POST /v1/graph/invoke` without a thread does: no stored thread and no other
   * run can have it, so the store reads and writes nothing until the commit. The thread exists
   * for this store's own readers while the run goes on, as any running thread does.
   */
  unseen?: boolean;
  /**
   * The user of the run: recorded as the thread's user when this acquire creates the thread (with
   * `unseen`, stored by the first commit), never changed for a thread that exists. A thread that
   * was acquired and never committed (its run crashed, or was released) does not exist yet: the
   * acquire that next takes it records its own user. The record `acquire` returns carries the
   * thread's user, which for an existing thread may be another user's, or none.
   */
  userId?: string;
}

/** Which thread `delete` may delete. */
export interface DeleteOptions {
  /** Only the thread whose recorded user is this one (null: a thread with no user). */
  userId?: string | null;
}

/** The outcome of a delete. */
export type DeleteOutcome = 'deleted' | 'missing' | 'busy';

/** The default lease of a run lock: a killed process holds its threads at most this long. */
export const DEFAULT_LEASE_MS = 30_000;

/**
 * The thread store. Every method is one transaction: a crash never leaves half of a step.
 * Methods throw `StoreUnavailableError` when the database cannot be reached or is held by
 * another process beyond the store's bound; the server answers 503 for it.
 */
export interface ThreadStore {
  /** `sqlite` or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';
  /** Where the threads live, for messages (a file path, or a URL without its password). */
  readonly location: string;
  /** How long a run lock lasts without renewal, in milliseconds (infinite where locks die with the process). */
  readonly leaseMs: number;
  /**
   * Takes the run lock of a thread for `owner` (creating the thread when new) and reads it in the
   * same step. Undefined when another run holds the lock.
   */
  acquire(threadId: string, owner: string, options?: AcquireOptions): Promise<ThreadRecord | undefined>;
  /** Extends `owner`'s lease; false when the lock is no longer `owner`'s. */
  renew(threadId: string, owner: string): Promise<boolean>;
  /**
   * Stores a run's outcome and releases its lock, in one transaction. Throws `LockLostError`
   * (storing nothing) when the lock is no longer `owner`'s, and `RangeError` (storing nothing,
   * releasing the lock) for a rewrite from beyond the stored messages.
   */
  commit(threadId: string, owner: string, outcome: RunCommit): Promise<void>;
  /** Releases `owner`'s lock without storing anything; a thread the run created empty is dropped. */
  release(threadId: string, owner: string): Promise<void>;
  /** Reads a thread, or undefined when no run has touched it. */
  load(threadId: string): Promise<ThreadRecord | undefined>;
  /**
   * The user recorded as the thread's creator (a run going on a new thread included), read alone:
   * undefined when it has none or there is no such thread. What a caller is checked against before
   * anything takes the thread's lock.
   */
  userOf(threadId: string): Promise<string | undefined>;
  /** Reads a thread's status and the messages from `offset` on (at most `limit`); undefined when there is no such thread. */
  page(threadId: string, offset: number, limit: number): Promise<ThreadPage | undefined>;
  /**
   * The committed threads, the most recently updated first (then by id), from `offset` on, at most
   * `limit` of them. A thread that has only been acquired, with nothing committed yet, is not listed.
   */
  list(options: ThreadListOptions): Promise<ThreadSummary[]>;
  /**
   * Deletes a thread and its messages, unless a run holds it. With `userId` (null: no user), only a
   * thread recorded as that user's is deleted, checked in the same step: one made by another user
   * since the caller looked is `missing` and stays.
   */
  delete(threadId: string, options?: DeleteOptions): Promise<DeleteOutcome>;
  /** Closes the database (waiting for nothing: callers finish their runs first). */
  close(): Promise<void>;
}

/** The database cannot be used right now (down, restarting, locked by another process). */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** A run's lease ran out and another run took the thread: the outcome was not stored. */
export class LockLostError extends Error {
  constructor(threadId: string) {
    super(`The run lost the lock of thread '${threadId}' (its lease ran out while it ran) and its outcome was not stored; send the request again.`);
    this.name = 'LockLostError';
  }
}

/** The database was written by a newer 10xgraph, or cannot be opened or migrated. */
export class StoreOpenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreOpenError';
  }
}

/** A thread no run has stored yet, as `acquire` hands it to its first run (of `userId`, when there is one). */
export function newRecord(threadId: string, userId?: string): ThreadRecord {
  const now = new Date().toISOString();
  return {
    threadId,
    status: 'new',
    running: false,
    checkpoint: { state: { messages: [] }, pending: [] },
    messageCount: 0,
    ...(userId !== undefined ? { userId } : {}),
    createdAt: now,
    updatedAt: now,
  };
}

/** The page of a thread that a run holds and no commit has stored yet: no messages, nothing pending. */
export function newPage(threadId: string, offset: number, userId?: string): ThreadPage {
  const now = new Date().toISOString();
  return {
    threadId,
    status: 'new',
    running: true,
    messageCount: 0,
    messages: [],
    offset,
    pending: [],
    ...(userId !== undefined ? { userId } : {}),
    createdAt: now,
    updatedAt: now,
  };
}

/** Splits a checkpoint into what the row keeps: the non-message values, the pending calls and where it stopped. */
export function rowValues(outcome: RunCommit): { values: string; pending: string; interruptedAt: string | null; count: number; error: string | null } {
  const { messages, ...values } = outcome.checkpoint.state;
  const waiting = outcome.status === 'waiting';
  return {
    values: JSON.stringify(values),
    pending: JSON.stringify(waiting ? outcome.checkpoint.pending : []),
    interruptedAt: waiting ? (outcome.checkpoint.interruptedAt ?? null) : null,
    count: messages.length,
    error: outcome.error ? JSON.stringify(outcome.error) : null,
  };
}

/** The columns of a thread row both stores read, as text. */
export interface ThreadRow {
  status: ThreadStatus;
  values_json: string;
  interrupted_at: string | null;
  pending_json: string;
  message_count: number;
  last_error: string | null;
  user_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Builds a record from a row and its message bodies. */
export function recordOf(threadId: string, row: ThreadRow, running: boolean, bodies: readonly string[]): ThreadRecord {
  const messages = bodies.map((body) => JSON.parse(body) as Message);
  return {
    threadId,
    status: row.status,
    running,
    checkpoint: {
      state: { ...(JSON.parse(row.values_json) as Record<string, unknown>), messages },
      ...(row.interrupted_at !== null ? { interruptedAt: row.interrupted_at } : {}),
      pending: JSON.parse(row.pending_json) as RemoteCall[],
    },
    messageCount: Number(row.message_count),
    ...(row.last_error ? { lastError: JSON.parse(row.last_error) as StoredError } : {}),
    ...(row.user_id !== null ? { userId: row.user_id } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns of a thread row a listing reads. */
export type ThreadSummaryRow = Pick<ThreadRow, 'status' | 'message_count' | 'user_id' | 'created_at' | 'updated_at'> & { thread_id: string };

/** Builds a listing's entry from a row. */
export function buildSummary(row: ThreadSummaryRow, running: boolean): ThreadSummary {
  return {
    threadId: row.thread_id,
    status: row.status,
    running,
    messageCount: Number(row.message_count),
    ...(row.user_id !== null ? { userId: row.user_id } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The LIKE pattern (escape character `\`) of ids containing `search` literally; undefined when no
 * id can contain it (it is longer than any thread id), so the store need not ask the database.
 */
export function buildSearchPattern(search: string | undefined): string | undefined {
  if (search === undefined) return '%';
  if (search.length > MAX_THREAD_ID_LENGTH) return undefined;
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The refusal of a rewrite that would leave a gap in a thread's messages. */
export function rewriteBeyondMessage(threadId: string, from: number, count: number): string {
  return `Cannot rewrite the messages of thread '${threadId}' from index ${from}: it has ${count} stored message${count === 1 ? '' : 's'}; rewrite from an index at most that.`;
}

/** Builds a page from a row and the bodies of its messages from `offset` on. */
export function pageOf(threadId: string, row: ThreadRow, running: boolean, offset: number, bodies: readonly string[]): ThreadPage {
  return {
    threadId,
    status: row.status,
    running,
    messageCount: Number(row.message_count),
    messages: bodies.map((body) => JSON.parse(body) as Message),
    offset,
    pending: JSON.parse(row.pending_json) as RemoteCall[],
    ...(row.last_error ? { lastError: JSON.parse(row.last_error) as StoredError } : {}),
    ...(row.user_id !== null ? { userId: row.user_id } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
