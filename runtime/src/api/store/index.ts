/**
 * The thread stores: the contract, SQLite (the embedded default) and PostgreSQL (shared by
 * several processes), and `openThreadStore`, which picks one from a `--db` value.
 */
import { StoreOpenError, type ThreadStore } from './contract';
import { PostgresThreadStore, redactUrl, type PostgresStoreOptions } from './postgres';
import { SqliteThreadStore, type SqliteStoreOptions } from './sqlite';

export * from './contract';
export { SqliteThreadStore, DEFAULT_SQLITE_BUSY_MS } from './sqlite';
export type { SqliteStoreOptions } from './sqlite';
export { PostgresThreadStore, redactUrl } from './postgres';
export type { PostgresStoreOptions } from './postgres';
export { SCHEMA_VERSION } from './migrations';

/** Options of `openThreadStore`, passed on to the store it opens. */
export type OpenStoreOptions = SqliteStoreOptions & PostgresStoreOptions;

/** Where a `--db` value points: a PostgreSQL URL, or a SQLite file (`:memory:` included). */
export type StoreTarget = { kind: 'postgres'; url: string } | { kind: 'sqlite'; path: string };

/**
 * Reads a `--db` value: `postgres://…` or `postgresql://…` is PostgreSQL, anything else a SQLite
 * file. Throws `StoreOpenError` for a URL of another scheme rather than take it for a file name.
 */
export function parseStoreTarget(value: string): StoreTarget {
  const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') return { kind: 'postgres', url: value };
  if (scheme !== undefined) {
    throw new StoreOpenError(
      `The thread database '${scheme === 'http' || scheme === 'https' ? value : redactUrl(value)}' is a ${scheme}:// URL; 10xgraph keeps threads in PostgreSQL (postgres://user:password@host:port/db) or in a SQLite file (a path).`,
    );
  }
  if (value.trim() === '') throw new StoreOpenError('The thread database is empty; give a SQLite file path, :memory: or a postgres:// URL.');
  return { kind: 'sqlite', path: value };
}

/** Opens the store a `--db` value names (see `parseStoreTarget`), its schema brought up to date. */
export async function openThreadStore(value: string, options: OpenStoreOptions = {}): Promise<ThreadStore> {
  const target = parseStoreTarget(value);
  if (target.kind === 'postgres') return PostgresThreadStore.open(target.url, options);
  return new SqliteThreadStore(target.path, options);
}
