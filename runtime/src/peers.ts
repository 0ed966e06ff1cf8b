/**
 * The optional peer dependencies of `10xgraph` (runtime/package.json `peerDependenciesMeta`): npm
 * does not install them, so an agent module's project gets the graph library alone, with nothing
 * native and no compiler. Each is loaded where it is needed, and a missing one fails there with a
 * sentence that says what needs it and the command that installs it.
 */

/** A package `10xgraph` uses only when installed beside it. */
export type Peer = 'esbuild' | 'better-sqlite3' | 'pg' | 'ioredis' | 'json-schema-to-typescript';

/** The peers a project needs only to build (compilers, generators): `--save-dev`. */
const DEV_PEERS: ReadonlySet<Peer> = new Set(['esbuild', 'json-schema-to-typescript']);

/** A peer dependency is not installed; the message names it and how to install it. */
export class MissingPeerError extends Error {
  constructor(
    readonly peers: readonly Peer[],
    need: string,
  ) {
    super(`${need}: ${installCommand(peers)}`);
    this.name = 'MissingPeerError';
  }
}

/** `npm install pg`, `npm install --save-dev esbuild json-schema-to-typescript`. */
export function installCommand(peers: readonly Peer[]): string {
  return `npm install ${peers.every((peer) => DEV_PEERS.has(peer)) ? '--save-dev ' : ''}${peers.join(' ')}`;
}

/**
 * Whether `error` is Node's "Cannot find module" for `peer` itself (or a file of it), not for a
 * module the installed peer fails to find, which is another problem and keeps its own message.
 */
export function isMissingPeer(error: unknown, peer: Peer): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  const message = error instanceof Error ? error.message : '';
  return message.includes(`'${peer}'`) || message.includes(`'${peer}/`) || message.includes(`"${peer}"`);
}

/**
 * Runs `load` (a `require` or `import()` of `peer`, written out so the bundler keeps it external)
 * and returns what it loads; throws `MissingPeerError` with `need` ("threads in PostgreSQL need
 * the package pg") when the peer is not installed.
 */
export function loadPeer<T>(peer: Peer, need: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    if (isMissingPeer(error, peer)) throw new MissingPeerError([peer], need);
    throw error;
  }
}

/** Like `loadPeer`, for a `load` that resolves asynchronously (an `import()`). */
export async function importPeer<T>(peer: Peer, need: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissingPeer(error, peer)) throw new MissingPeerError([peer], need);
    throw error;
  }
}
