/**
 * Writing `audit --fix`'s result over the file it read, the way careful editors save: the file
 * keeps its mode, owner and links, nothing is half-written, nothing is left behind on a signal,
 * and a file that changed since it was read is left alone.
 *
 * - A symbolic link is kept: its target (resolved with `realpath`) is the file written.
 * - A file with one link is replaced by a rename: the new text goes to a temporary file created
 *   exclusively, under an unpredictable name, in the same folder (so the rename is atomic); it
 *   gets the mode and owner of the old file and is flushed before the rename, and the folder
 *   after it.
 * - A file with several hard links is rewritten in place, since a rename would split the links:
 *   a flushed backup copy is made first and removed once the new text is flushed, so a crash
 *   midway leaves the old text on disk (the message names the backup).
 * - When the owner cannot be kept (another user's file in a folder we may write to), the file
 *   is rewritten in place as well.
 * - Just before the rename (or the rewrite) the file is read again and compared with what was
 *   read: a change (an editor's save) refuses the write.
 */
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { loadCrypto } from '../api/lazy';

/** The file changed (or vanished) since it was read; nothing was written. */
export class FileChangedError extends Error {}

/** What was read: the bytes, and the `stat` of the file they came from. */
export interface ReadState {
  bytes: Buffer;
  stat: Stats;
}

/** Temporary files of this process, removed on a signal before the process ends. */
const pending = new Set<string>();

/**
 * Writes `text` over `path`, which was read as `read`, keeping the file's mode, owner, links and
 * inode semantics (see the module comment). Throws `FileChangedError` when the file changed since
 * it was read, or the error of the failing call. A SIGINT or SIGTERM that arrives meanwhile is
 * held until the write is complete or undone (the writing itself is synchronous, so no signal
 * handler runs in the middle of it), then ends the process as it would have.
 */
export async function writeFixedFile(path: string, read: ReadState, text: string): Promise<void> {
  const target = realpathSync(path);
  const received: NodeJS.Signals[] = [];
  const hold = (signal: NodeJS.Signals) => void received.push(signal);
  process.on('SIGINT', hold);
  process.on('SIGTERM', hold);
  try {
    const data = Buffer.from(text, 'utf8');
    const current = fstatOf(target);
    checkUnchanged(target, read, current);
    if (current.nlink > 1) rewriteInPlace(target, read, data);
    else if (!replaceByRename(target, read, current, data)) rewriteInPlace(target, read, data);
  } finally {
    for (const temp of pending) removeQuietly(temp);
    pending.clear();
    // A signal received during the synchronous write is delivered on the next turn of the loop.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('SIGINT', hold);
    process.off('SIGTERM', hold);
    // Whatever happened, end as the signal asked, now that no temporary file is left.
    if (received.length) process.kill(process.pid, received[0]);
  }
}

/** Writing a generated file failed; `path` is the file or folder that could not be made, never a temporary one. */
export class GeneratedFileError extends Error {
  constructor(
    readonly path: string,
    /** Why, for people: "it is a folder", "permission denied". */
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`${path}: ${reason}`, options);
  }
}

/**
 * Writes `text` to `path` (a file the command makes, such as generated types), creating the
 * folders it needs, through an exclusively created, unpredictably named temporary file beside
 * it, flushed, then renamed into place: never a half-written file, never a write through a
 * planted link, and no temporary file left when it fails. A new file gets the mode any new file
 * gets (0666 less the umask); a file that was there keeps its own. Synchronous, so a signal
 * cannot land between the write and the rename. Throws `GeneratedFileError`.
 */
export function writeGeneratedFile(path: string, text: string): void {
  const folder = dirname(path);
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const blocking = code === 'ENOTDIR' || code === 'EEXIST' ? fileInTheWay(folder) : undefined;
    if (blocking) throw new GeneratedFileError(blocking, 'it is a file, not a folder', { cause: error });
    throw new GeneratedFileError(folder, reasonOf(error, 'folder'), { cause: error });
  }
  let existing: Stats | undefined;
  try {
    existing = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new GeneratedFileError(path, reasonOf(error, 'file'), { cause: error });
  }
  if (existing?.isDirectory()) throw new GeneratedFileError(path, 'it is a folder');
  // A rename would put the types in place of a device or a pipe (as root, of /dev/null itself).
  if (existing && !existing.isFile() && !existing.isSymbolicLink()) throw new GeneratedFileError(path, 'it is not a regular file (a device, a pipe or a socket)');
  // A file that is there keeps its mode (the temporary file stays private until it has it); a
  // new one is created with 0666 for the umask to narrow, as any program's new file is. A link
  // is replaced, not followed, so its target's mode is not the file's.
  const keep = existing?.isFile() ? existing.mode & 0o7777 : undefined;
  let temp: { path: string; fd: number };
  try {
    temp = createTemp(path, 'tmp', keep === undefined ? 0o666 : 0o600);
  } catch (error) {
    throw new GeneratedFileError(path, reasonOf(error, 'file'), { cause: error });
  }
  try {
    try {
      writeAll(temp.fd, Buffer.from(text, 'utf8'));
      if (keep !== undefined) fchmodSync(temp.fd, keep);
      fsyncSync(temp.fd);
    } finally {
      closeSync(temp.fd);
    }
    renameSync(temp.path, path);
    pending.delete(temp.path);
    syncFolder(folder);
  } catch (error) {
    removeQuietly(temp.path);
    pending.delete(temp.path);
    throw new GeneratedFileError(path, reasonOf(error, 'file'), { cause: error });
  }
}

