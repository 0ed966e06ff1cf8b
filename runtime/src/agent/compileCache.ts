/**
 * The cache of compiled agent modules. Compiling a TypeScript agent module means starting
 * esbuild's service, which costs more than the rest of `10xgraph audit` together; the cache
 * keeps the compiled code with the text of every file that went into it, so that a module and
 * its local imports that did not change are not compiled again (as tsx, jiti and babel-loader do).
 *
 * Where: `node_modules/.cache/10xgraph/` in the nearest folder above the module that has a
 * `node_modules` folder (the agent module imports `10xgraph` from there), so the cache belongs
 * to the project, as its packages do. No such folder: no cache. `TENXGRAPH_CACHE=off` (or `0`,
 * `false`) turns it off. An entry is used only when every input file still has the same text,
 * every other file esbuild read (a `tsconfig.json`, a `package.json`) is as it was and every one
 * it looked for and did not find is still missing, no file that would now win the resolution of
 * an import has appeared (./compileInputs.ts), and every package the code requires still
 * resolves to the same file; anything else (a missing, corrupt or foreign entry, an unreadable
 * file) is a miss, and the module is compiled again.
 *
 * Trust: the entry is code that runs. It is believed only when it is a regular file (not a link)
 * of this user that no other user may write, in a folder of the same kind; a cache of someone
 * else (a folder shared by users, a CI cache restored from elsewhere) is never run.
 *
 * Writing is best-effort and atomic (a temporary file renamed into place): a cache that cannot
 * be written never fails a load, and a reader never sees half an entry.
 */
import { chmodSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { listFolder, readConsulted, type ConsultedFile, type FolderListing } from './compileInputs';
import { checkOwnership } from '../workspace/ownership';
import { VERSION } from '../version';

/** Bumped whenever the compile options or the entry's shape change: older entries are then misses. */
const FORMAT = 2;

/** One package the compiled code requires: the specifier, the folder it was resolved from, and the file it resolved to. */
export interface ExternalPackage {
  specifier: string;
  from: string;
  resolved: string;
}

/**
 * What a compile produced and read: the code, each input file's text, the other files esbuild
 * consulted (./compileInputs.ts), the folders where it resolved imports, the packages it requires.
 */
export interface CompiledAgent {
  code: string;
  inputs: Map<string, string>;
  consulted: ConsultedFile[];
  listings: FolderListing[];
  externals: ExternalPackage[];
}

interface Entry {
  format: number;
  file: string;
  inputs: Array<[string, string]>;
  consulted: ConsultedFile[];
  listings: Array<[folder: string, prefix: string, names: string | null]>;
  externals: ExternalPackage[];
  code: string;
}

/** The agent module cache of one module file, or undefined when caching is off or there is no project folder. */
export class AgentCompileCache {
  private constructor(
    private readonly file: string,
    private readonly entryPath: string,
  ) {}

  /** The cache for `file` (an absolute path), following the rules in this module's comment. */
  static for(file: string, compilerVersion: string): AgentCompileCache | undefined {
    const setting = (process.env.TENXGRAPH_CACHE ?? '').trim().toLowerCase();
    if (setting === 'off' || setting === '0' || setting === 'false') return undefined;
    const folder = projectCacheFolder(file);
    if (folder === undefined) return undefined;
    return new AgentCompileCache(file, join(folder, `${entryName(`${FORMAT}\0${VERSION}\0${compilerVersion}\0${file}`)}.json`));
  }

  /** The cached code of the module when the entry is to be believed and everything it was compiled from is as it was; otherwise undefined. */
  read(): string | undefined {
    const text = readTrusted(this.entryPath);
    if (text === undefined) return undefined;
    let entry: Entry;
    try {
      entry = JSON.parse(text) as Entry;
    } catch {
      return undefined;
    }
    // An entry with no inputs could never be found stale: never believed (nor written, below).
    if (!isEntry(entry) || entry.format !== FORMAT || entry.file !== this.file || entry.inputs.length === 0) return undefined;
    // Texts, not digests: comparing a few kilobytes costs less than loading node:crypto.
    for (const [path, text] of entry.inputs) {
      try {
        if (readFileSync(path, 'utf8') !== text) return undefined;
      } catch {
        return undefined;
      }
    }
    for (const [path, text] of entry.consulted) if (readConsulted(path) !== text) return undefined;
    for (const [folder, prefix, names] of entry.listings) if (listFolder(folder, prefix) !== names) return undefined;
    for (const { specifier, from, resolved } of entry.externals) {
      try {
        if (createRequire(join(from, 'index.js')).resolve(specifier) !== resolved) return undefined;
      } catch {
        return undefined;
      }
    }
    return entry.code;
  }

  /** Stores a compile that recorded its inputs; failures are ignored (the next load compiles again). */
  write(compiled: CompiledAgent): void {
    // A compile whose inputs are not all known (see loadAgent) cannot be checked later: not kept.
    if (compiled.inputs.size === 0) return;
    const listings: Entry['listings'] = [];
    for (const { folder, prefix, names } of compiled.listings) {
      // A folder that could not be listed cannot be checked later either.
      if (names === undefined) return;
      listings.push([folder, prefix, names]);
    }
    const entry: Entry = {
      format: FORMAT,
      file: this.file,
      inputs: [...compiled.inputs],
      consulted: compiled.consulted,
      listings,
      externals: compiled.externals,
      code: compiled.code,
    };
    const folder = dirname(this.entryPath);
    const temporary = join(folder, `.${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}.tmp`);
    try {
      mkdirSync(folder, { recursive: true, mode: 0o755 });
      if (!prepareFolder(folder)) return;
      // The mode is given, not left to the umask: an entry others may write would never be believed.
      writeFileSync(temporary, JSON.stringify(entry), { flag: 'wx', mode: 0o644 });
      renameSync(temporary, this.entryPath);
    } catch {
      try {
        unlinkSync(temporary);
      } catch {
        // Never created.
      }
    }
  }
}

/** `node_modules/.cache/10xgraph` of the nearest folder above `file` that has `node_modules`. */
function projectCacheFolder(file: string): string | undefined {
  for (let folder = dirname(file); ; folder = dirname(folder)) {
    const modules = join(folder, 'node_modules');
    // No exception for a missing folder: each one would cost a stack trace.
    if (statSync(modules, { throwIfNoEntry: false })?.isDirectory()) return join(modules, '.cache', '10xgraph');
    if (dirname(folder) === folder) return undefined;
  }
}

/**
 * A file name for `key` (the module's path and the versions): two 32-bit FNV-1a hashes of it,
 * in hex. Not a security boundary: the entry itself names its module, and `read` checks it.
 */
function entryName(key: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193) >>> 0;
    b = Math.imul(b ^ code, 0x85ebca6b) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/** The text of the entry at `path` when it is to be believed (see the module comment), else undefined. */
function readTrusted(path: string): string | undefined {
  try {
    const folder = lstatSync(dirname(path));
    if (!folder.isDirectory() || checkOwnership(folder, { othersMayRead: true }) !== undefined) return undefined;
  } catch {
    return undefined;
  }
  let fd: number;
  try {
    // No link is followed: a planted link to another file is refused by the open itself.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || checkOwnership(info, { othersMayRead: true }) !== undefined) return undefined;
    return readFileSync(fd, 'utf8');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether entries may be written in `folder`: a folder (not a link) of this user. One of ours that
 * others may write is closed to them first (its entries were never believed meanwhile).
 */
function prepareFolder(folder: string): boolean {
  const info = lstatSync(folder);
  if (!info.isDirectory()) return false;
  const distrust = checkOwnership(info, { othersMayRead: true });
  if (distrust === undefined) return true;
  if (info.uid !== process.getuid?.()) return false;
  chmodSync(folder, info.mode & 0o755);
  return true;
}

function isEntry(value: unknown): value is Entry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Partial<Entry>;
  return (
    typeof entry.code === 'string' &&
    Array.isArray(entry.inputs) &&
    entry.inputs.every((input) => Array.isArray(input) && typeof input[0] === 'string' && typeof input[1] === 'string') &&
    Array.isArray(entry.consulted) &&
    entry.consulted.every((file) => Array.isArray(file) && typeof file[0] === 'string' && (typeof file[1] === 'string' || file[1] === null)) &&
    Array.isArray(entry.listings) &&
    entry.listings.every(
      (listing) => Array.isArray(listing) && typeof listing[0] === 'string' && typeof listing[1] === 'string' && (typeof listing[2] === 'string' || listing[2] === null),
    ) &&
    Array.isArray(entry.externals) &&
    entry.externals.every(
      (external) =>
        typeof external === 'object' && external !== null && typeof external.specifier === 'string' && typeof external.from === 'string' && typeof external.resolved === 'string',
    )
  );
}
