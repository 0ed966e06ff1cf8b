/**
 * The files beside a config, as the editor, `10xgraph audit` and `10xgraph api` tell the rule set
 * of them (`AuditOptions.files`, docs/spec.md §1): the config's own name (with the legacy
 * `agentflow.json`), whether a file exists, and the `env` dotenv file, read bounded. Only
 * `10xgraph api` ever takes a value out of an env file, to load it into its own environment.
 */
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep, win32 } from 'node:path';
import type { ConfigFiles } from '../rules/types';
import { dotenvValues, envNamesOf } from './dotenv';

/** The config's name. */
export const CONFIG_FILE = '10xgraph.json';
/** Its name before the rename, read when no `10xgraph.json` exists (as the 10xGraph server does). */
export const LEGACY_CONFIG_FILE = 'agentflow.json';

/** `10xgraph.json` in `dir`, or `agentflow.json` when only that one exists there. */
export function defaultConfigPath(dir = process.cwd()): string {
  const current = join(dir, CONFIG_FILE);
  const legacy = join(dir, LEGACY_CONFIG_FILE);
  return !existsSync(current) && existsSync(legacy) ? legacy : current;
}

/** An env file is read only up to this size: it is a list of settings, never data. */
export const MAX_ENV_FILE_BYTES = 256 * 1024;
// Paths longer or deeper than any a config names are not looked up.
const MAX_PATH_LENGTH = 1024;
const MAX_SEGMENTS = 32;
// The names of this many env files (by path and modification) are kept between checks.
const CACHED_ENV_FILES = 32;

/** An env file read whole, or why it was not. */
export type EnvFileRead = { text: string } | { missing: true } | { unread: string };

/**
 * The env file at `path`, read whole, or why not: missing, not a regular file, or larger than
 * `MAX_ENV_FILE_BYTES`, never cut. It is opened without blocking and without following a last
 * link, and checked once open: a FIFO or a device is never read.
 */
export function readEnvFile(path: string, knownSize?: number): EnvFileRead {
  if (knownSize !== undefined && knownSize > MAX_ENV_FILE_BYTES) return { unread: tooLarge() };
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? { missing: true } : { unread: code === 'ELOOP' ? 'it is a symbolic link' : `it cannot be opened (${code ?? 'error'})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { unread: `it is ${kindOf(stats)}, not a regular file` };
    if (stats.size > MAX_ENV_FILE_BYTES) return { unread: tooLarge() };
    const buffer = Buffer.alloc(MAX_ENV_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    // It grew while it was read.
    if (length > MAX_ENV_FILE_BYTES) return { unread: tooLarge() };
    return { text: buffer.toString('utf8', 0, length) };
  } catch (error) {
    return { unread: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    closeSync(fd);
  }
}

function tooLarge(): string {
  return `it is larger than ${MAX_ENV_FILE_BYTES / 1024} KB`;
}

/** What a file that is not a regular one is, for a message. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'a special file';
}

/** Where a path of the config leads: a file system path below the allowed folders, nothing there, or a path not looked up. */
type Resolved = { kind: 'found'; path: string; stats: Stats } | { kind: 'missing' } | { kind: 'refused' };

/** What `configFilesOf` is told beside the config's path. */
export interface ConfigFilesOptions {
  /** The names set in the environment the server runs in (the start-up of `10xgraph api`). */
  environment?: ReadonlySet<string>;
  /** Folders (the workspace folders holding the config) a symbolic link below the config's folder may lead into. */
  roots?: readonly string[];
}

/**
 * What the rule set may know of the files of the config at `configPath`: which exist, and the
 * names (never the values) the env file sets. The folder is not trusted to be harmless (the
 * editor, `audit` and `audit --project` read it the same way): a path is looked up only below the
 * config's folder (no `..`, no absolute path, no symbolic link out of that folder or of
 * `options.roots`), the env file is read only when it is a regular file of at most
 * `MAX_ENV_FILE_BYTES`, its parse is linear in its length, and only names are kept.
 */
export function configFilesOf(configPath: string, options: ConfigFilesOptions = {}): ConfigFiles {
  const folder = dirname(resolve(configPath));
  let roots: string[] | undefined;
  const rootsOf = () => (roots ??= allowedRoots(folder, options.roots ?? []));
  const resolved = new Map<string, Resolved>();
  const find = (path: string) => {
    let found = resolved.get(path);
    if (!found) resolved.set(path, (found = resolveBelow(path, rootsOf())));
    return found;
  };
  const files: ConfigFiles = {
    fileExists(path) {
      const found = find(path);
      // A path that is not looked up is not said to be missing: nothing is known of it.
      return found.kind === 'refused' || (found.kind === 'found' && found.stats.isFile());
    },
    notRegular(path) {
      const found = find(path);
      return found.kind === 'found' && !found.stats.isFile() ? kindOf(found.stats) : undefined;
    },
    envNames(path) {
      const found = find(path);
      return found.kind === 'found' ? envNamesOfFile(found.path, found.stats) : undefined;
    },
  };
  if (options.environment) files.environment = options.environment;
  return files;
}

/** The real paths of the config's folder and of the given folders that hold it (empty when the folder cannot be resolved). */
function allowedRoots(folder: string, others: readonly string[]): string[] {
  const real = realPath(folder);
  if (real === undefined) return [];
  const roots = [real];
  for (const other of others) {
    const path = realPath(other);
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
  const read = readEnvFile(path);
  if (!('text' in read)) return undefined;
  const names = envNamesOf(read.text);
  if (envNamesCache.size >= CACHED_ENV_FILES) envNamesCache.delete(envNamesCache.keys().next().value!);
  envNamesCache.set(key, names);
  return names;
}

/** An env file `10xgraph api` cannot load: it refuses to start rather than run without its variables. */
export class EnvFileError extends Error {}

/**
 * Loads the env file `path` (relative to the config's folder) into `env`, keeping every variable
 * already set, as the 10xGraph server does before it imports the agent module. Returns the
 * names it set; a missing file sets none.
 */
export function loadEnvFile(configPath: string, path: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const full = resolve(dirname(resolve(configPath)), path);
  const read = readEnvFile(full);
  if ('missing' in read) return [];
  // Cut or skipped, the server would run with some variables unset or wrong: it stops and says why.
  if ('unread' in read) throw new EnvFileError(`the env file "${path}" cannot be loaded: ${read.unread}`);
  const set: string[] = [];
  for (const [name, value] of dotenvValues(read.text, env)) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}
