/**
 * What the rule set may know of the files beside a config document (`AuditOptions.files`):
 * whether a file exists, and the names the `env` dotenv file sets. The workspace is not trusted
 * to be harmless: a path is looked up only below the config's folder (no `..`, no absolute path,
 * no symbolic link out of that folder or its workspace folder), the env file is read only when it
 * is a regular file of at most `MAX_ENV_FILE_BYTES`, its parse (`10xgraph/workspace`'s dotenv, as
 * the CLI's) is linear in its length, and only
 * names are kept: never a value, and nothing of it is logged.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats, statSync } from 'node:fs';
import { isAbsolute, join, sep, win32 } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConfigFiles } from '10xgraph/rules';
import { envNamesOf } from '10xgraph/workspace';
import { folderOf } from './paths';

/** An env file is read only up to this size: it is a list of settings, never data. */
export const MAX_ENV_FILE_BYTES = 256 * 1024;
// Paths longer or deeper than any a config names are not looked up.
const MAX_PATH_LENGTH = 1024;
const MAX_SEGMENTS = 32;
// The names of this many env files (by path and modification) are kept between checks.
const CACHED_ENV_FILES = 32;

/** Where a path of the config leads: a file system path below the allowed folders, nothing there, or a path not looked up. */
type Resolved = { kind: 'found'; path: string; stats: Stats } | { kind: 'missing' } | { kind: 'refused' };

/**
 * The files of the config document `uri` as the rule set asks for them, or undefined for a
 * document that is not a file (its rules that need files are then skipped). `workspaceFolders`
 * are URIs: a symbolic link below the config's folder may lead anywhere inside the workspace
 * folder that holds the config, and nowhere else.
 */
export function configFilesOf(uri: string, workspaceFolders: readonly string[]): ConfigFiles | undefined {
  const folder = folderOf(uri);
  if (folder === undefined) return undefined;
  let roots: string[] | undefined;
  const rootsOf = () => (roots ??= allowedRoots(folder, workspaceFolders));
  const resolved = new Map<string, Resolved>();
  const resolve = (path: string) => {
    let found = resolved.get(path);
    if (!found) resolved.set(path, (found = resolveBelow(path, rootsOf())));
    return found;
  };
  return {
    fileExists(path) {
      const found = resolve(path);
      // A path that is not looked up is not said to be missing: nothing is known of it.
      return found.kind === 'refused' || (found.kind === 'found' && found.stats.isFile());
    },
    envNames(path) {
      const found = resolve(path);
      return found.kind === 'found' ? envNamesOfFile(found.path, found.stats) : undefined;
    },
  };
}

/** The real paths of the config's folder and of the workspace folders that hold it (empty when the folder cannot be resolved). */
function allowedRoots(folder: string, workspaceFolders: readonly string[]): string[] {
  const real = realPath(folder);
  if (real === undefined) return [];
  const roots = [real];
  for (const uri of workspaceFolders) {
    let path: string | undefined;
    try {
      path = uri.startsWith('file:') ? realPath(fileURLToPath(uri)) : undefined;
    } catch {
      path = undefined;
    }
    if (path !== undefined && isInside(real, path)) roots.push(path);
  }
  return roots;
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Looks `path` (relative to the config's folder, `roots[0]`) up one segment at a time, so that no
 * symbolic link is followed before it is known to lead inside `roots`.
 */
function resolveBelow(path: string, roots: readonly string[]): Resolved {
  if (roots.length === 0 || path.length === 0 || path.length > MAX_PATH_LENGTH || path.includes('\0')) return { kind: 'refused' };
  if (isAbsolute(path) || win32.isAbsolute(path)) return { kind: 'refused' };
  // The server may run on Windows, where `\` separates too: neither separator may lead up.
  const segments = path.split(/[\\/]/).filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.length > MAX_SEGMENTS || segments.includes('..')) return { kind: 'refused' };
  let current = roots[0];
  let stats: Stats | undefined;
  for (const segment of segments) {
    let next = join(current, segment);
    try {
      stats = lstatSync(next);
      if (stats.isSymbolicLink()) {
        const target = realpathSync.native(next);
        if (!roots.some((root) => isInside(target, root))) return { kind: 'refused' };
        next = target;
        stats = statSync(next);
      }
    } catch {
      return { kind: 'missing' };
    }
    current = next;
  }
  return stats ? { kind: 'found', path: current, stats } : { kind: 'missing' };
}

/** The names of the env files read lately, by real path and the identity of their content (modification time, size, inode). */
const envNamesCache = new Map<string, ReadonlySet<string>>();

/** The names the dotenv file at the real path `path` sets to a non-empty value, or undefined when it is not a regular file that can be read. */
function envNamesOfFile(path: string, stats: Stats): ReadonlySet<string> | undefined {
  if (!stats.isFile() || stats.size > MAX_ENV_FILE_BYTES) return undefined;
  const key = `${path}\0${stats.mtimeMs}\0${stats.size}\0${stats.ino}`;
  const cached = envNamesCache.get(key);
  if (cached) return cached;
  const text = readBounded(path);
  if (text === undefined) return undefined;
  const names = envNamesOf(text);
  if (envNamesCache.size >= CACHED_ENV_FILES) envNamesCache.delete(envNamesCache.keys().next().value!);
  envNamesCache.set(key, names);
  return names;
}

/**
 * The text of the regular file at `path`, or undefined when it is not one or is larger than
 * `MAX_ENV_FILE_BYTES`. It is opened without blocking and without following a link, and checked
 * again once open: a FIFO, a device or a link put there since it was looked up is never read.
 */
function readBounded(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_ENV_FILE_BYTES) return undefined;
    const buffer = Buffer.alloc(MAX_ENV_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    // It grew while it was read.
    if (length > MAX_ENV_FILE_BYTES) return undefined;
    return buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