/** The nearest ancestor of `folder` (or itself) that exists and is not a folder, if any. */
function fileInTheWay(folder: string): string | undefined {
  for (let at = folder; ; at = dirname(at)) {
    try {
      if (!statSync(at).isDirectory()) return at;
    } catch {
      // Not there (or not reachable): look further up.
    }
    if (dirname(at) === at) return undefined;
  }
}

/** Why a call on a file or a folder failed, in words, without the paths Node's message names. */
function reasonOf(error: unknown, what: 'file' | 'folder'): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `permission denied (${code})`;
    case 'ENOENT':
      return `no such ${what === 'file' ? 'folder' : 'file or folder'} (${code})`;
    case 'ENOTDIR':
      return `a part of the path is a file, not a folder (${code})`;
    case 'EEXIST':
      return `a file of that name is in the way (${code})`;
    case 'EISDIR':
      return `it is a folder (${code})`;
    case 'EROFS':
      return `the file system is read-only (${code})`;
    case 'ENOSPC':
      return `no space left on the device (${code})`;
    case 'EDQUOT':
      return `the disk quota is exhausted (${code})`;
    case 'ENAMETOOLONG':
      return `the name is too long (${code})`;
    default:
      // Node's message names the paths of the call: drop them (the temporary file's above all).
      return code ? `${((error as Error).message.split(',')[0] ?? code).replace(/^[A-Z]+: /, '')} (${code})` : String((error as Error).message ?? error);
  }
}

/** A new file beside `target`, created exclusively (never an existing file or link), private unless `mode` says otherwise. */
function createTemp(target: string, suffix: string, mode = 0o600): { path: string; fd: number } {
  for (;;) {
    const path = join(dirname(target), `.${basename(target)}.${loadCrypto().randomBytes(8).toString('hex')}.${suffix}`);
    try {
      const fd = openSync(path, 'wx', mode);
      pending.add(path);
      return { path, fd };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

function writeAll(fd: number, data: Buffer): void {
  let at = 0;
  while (at < data.length) at += writeSync(fd, data, at, data.length - at, at);
}

/**
 * Writes `data` to a temporary file with `stat`'s mode and owner and renames it onto `target`.
 * Returns false, having written nothing, when the owner cannot be kept.
 */
function replaceByRename(target: string, read: ReadState, stat: Stats, data: Buffer): boolean {
  const temp = createTemp(target, 'tmp');
  try {
    try {
      writeAll(temp.fd, data);
      fchmodSync(temp.fd, stat.mode & 0o7777);
      const created = fstatSync(temp.fd);
      if (created.uid !== stat.uid || created.gid !== stat.gid) {
        try {
          fchownSync(temp.fd, stat.uid, stat.gid);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EPERM') return false;
          throw error;
        }
        // chown may clear set-id bits: set the mode again.
        fchmodSync(temp.fd, stat.mode & 0o7777);
      }
      fsyncSync(temp.fd);
    } finally {
      closeSync(temp.fd);
    }
    checkUnchanged(target, read, fstatOf(target));
    renameSync(temp.path, target);
    pending.delete(temp.path);
    syncFolder(dirname(target));
    return true;
  } finally {
    if (pending.has(temp.path)) {
      pending.delete(temp.path);
      removeQuietly(temp.path);
    }
  }
}

/** Rewrites `target`'s own inode with `data`, behind a flushed backup of what was read. */
function rewriteInPlace(target: string, read: ReadState, data: Buffer): void {
  const backup = createTemp(target, 'bak');
  try {
    writeAll(backup.fd, read.bytes);
    fsyncSync(backup.fd);
  } finally {
    closeSync(backup.fd);
  }
  syncFolder(dirname(target));
  const fd = openSync(target, 'r+');
  try {
    checkUnchanged(target, read, fstatSync(fd));
    try {
      writeAll(fd, data);
      ftruncateSync(fd, data.length);
      fsyncSync(fd);
    } catch (error) {
      // The old text is safe in the backup: keep it, and say where it is.
      pending.delete(backup.path);
      throw new Error(`${(error as Error).message}; the file may be half-written: its previous text is kept in ${backup.path}`);
    }
  } finally {
    closeSync(fd);
  }
}

function fstatOf(path: string): Stats {
  const fd = openSync(path, 'r');
  try {
    return fstatSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Throws `FileChangedError` unless `path` (with `stat`) still holds exactly what was read. */
function checkUnchanged(path: string, read: ReadState, stat: Stats): void {
  let changed = stat.ino !== read.stat.ino || stat.dev !== read.stat.dev || stat.size !== read.bytes.length || stat.mtimeMs !== read.stat.mtimeMs;
  if (!changed) {
    try {
      changed = !readFileSync(path).equals(read.bytes);
    } catch {
      changed = true;
    }
  }
  if (changed) throw new FileChangedError('it changed since it was read');
}

/** Flushes a folder's entries (the rename) to disk; some file systems cannot, which is no error. */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, 'r');
    fsyncSync(fd);
  } catch {
    // Folders cannot be opened or flushed on every platform; the rename itself is done.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
