/**
 * Whether a file or folder a cache reads back may be believed. What a cache holds is run (the
 * agent compile cache) or shown (the language server's graph cache) as if this user had made it,
 * so it must be this user's, and no other user may have been able to write it: a cache folder
 * shared between users, or restored from somewhere else (a CI cache of `node_modules/.cache`),
 * may hold anything.
 */

/** What `stat` says of a file that the check needs. */
export interface Ownership {
  uid: number;
  mode: number;
}

/**
 * Why `info` (the `stat` of a cache file or folder) is not to be believed, or undefined when it is:
 * it must belong to the user this process runs as, and no other user may write it; with
 * `othersMayRead: false`, nor read it. Always undefined where files have no POSIX owner (Windows).
 */
export function checkOwnership(info: Ownership, { othersMayRead }: { othersMayRead: boolean }): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined || process.platform === 'win32') return undefined;
  if (info.uid !== uid) return 'it belongs to another user';
  if (othersMayRead) return (info.mode & 0o022) === 0 ? undefined : 'other users may write it';
  return (info.mode & 0o077) === 0 ? undefined : 'other users may read or write it';
}
