/**
 * The packages only a running API server needs (ws, better-sqlite3, pino), loaded on first use:
 * a program that imports `10xgraph/api` for its agent loader or a store, and the CLI's audit
 * (node:crypto for `--fix`), do not pay for a server they never start. The graph library agent
 * modules import (`10xgraph`) holds none of this code. Each is loaded once by Node's module cache;
 * a missing package fails where it is first needed (better-sqlite3, an optional peer, with a
 * sentence that says how to install it).
 */
import type * as WsModule from 'ws';
import type BetterSqlite3 from 'better-sqlite3';
import type PinoModule from 'pino';
import { loadPeer } from '../peers';

/** The `ws` package. */
export function loadWs(): typeof WsModule {
  return require('ws') as typeof WsModule;
}

/** better-sqlite3's `Database` class (a native module, an optional peer: runtime/src/peers.ts). */
export function loadSqlite(): typeof BetterSqlite3 {
  return loadPeer('better-sqlite3', 'threads in SQLite need the package better-sqlite3', () => require('better-sqlite3') as typeof BetterSqlite3);
}

/** pino's default export. */
export function loadPino(): typeof PinoModule {
  return require('pino') as typeof PinoModule;
}

/** Node's `http` module, loaded with the server rather than with the library. */
export function loadHttp(): typeof import('node:http') {
  return require('node:http') as typeof import('node:http');
}

/** Node's `crypto` module (request ids, token comparison), loaded with the server. */
export function loadCrypto(): typeof import('node:crypto') {
  return require('node:crypto') as typeof import('node:crypto');
}
