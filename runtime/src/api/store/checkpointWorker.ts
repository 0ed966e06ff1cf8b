/**
 * The checkpoint worker of the SQLite thread store (./sqlite.ts): a worker thread with its own
 * connection to the database file, one PASSIVE checkpoint per 'checkpoint' message, so that
 * flushing the write-ahead log into the file never stalls the server's event loop. 'close' closes
 * the connection and ends the thread. esbuild.mjs builds it as runtime/dist/sqliteCheckpoint.js,
 * beside the bundles that start it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';

/** What the store hands the worker: the database file's real path. */
export interface CheckpointWorkerData {
  path: string;
}

/** A message from the store. */
export type CheckpointMessage = 'checkpoint' | 'close';

const port = parentPort;
if (port) {
  const Database = require('better-sqlite3') as typeof BetterSqlite3;
  const db = new Database((workerData as CheckpointWorkerData).path);
  db.pragma('busy_timeout = 0');
  port.on('message', (message: CheckpointMessage) => {
    if (message === 'close') {
      db.close();
      port.close();
      return;
    }
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Busy or failing now: the next round tries again.
    }
    port.postMessage('done');
  });
}
