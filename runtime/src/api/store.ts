/**
 * Threads in SQLite: their messages, other state values, status and pending remote calls, so a
 * thread waiting on the client survives a server restart. A run's changes are written in one
 * transaction when it ends, so a crash mid-run leaves the thread as it was before the run.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Message, RemoteToolCall as RemoteCall } from '10xgraph-client/wire';
import type { Checkpoint } from '../graph/types';

/** A thread's status between runs. `new` is a thread no run has finished on yet. */
export type ThreadStatus = 'new' | 'completed' | 'waiting';

/** A thread as stored. */
export interface ThreadRecord {
  threadId: string;
  status: ThreadStatus;
  running: boolean;
  checkpoint: Checkpoint;
  /** How many messages are stored; a run's commit appends the rest of its state's messages. */
  messageCount: number;
  lastError?: { code: string; message: string };
}

const SCHEMA_VERSION = 1;

interface UpdateRow {
  id: string;
  status: ThreadStatus;
  interruptedAt: string | null;
  pending: string;
  values: string;
  count: number;
  error: string | null;
  now: string;
}

/** The thread store. One server process per database file. */
export class ThreadStore {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly statements: {
    thread: Database.Statement<[string]>;
    messages: Database.Statement<[string]>;
    create: Database.Statement<[{ id: string; now: string }]>;
    lock: Database.Statement<[string]>;
    unlock: Database.Statement<[string]>;
    append: Database.Statement<[string, number, string]>;
    update: Database.Statement<[UpdateRow]>;
  };
  private readonly commitTransaction: (threadId: string, checkpoint: Checkpoint, status: ThreadStatus, from: number, error: string | null) => void;

  /**
   * Opens (or creates) the store at `path` (`:memory:` for a throw-away one). Running flags are
   * cleared: whatever ran before this process started is not running now.
   */
  constructor(path: string) {
    this.path = path;
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('busy_timeout = 5000');
    if (path !== ':memory:') {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
    }
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      this.db.close();
      throw new Error(`The thread database ${path} was written by a newer 10xgraph (schema ${version}); use a newer 10xgraph or another --db.`);
    }
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS threads (
        thread_id TEXT PRIMARY KEY,
        status TEXT NOT NULL DEFAULT 'new',
        running INTEGER NOT NULL DEFAULT 0,
        values_json TEXT NOT NULL DEFAULT '{}',
        interrupted_at TEXT,
        pending_json TEXT NOT NULL DEFAULT '[]',
        message_count INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS messages (
        thread_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq)
      ) WITHOUT ROWID;
      PRAGMA user_version = ${SCHEMA_VERSION};
      UPDATE threads SET running = 0 WHERE running <> 0;
    `);
    this.statements = {
      thread: this.db.prepare('SELECT * FROM threads WHERE thread_id = ?'),
      messages: this.db.prepare('SELECT body FROM messages WHERE thread_id = ? ORDER BY seq'),
      create: this.db.prepare(`INSERT OR IGNORE INTO threads (thread_id, created_at, updated_at) VALUES (@id, @now, @now)`),
      lock: this.db.prepare('UPDATE threads SET running = 1 WHERE thread_id = ? AND running = 0'),
      unlock: this.db.prepare('UPDATE threads SET running = 0 WHERE thread_id = ?'),
      append: this.db.prepare('INSERT INTO messages (thread_id, seq, body) VALUES (?, ?, ?)'),
      update: this.db.prepare(
        'UPDATE threads SET status = @status, interrupted_at = @interruptedAt, pending_json = @pending, values_json = @values, message_count = @count, last_error = @error, updated_at = @now WHERE thread_id = @id',
      ),
    };
    this.commitTransaction = this.db.transaction((threadId: string, checkpoint: Checkpoint, status: ThreadStatus, from: number, error: string | null) => {
      const { messages, ...values } = checkpoint.state;
      for (let seq = from; seq < messages.length; seq++) this.statements.append.run(threadId, seq, JSON.stringify(messages[seq]));
      this.statements.update.run({
        id: threadId,
        status,
        interruptedAt: status === 'waiting' ? (checkpoint.interruptedAt ?? null) : null,
        pending: JSON.stringify(status === 'waiting' ? checkpoint.pending : []),
        values: JSON.stringify(values),
        count: messages.length,
        error,
        now: new Date().toISOString(),
      });
    });
  }

  /** Reads a thread, or undefined when no run has touched it. */
  load(threadId: string): ThreadRecord | undefined {
    const row = this.statements.thread.get(threadId) as
      | { status: ThreadStatus; running: number; values_json: string; interrupted_at: string | null; pending_json: string; message_count: number; last_error: string | null }
      | undefined;
    if (!row) return undefined;
    const messages = (this.statements.messages.all(threadId) as Array<{ body: string }>).map((r) => JSON.parse(r.body) as Message);
    const pending = JSON.parse(row.pending_json) as RemoteCall[];
    return {
      threadId,
      status: row.status,
      running: row.running !== 0,
      checkpoint: {
        state: { ...(JSON.parse(row.values_json) as Record<string, unknown>), messages },
        ...(row.interrupted_at !== null ? { interruptedAt: row.interrupted_at } : {}),
        pending,
      },
      messageCount: row.message_count,
      ...(row.last_error ? { lastError: JSON.parse(row.last_error) as { code: string; message: string } } : {}),
    };
  }

  /** Marks a thread running (creating it when new); false when it is running already. */
  tryLock(threadId: string): boolean {
    this.statements.create.run({ id: threadId, now: new Date().toISOString() });
    return this.statements.lock.run(threadId).changes === 1;
  }

  /** Clears a thread's running flag. */
  unlock(threadId: string): void {
    this.statements.unlock.run(threadId);
  }

  /**
   * Stores the outcome of a run in one transaction: appends the checkpoint's messages from index
   * `from` on, and saves status, pending calls, other values and the error (if the run failed).
   */
  commit(threadId: string, checkpoint: Checkpoint, status: ThreadStatus, from: number, error?: { code: string; message: string }): void {
    this.commitTransaction(threadId, checkpoint, status, from, error ? JSON.stringify(error) : null);
  }

  /** Closes the database. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
