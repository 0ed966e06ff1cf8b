/**
 * Threads in PostgreSQL (through node-postgres), shared by every `10xgraph api` process that
 * names the same database: a run stopped on a remote call on one instance is resumed by results
 * sent to another. The run lock is a lease in the thread's row (`lock_owner`, `lock_expires`,
 * the database's clock): `acquire` takes it when it is free or its lease ran out, a run renews
 * it while it goes on, and a process killed mid-run holds its threads for at most one lease.
 *
 * Every step is one SQL statement (data-modifying CTEs where a step touches two tables), so a
 * step is one transaction and one round trip. A database that is down or restarting makes calls
 * fail fast with `StoreUnavailableError` (the server answers 503); they succeed again once it is back.
 */
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import {
  buildSearchPattern,
  buildSummary,
  DEFAULT_LEASE_MS,
  LockLostError,
  newPage,
  newRecord,
  pageOf,
  recordOf,
  rewriteBeyondMessage,
  rowValues,
  StoreOpenError,
  StoreUnavailableError,
  type AcquireOptions,
  type DeleteOptions,
  type DeleteOutcome,
  type RunCommit,
  type ThreadListOptions,
  type ThreadPage,
  type ThreadRecord,
  type ThreadRow,
  type ThreadStore,
  type ThreadSummary,
  type ThreadSummaryRow,
} from './contract';
import { newerSchemaMessage, POSTGRES_MIGRATIONS, SCHEMA_VERSION } from './migrations';
import { importPeer } from '../../peers';

/** Options of a PostgreSQL store. */
export interface PostgresStoreOptions {
  /** How long a run lock lasts without renewal (default 30 s). */
  leaseMs?: number;
  /** Most connections this process opens (default 10). */
  maxConnections?: number;
  /** How long to wait for a connection before failing (default 5 s). */
  connectTimeoutMs?: number;
}

/** The key of the advisory lock that serialises migrations of instances starting together. */
const MIGRATION_LOCK = 0x10_67_a9;

interface Row extends ThreadRow, QueryResultRow {
  running: boolean;
  bodies: string[];
}

interface SummaryRow extends ThreadSummaryRow, QueryResultRow {
  running: boolean;
}

