/**
 * The packages only a running API server needs (ws, better-sqlite3, pino), loaded on first use.
 * Every agent module imports `10xgraph`, and `10xgraph audit` loads the agent module to know its
 * graph: loaded eagerly, these three cost more than the whole audit (README, Benchmarks).
 * Each is loaded once by Node's module cache; a missing package fails where it is first needed.
 */
import type * as WsModule from 'ws';
import type BetterSqlite3 from 'better-sqlite3';
import type PinoModule from 'pino';

/** The `ws` package. */
export function loadWs(): typeof WsModule {
  return require('ws') as typeof WsModule;
}

/** better-sqlite3's `Database` class (a native module). */
export function loadSqlite(): typeof BetterSqlite3 {
  return require('better-sqlite3') as typeof BetterSqlite3;
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
