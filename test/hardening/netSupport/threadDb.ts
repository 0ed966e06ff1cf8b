/**
 * Reads `10xgraph api`'s thread database read-only (the run lock is not in it: it lives in the
 * server process's memory), beside the running server (WAL lets a
 * reader in while it writes), and checks each thread's consistency: contiguous messages, no
 * message or tool result twice, pending calls exactly the unanswered remote calls.
 */
import Database from 'better-sqlite3';
import type { Message, RemoteToolCall } from '../../../client-sdk/src';

/** A thread as the database holds it. */
export interface StoredThread {
  threadId: string;
  status: 'new' | 'completed' | 'waiting';
  pending: RemoteToolCall[];
  messageCount: number;
  messages: Message[];
  seqs: number[];
  updatedAt: string;
  lastError: string | null;
}

interface ThreadRow {
  thread_id: string;
  status: StoredThread['status'];
  pending_json: string;
  message_count: number;
  updated_at: string;
  last_error: string | null;
}

/** A read-only view of a thread database. */
export class ThreadDb {
  private readonly db: Database.Database;
  private readonly rowOf: Database.Statement<[string]>;
  private readonly rows: Database.Statement<[]>;
  private readonly messagesOf: Database.Statement<[string]>;

  constructor(path: string) {
    this.db = new Database(path, { readonly: true, fileMustExist: true });
    this.rowOf = this.db.prepare('SELECT * FROM threads WHERE thread_id = ?');
    this.rows = this.db.prepare('SELECT * FROM threads ORDER BY thread_id');
    this.messagesOf = this.db.prepare('SELECT seq, body FROM messages WHERE thread_id = ? ORDER BY seq');
  }

  /** One thread, or undefined when no run has touched it. */
  thread(threadId: string): StoredThread | undefined {
    // One read transaction, so the row and its messages come from the same commit.
    return this.db.transaction(() => {
      const row = this.rowOf.get(threadId) as ThreadRow | undefined;
      return row ? this.toThread(row) : undefined;
    })();
  }

  /** Every thread, read in one transaction. */
  threads(): StoredThread[] {
    return this.db.transaction(() => (this.rows.all() as ThreadRow[]).map((row) => this.toThread(row)))();
  }

  /** Runs a read-only query (for cheap progress polls). */
  scalar(sql: string, ...params: unknown[]): unknown {
    return this.db
      .prepare(sql)
      .pluck()
      .get(...params);
  }

  /** Closes the read-only connection. */
  close(): void {
    this.db.close();
  }

  private toThread(row: ThreadRow): StoredThread {
    const stored = this.messagesOf.all(row.thread_id) as Array<{ seq: number; body: string }>;
    return {
      threadId: row.thread_id,
      status: row.status,
      pending: JSON.parse(row.pending_json) as RemoteToolCall[],
      messageCount: row.message_count,
      messages: stored.map((r) => JSON.parse(r.body) as Message),
      seqs: stored.map((r) => r.seq),
      updatedAt: row.updated_at,
      lastError: row.last_error,
    };
  }
}

/** The remote calls of a thread that no `tool_result` answers yet, in order. */
export function unansweredRemoteCalls(messages: readonly Message[]): Array<{ id: string; name: string; args: unknown }> {
  const answered = new Set<string>();
  for (const message of messages) for (const block of message.content) if (block.type === 'tool_result') answered.add(block.call_id);
  const open: Array<{ id: string; name: string; args: unknown }> = [];
  for (const message of messages) {
    for (const block of message.content) if (block.type === 'remote_tool_call' && !answered.has(block.id)) open.push({ id: block.id, name: block.name, args: block.args });
  }
  return open;
}

/**
 * The consistency problems of one stored thread (empty when consistent): messages numbered
 * 0..n-1 and counted, each message and each tool result once, every result answering a remote
 * call, and the status agreeing with the calls left open.
 */
export function threadProblems(thread: StoredThread): string[] {
  const problems: string[] = [];
  const where = `thread ${thread.threadId}`;
  if (thread.seqs.some((seq, i) => seq !== i)) problems.push(`${where}: message seqs are not 0..n-1: ${thread.seqs.join(',')}`);
  if (thread.messageCount !== thread.messages.length) problems.push(`${where}: message_count ${thread.messageCount} but ${thread.messages.length} rows`);
  const ids = thread.messages.map((m) => m.message_id);
  if (new Set(ids).size !== ids.length) problems.push(`${where}: a message is stored twice: ${ids.join(',')}`);
  const calls = new Set<string>();
  const results = new Map<string, number>();
  for (const message of thread.messages) {
    for (const block of message.content) {
      if (block.type === 'remote_tool_call') calls.add(block.id);
      if (block.type === 'tool_result') results.set(block.call_id, (results.get(block.call_id) ?? 0) + 1);
    }
  }
  for (const [id, count] of results) {
    if (count > 1) problems.push(`${where}: ${count} tool results for call ${id}`);
    if (!calls.has(id)) problems.push(`${where}: a tool result for ${id}, which is no remote call of the thread`);
  }
  const open = unansweredRemoteCalls(thread.messages).map((c) => c.id);
  const pending = thread.pending.map((c) => c.id);
  if (thread.status === 'waiting') {
    if (pending.length === 0) problems.push(`${where}: waiting with no pending call`);
    if (JSON.stringify(pending) !== JSON.stringify(open)) problems.push(`${where}: pending ${pending.join(',')} but unanswered remote calls ${open.join(',')}`);
  } else {
    if (pending.length > 0) problems.push(`${where}: status ${thread.status} with pending calls ${pending.join(',')}`);
    if (open.length > 0) problems.push(`${where}: status ${thread.status} with unanswered remote calls ${open.join(',')}`);
  }
  if (thread.status === 'new' && thread.messages.length > 0) problems.push(`${where}: status new with ${thread.messages.length} messages`);
  return problems;
}