const TIMES = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`;

const THREAD_COLUMNS = `status, values_json, interrupted_at, pending_json, message_count, last_error, user_id, ${TIMES}`;

const SUMMARY_COLUMNS = `thread_id, status, message_count, user_id, ${TIMES}, (lock_owner IS NOT NULL AND lock_expires > now()) AS running`;

const SQL = {
  // A row of status 'new' was acquired and never committed (its run crashed): the thread does not
  // exist yet, and the run that takes it now creates it, with its own user.
  acquire: `
    WITH t AS (
      INSERT INTO tenxgraph_threads AS t (thread_id, lock_owner, lock_expires, user_id) VALUES ($1, $2, now() + $3 * interval '1 millisecond', $4)
      ON CONFLICT (thread_id) DO UPDATE SET lock_owner = EXCLUDED.lock_owner, lock_expires = EXCLUDED.lock_expires,
        user_id = CASE WHEN t.status = 'new' THEN EXCLUDED.user_id ELSE t.user_id END
        WHERE t.lock_owner IS NULL OR t.lock_expires < now()
      RETURNING t.*
    )
    SELECT ${THREAD_COLUMNS}, true AS running,
      ARRAY(SELECT body FROM tenxgraph_messages m WHERE m.thread_id = t.thread_id ORDER BY seq) AS bodies
    FROM t`,
  renew: `UPDATE tenxgraph_threads SET lock_expires = now() + $3 * interval '1 millisecond' WHERE thread_id = $1 AND lock_owner = $2`,
  commit: `
    WITH upd AS (
      UPDATE tenxgraph_threads SET status = $4, interrupted_at = $5, pending_json = $6, values_json = $7, message_count = $8,
        last_error = $9, updated_at = now(), lock_owner = NULL, lock_expires = NULL
      WHERE thread_id = $1 AND lock_owner = $2 AND message_count = $3
      RETURNING thread_id
    ), ins AS (
      INSERT INTO tenxgraph_messages (thread_id, seq, body)
      SELECT upd.thread_id, m.seq, m.body FROM upd, unnest($10::integer[], $11::text[]) AS m (seq, body)
    )
    SELECT count(*)::integer AS updated FROM upd`,
  // A commit that replaces the messages from $3 on ($3 at most the stored count). The sub-statements
  // of one statement run in no set order, so a delete cannot go before an insert of the same keys:
  // the rows past the new end are deleted and those from $3 to it overwritten, sets that never meet.
  rewrite: `
    WITH upd AS (
      UPDATE tenxgraph_threads SET status = $4, interrupted_at = $5, pending_json = $6, values_json = $7, message_count = $8,
        last_error = $9, updated_at = now(), lock_owner = NULL, lock_expires = NULL
      WHERE thread_id = $1 AND lock_owner = $2 AND message_count >= $3
      RETURNING thread_id
    ), cut AS (
      DELETE FROM tenxgraph_messages m USING upd WHERE m.thread_id = upd.thread_id AND m.seq >= $8
    ), ins AS (
      INSERT INTO tenxgraph_messages (thread_id, seq, body)
      SELECT upd.thread_id, m.seq, m.body FROM upd, unnest($10::integer[], $11::text[]) AS m (seq, body)
      ON CONFLICT (thread_id, seq) DO UPDATE SET body = EXCLUDED.body
    )
    SELECT count(*)::integer AS updated FROM upd`,
  // After a refused rewrite: frees the lock if it is still the run's, and says how many messages there are.
  releaseCounting: `UPDATE tenxgraph_threads SET lock_owner = NULL, lock_expires = NULL WHERE thread_id = $1 AND lock_owner = $2 RETURNING message_count`,
  // The first commit of a thread acquired unseen: the row is made here, with its messages.
  commitNew: `
    WITH ins AS (
      INSERT INTO tenxgraph_threads (thread_id, status, interrupted_at, pending_json, values_json, message_count, last_error, user_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $10)
      ON CONFLICT (thread_id) DO NOTHING
      RETURNING thread_id
    ), msgs AS (
      INSERT INTO tenxgraph_messages (thread_id, seq, body)
      SELECT ins.thread_id, m.seq, m.body FROM ins, unnest($8::integer[], $9::text[]) AS m (seq, body)
    )
    SELECT count(*)::integer AS updated FROM ins`,
  dropNew: `DELETE FROM tenxgraph_threads WHERE thread_id = $1 AND lock_owner = $2 AND status = 'new' AND message_count = 0`,
  release: `UPDATE tenxgraph_threads SET lock_owner = NULL, lock_expires = NULL WHERE thread_id = $1 AND lock_owner = $2`,
  // A row of status 'new' is a first run's: its user's while the run holds it, nobody's once its lease ran out.
  userOf: `SELECT user_id FROM tenxgraph_threads WHERE thread_id = $1 AND (status <> 'new' OR (lock_owner IS NOT NULL AND lock_expires > now()))`,
  load: `
    SELECT ${THREAD_COLUMNS}, (lock_owner IS NOT NULL AND lock_expires > now()) AS running,
      ARRAY(SELECT body FROM tenxgraph_messages m WHERE m.thread_id = t.thread_id ORDER BY seq) AS bodies
    FROM tenxgraph_threads t WHERE thread_id = $1`,
  page: `
    SELECT ${THREAD_COLUMNS}, (lock_owner IS NOT NULL AND lock_expires > now()) AS running,
      ARRAY(SELECT body FROM tenxgraph_messages m WHERE m.thread_id = t.thread_id AND seq >= $2 ORDER BY seq LIMIT $3) AS bodies
    FROM tenxgraph_threads t WHERE thread_id = $1`,
  // Rows of status 'new' are threads acquired and never committed. The order is the table's
  // `t.updated_at`: unqualified, the name would be the text the SELECT makes of it, which no index has.
  list: `
    SELECT ${SUMMARY_COLUMNS}
    FROM tenxgraph_threads t
    WHERE status <> 'new' AND thread_id ILIKE $1 ESCAPE '\\'
    ORDER BY t.updated_at DESC, t.thread_id COLLATE "C" OFFSET $2 LIMIT $3`,
  // One user's threads, read in order from the index tenxgraph_threads_user_updated (schema version 4):
  // a statement of its own, so that its plan is the index's whatever the user.
  listOfUser: `
    SELECT ${SUMMARY_COLUMNS}
    FROM tenxgraph_threads t
    WHERE user_id = $4 AND status <> 'new' AND thread_id ILIKE $1 ESCAPE '\\'
    ORDER BY t.updated_at DESC, t.thread_id COLLATE "C" OFFSET $2 LIMIT $3`,
  delete: `DELETE FROM tenxgraph_threads WHERE thread_id = $1 AND (lock_owner IS NULL OR lock_expires < now())`,
  exists: `SELECT 1 FROM tenxgraph_threads WHERE thread_id = $1`,
  deleteOwned: `DELETE FROM tenxgraph_threads WHERE thread_id = $1 AND user_id IS NOT DISTINCT FROM $2 AND (lock_owner IS NULL OR lock_expires < now())`,
  existsOwned: `SELECT 1 FROM tenxgraph_threads WHERE thread_id = $1 AND user_id IS NOT DISTINCT FROM $2`,
};

/** The PostgreSQL thread store. Open it with `PostgresThreadStore.open`. */
export class PostgresThreadStore implements ThreadStore {
  readonly kind = 'postgres' as const;
  readonly location: string;
  readonly leaseMs: number;
  private readonly pool: Pool;
  /**
   * Threads acquired unseen (their ids made by this process and shown to nobody yet), with their
   * run's owner and user: they have no row until their first commit, so their lock lives here until then.
   */
  private readonly unseen = new Map<string, { owner: string; userId?: string }>();
  /**
   * Whether the last statement found the database unreachable. Until one succeeds again, unseen
   * threads are acquired in the database too, so a run is refused before it starts (no model
   * call, no server tool) rather than at its commit.
   */
  private unreachable = false;

  private constructor(pool: Pool, location: string, leaseMs: number) {
    this.pool = pool;
    this.location = location;
    this.leaseMs = leaseMs;
  }

  /**
   * Connects to `url` (`postgres://user:password@host:port/db`), brings the schema up to date and
   * returns the store. Throws `StoreOpenError` with a sentence for people when the database cannot
   * be reached, refuses the credentials, or has a schema newer than this code.
   */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresThreadStore> {
    const location = redactUrl(url);
    const pg = await importPeer('pg', 'threads in PostgreSQL need the package pg', () => import('pg'));
    const PoolClass = (pg.default ?? pg).Pool;
    const pool = new PoolClass({
      connectionString: url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      application_name: '10xgraph api',
    });
    // An idle connection dropped by a database restart is an event, not a crash: the pool replaces it.
    pool.on('error', () => {});
    let client: PoolClient | undefined;
    try {
      client = await pool.connect();
      await migrate(client, location);
    } catch (error) {
      client?.release(true);
      client = undefined;
      await pool.end().catch(() => {});
      if (error instanceof StoreOpenError) throw error;
      throw new StoreOpenError(`Cannot use the PostgreSQL database ${location}: ${describePgError(error)}.`, { cause: error });
    } finally {
      client?.release();
    }
    return new PostgresThreadStore(pool, location, options.leaseMs ?? DEFAULT_LEASE_MS);
  }

  async acquire(threadId: string, owner: string, options: AcquireOptions = {}): Promise<ThreadRecord | undefined> {
    if (this.unseen.has(threadId)) return undefined;
    if (options.unseen && !this.unreachable) {
      // No other process can know the id before the commit: nothing to lock or read in the database.
      this.unseen.set(threadId, { owner, userId: options.userId });
      return { ...newRecord(threadId, options.userId), running: true };
    }
    const { rows } = await this.query<Row>('acquire', [threadId, owner, this.leaseMs, options.userId ?? null]);
    const row = rows[0];
    return row && recordOf(threadId, row, true, row.bodies);
  }

  async renew(threadId: string, owner: string): Promise<boolean> {
    if (this.unseen.has(threadId)) return this.unseen.get(threadId)?.owner === owner;
    return (await this.query('renew', [threadId, owner, this.leaseMs])).rowCount === 1;
  }

  async commit(threadId: string, owner: string, outcome: RunCommit): Promise<void> {
    const row = rowValues(outcome);
    const messages = outcome.checkpoint.state.messages;
    const seqs: number[] = [];
    const bodies: string[] = [];
    for (let seq = outcome.from; seq < messages.length; seq++) {
      seqs.push(seq);
      bodies.push(JSON.stringify(messages[seq]));
    }
    // The thread row's columns, in the order both statements take them.
    const state = [outcome.status, row.interruptedAt, row.pending, row.values, row.count, row.error];
    const unseen = this.unseen.get(threadId);
    if (unseen) {
      if (unseen.owner !== owner) throw new LockLostError(threadId);
      try {
        // Nothing is stored yet: a rewrite from 0 is the first commit, from further on would leave a gap.
        if (outcome.rewrite && outcome.from > 0) throw new RangeError(rewriteBeyondMessage(threadId, outcome.from, 0));
        const { rows } = await this.query<{ updated: number }>('commitNew', [threadId, ...state, seqs, bodies, unseen.userId ?? null]);
        if (rows[0]?.updated !== 1) throw new LockLostError(threadId);
      } finally {
        this.unseen.delete(threadId);
      }
      return;
    }
    const { rows } = await this.query<{ updated: number }>(outcome.rewrite ? 'rewrite' : 'commit', [threadId, owner, outcome.from, ...state, seqs, bodies]);
    if (rows[0]?.updated === 1) return;
    if (outcome.rewrite) {
      // Refused for the lock or for `from`: a lock still held was the run's, and is released with the refusal.
      const held = (await this.query<{ message_count: number }>('releaseCounting', [threadId, owner])).rows[0];
      if (held) throw new RangeError(rewriteBeyondMessage(threadId, outcome.from, Number(held.message_count)));
    }
    throw new LockLostError(threadId);
  }

  async release(threadId: string, owner: string): Promise<void> {
    if (this.unseen.has(threadId)) {
      // Nothing was stored for it: releasing is forgetting it.
      if (this.unseen.get(threadId)?.owner === owner) this.unseen.delete(threadId);
      return;
    }
    if ((await this.query('dropNew', [threadId, owner])).rowCount === 0) await this.query('release', [threadId, owner]);
  }

  async load(threadId: string): Promise<ThreadRecord | undefined> {
    const row = (await this.query<Row>('load', [threadId])).rows[0];
    if (row) return recordOf(threadId, row, row.running, row.bodies);
    const unseen = this.unseen.get(threadId);
    return unseen ? { ...newRecord(threadId, unseen.userId), running: true } : undefined;
  }

  async userOf(threadId: string): Promise<string | undefined> {
    const row = (await this.query<{ user_id: string | null }>('userOf', [threadId])).rows[0];
    if (row) return row.user_id ?? undefined;
    return this.unseen.get(threadId)?.userId;
  }

  async page(threadId: string, offset: number, limit: number): Promise<ThreadPage | undefined> {
    const row = (await this.query<Row>('page', [threadId, offset, limit])).rows[0];
    if (row) return pageOf(threadId, row, row.running, offset, row.bodies);
    const unseen = this.unseen.get(threadId);
    return unseen ? newPage(threadId, offset, unseen.userId) : undefined;
  }

  async list(options: ThreadListOptions): Promise<ThreadSummary[]> {
    const pattern = buildSearchPattern(options.search);
    if (pattern === undefined) return [];
    const { rows } =
      options.userId === undefined
        ? await this.query<SummaryRow>('list', [pattern, options.offset, options.limit])
        : await this.query<SummaryRow>('listOfUser', [pattern, options.offset, options.limit, options.userId]);
    return rows.map((row) => buildSummary(row, row.running));
  }

  async delete(threadId: string, options: DeleteOptions = {}): Promise<DeleteOutcome> {
    if (this.unseen.has(threadId)) return 'busy';
    if (options.userId !== undefined) {
      if ((await this.query('deleteOwned', [threadId, options.userId])).rowCount === 1) return 'deleted';
      return (await this.query('existsOwned', [threadId, options.userId])).rowCount === 1 ? 'busy' : 'missing';
    }
    if ((await this.query('delete', [threadId])).rowCount === 1) return 'deleted';
    return (await this.query('exists', [threadId])).rowCount === 1 ? 'busy' : 'missing';
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }

  private async query<R extends QueryResultRow>(name: keyof typeof SQL, values: unknown[]): Promise<{ rows: R[]; rowCount: number | null }> {
    try {
      // Named, so each connection parses and plans a statement once and then only binds values.
      const result = await this.pool.query<R>({ name: `tenxgraph_${name}`, text: SQL[name], values });
      this.unreachable = false;
      return result;
    } catch (error) {
      if (isConnectionError(error)) {
        this.unreachable = true;
        throw new StoreUnavailableError(`The PostgreSQL database ${this.location} cannot be reached (${describePgError(error)}); try again once it is back.`, { cause: error });
      }
      throw error;
    }
  }
}

