/**
 * The versioned schemas of both stores. A database records the last version applied to it
 * (SQLite: `PRAGMA user_version`; PostgreSQL: the table `tenxgraph_schema`); start-up applies
 * the newer ones in order, in one transaction, and refuses a database whose version is newer
 * than this code knows. Add a version by appending to both lists; never edit a shipped one.
 */

/** One schema version: the statements that bring the version before it up to it. */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

/** SQLite's versions. Version 1 is the schema of the first releases (a `running` column). */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'threads and messages',
    sql: `
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
      ) WITHOUT ROWID;`,
  },
  {
    // One process per file (held by a lock file), so the run lock lives in that process's memory.
    version: 2,
    description: 'the run lock leaves the database',
    sql: `ALTER TABLE threads DROP COLUMN running;`,
  },
  {
    // A message body is hundreds of bytes: in a WITHOUT ROWID table each one sits in the key's
    // B-tree and a commit's inserts split its pages often. A rowid table keeps the bodies in
    // append order and only the small (thread_id, seq) keys in the index: commits cost less.
    version: 3,
    description: 'messages in a rowid table',
    sql: `
      CREATE TABLE messages_v3 (
        thread_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq)
      );
      INSERT INTO messages_v3 (thread_id, seq, body) SELECT thread_id, seq, body FROM messages ORDER BY thread_id, seq;
      DROP TABLE messages;
      ALTER TABLE messages_v3 RENAME TO messages;`,
  },
  {
    // The user whose run created the thread (NULL: created without one, or before this version).
    // The index serves one user's listing in its order (newest first, then by id), so listing a
    // user's threads among many others reads that user's entries only and stops at the page's end.
    version: 4,
    description: 'the user of each thread',
    sql: `
      ALTER TABLE threads ADD COLUMN user_id TEXT;
      CREATE INDEX threads_user_updated ON threads (user_id, updated_at DESC, thread_id);`,
  },
];

/** PostgreSQL's versions, with the same numbers as SQLite's for the same shape of data. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'threads and messages',
    sql: `
      CREATE TABLE IF NOT EXISTS tenxgraph_threads (
        thread_id TEXT PRIMARY KEY,
        status TEXT NOT NULL DEFAULT 'new',
        values_json TEXT NOT NULL DEFAULT '{}',
        interrupted_at TEXT,
        pending_json TEXT NOT NULL DEFAULT '[]',
        message_count INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS tenxgraph_messages (
        thread_id TEXT NOT NULL REFERENCES tenxgraph_threads (thread_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (thread_id, seq)
      );`,
  },
  {
    // Several processes share the database: the run lock is a lease in the thread's row.
    version: 2,
    description: 'run locks as leases',
    sql: `
      ALTER TABLE tenxgraph_threads ADD COLUMN IF NOT EXISTS lock_owner TEXT;
      ALTER TABLE tenxgraph_threads ADD COLUMN IF NOT EXISTS lock_expires TIMESTAMPTZ;`,
  },
  {
    // Version 3 changed how SQLite lays out messages; PostgreSQL's heap tables already keep the
    // bodies apart from the key's index. The version is recorded so both stores count alike.
    version: 3,
    description: 'no change (SQLite moved its messages into a rowid table)',
    sql: `SELECT 1;`,
  },
  {
    // As SQLite's version 4; thread ids in the index compare as the listing orders them (COLLATE "C").
    version: 4,
    description: 'the user of each thread',
    sql: `
      ALTER TABLE tenxgraph_threads ADD COLUMN IF NOT EXISTS user_id TEXT;
      CREATE INDEX IF NOT EXISTS tenxgraph_threads_user_updated ON tenxgraph_threads (user_id, updated_at DESC, thread_id COLLATE "C");`,
  },
];

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = 4;

/** The refusal for a database newer than the code. */
export function newerSchemaMessage(where: string, version: number): string {
  return `The thread database ${where} has schema version ${version}, newer than this 10xgraph knows (${SCHEMA_VERSION}): it was written by a newer 10xgraph; upgrade 10xgraph or use another database.`;
}