/** Applies the missing migrations in one transaction, one instance at a time. */
async function migrate(client: PoolClient, location: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS tenxgraph_schema (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ version: number }>('SELECT coalesce(max(version), 0)::integer AS version FROM tenxgraph_schema');
    const version = rows[0]?.version ?? 0;
    if (version > SCHEMA_VERSION) throw new StoreOpenError(newerSchemaMessage(location, version));
    for (const migration of POSTGRES_MIGRATIONS) {
      if (migration.version <= version) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO tenxgraph_schema (version, description) VALUES ($1, $2)', [migration.version, migration.description]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/** A PostgreSQL URL without its password and query (which may carry one), for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return '(an unparsable PostgreSQL URL)';
  }
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', '57P01', '57P02', '57P03', '53300']);

/** Whether a failure means the database is unreachable (down, restarting, out of connections), not a bad statement. */
function isConnectionError(error: unknown): boolean {
  const code = String((error as { code?: unknown }).code ?? '');
  if (CONNECTION_CODES.has(code) || code.startsWith('08')) return true;
  const message = error instanceof Error ? error.message : String(error);
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(message);
}

/** One phrase for a node-postgres failure: the server's message, with what it means where that helps. */
function describePgError(error: unknown): string {
  const code = String((error as { code?: unknown }).code ?? '');
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ECONNREFUSED') return `nothing accepts connections there (${message}); check that PostgreSQL is running and the host and port`;
  if (code === '28P01' || code === '28000') return `${message}; check the user name and password in the URL`;
  if (code === '3D000') return `${message}; create the database first`;
  if (message === '' && error instanceof AggregateError) return error.errors.map((e: unknown) => describePgError(e)).join('; ');
  return message || code || 'unknown error';
}
