/**
 * The project index: the facts of every JS/TS source (and, when asked, every Python module) and every config of the project's folders,
 * read from disk (never run) in the background and kept current from file events (the
 * language server's `workspace/didChangeWatchedFiles`) and the open documents. The language
 * server and `10xgraph audit --project` read the project through this one walk, within the same
 * bounds; each says how a file's text becomes its facts. A keystroke in a config never waits
 * for it: the scan yields to the event loop after every file, and readers only look at what is
 * indexed so far (`complete` says whether that is everything).
 *
 * A file event gets the checks of the walk: a symbolic link is never followed (nor a folder
 * reached through one), only folders and regular files are read, within the same bounds, and
 * nothing below a folder the walk leaves out (`node_modules`, `.gitignore`, the exclude setting).
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, sep } from 'node:path';
import { GitIgnore } from './gitignore';
import { matchAny } from './glob';
import { MAX_PYTHON_MODULE_BYTES, PYTHON_MODULE_TOO_LARGE } from './pythonGraph';
import { readRegularFile } from './regularFile';
import { isSourcePath } from './sourceAnalysis';

/** Bounds of one index; a workspace beyond them is indexed in part, and says so. */
export interface IndexLimits {
  maxFiles: number;
  /** Larger files are skipped (generated bundles, minified code). */
  maxFileBytes: number;
  maxTotalBytes: number;
}

/** The default bounds: enough for a large monorepo's own sources, not for its bundles. */
export const DEFAULT_INDEX_LIMITS: IndexLimits = { maxFiles: 20_000, maxFileBytes: 512 * 1024, maxTotalBytes: 256 * 1024 * 1024 };

// Folders no project keeps its own sources in, whatever .gitignore says.
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.hg', '.svn', '__pycache__']);

/**
 * A folder holding a file `pyvenv.cfg` (venv, virtualenv) or a folder `conda-meta` (conda) is a
 * Python environment: installed packages and programs, never the project's own sources, and often
 * tens of thousands of modules, kept in the folders below. The walk leaves those folders out, as
 * it leaves out `node_modules`; the rest of the folder is walked as any other. So one planted
 * marker hides no config or source beside it: only what sits where an environment keeps its packages.
 */
function isEnvironmentMarker(entry: Dirent): boolean {
  return (entry.name === 'pyvenv.cfg' && entry.isFile()) || (entry.name === 'conda-meta' && entry.isDirectory());
}

/** The folders of a Python environment (venv, virtualenv and conda; POSIX and Windows layouts) that hold what it installs. */
const ENVIRONMENT_FOLDERS = new Set(['bin', 'Scripts', 'lib', 'lib64', 'Lib', 'include', 'Include', 'share', 'etc', 'Library', 'DLLs', 'libexec', 'pkgs', 'conda-meta']);

/** One workspace folder to index, the globs of its configs (`10xgraph.files`) and those it excludes (`10xgraph.project.exclude`). */
export interface IndexRoot {
  path: string;
  files: string[];
  exclude: string[];
}

/** One indexed file and its facts. */
export type IndexedFile<F extends object> = F & { path: string };

/** What a file is to the index: a JS/TS source (`isSourcePath`), a Python module (`.py`) or a config (a path the root's `files` globs match). */
export type IndexedKind = 'source' | 'python' | 'config';

/** Whether `path` is a Python module (`.py`), which an index reads when its `python` option says so. */
export function isPythonPath(path: string): boolean {
  return extname(path) === '.py';
}

/** What an index needs: how a file's text becomes its facts, and the names they hold. */
export interface ProjectIndexOptions<F extends object> {
  /** The facts of a file's text: a source, a Python module or a config. */
  read: (path: string, text: string, kind: IndexedKind) => F;
  /** The walk reads Python modules (`.py`) too, within the same bounds (the language server's agent modules of a Python project). */
  python?: boolean;
  /** The names facts hold (what the project's diagnostics depend on): a change of them bumps `generation`. */
  names: (facts: F) => string;
  limits?: IndexLimits;
  log: (message: string) => void;
  /** Facts changed (a file added, changed or removed, or a scan finished); called at most once per turn of the event loop. */
  changed: () => void;
  /** Resolves when the next file may be read: the server gives way to the editor first (default: next turn of the event loop). */
  pause?: () => Promise<void>;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

// The walk gives the event loop a turn at least this often (ms), also between entries it does not read.
const SLICE_MS = 10;

/** The sources and configs of the project's folders and what each says about the project. */
export class ProjectIndex<F extends object> {
  private readonly files = new Map<string, { facts: F; bytes: number }>();
  /** The Python environments the walk found, whose `ENVIRONMENT_FOLDERS` it left out. */
  private readonly environments = new Set<string>();
  /** Facts of open documents, which win over the disk. */
  private readonly open = new Map<string, F>();
  private readonly namesCache = new WeakMap<F, string>();
  private readonly ignores = new Map<string, GitIgnore | null>();
  private roots: IndexRoot[] = [];
  private scan = 0;
  private scanning: Promise<void> = Promise.resolve();
  private totalBytes = 0;
  private notifyScheduled = false;
  /** The bounds of this index (an open document is read within `maxFileBytes` too). */
  readonly limits: IndexLimits;
  /** False while a scan runs. */
  complete = true;
  /** Why the index holds only part of the workspace (a bound was reached), or undefined. */
  truncated: string | undefined;
  /** Bumped when names change (what diagnostics depend on), so callers can cache by it. */
  generation = 0;
  /** Bumped on every change of the facts, positions included (what navigation depends on). */
  revision = 0;

  constructor(private readonly options: ProjectIndexOptions<F>) {
    this.limits = options.limits ?? DEFAULT_INDEX_LIMITS;
  }

  /** Indexes `roots` afresh (in the background); resolves when that scan is done or superseded. */
  setRoots(roots: IndexRoot[]): Promise<void> {
    this.roots = roots;
    const scan = ++this.scan;
    this.complete = false;
    this.environments.clear();
    this.scanning = this.run(scan);
    return this.scanning;
  }

  /** Every indexed file (open documents with their current facts). */
  *all(): Iterable<IndexedFile<F>> {
    for (const [path, file] of this.files) yield { path, ...(this.open.get(path) ?? file.facts) };
    for (const [path, facts] of this.open) if (!this.files.has(path) && this.rootOf(path)) yield { path, ...facts };
  }

  /** How many files the index holds. */
  get size(): number {
    return this.files.size;
  }

  /** The facts of a file the index holds (open or read), without reading anything; undefined for any other. */
  known(path: string): F | undefined {
    return this.open.get(path) ?? this.files.get(path)?.facts;
  }

  /** The facts of one source: indexed or open, or read now when it lies outside the index (an agent module anywhere). */
  async factsOf(path: string): Promise<F | undefined> {
    const known = this.open.get(path) ?? this.files.get(path)?.facts;
    if (known) return known;
    // A link is followed (the loader follows it too), but only a regular file within the bound is
    // read: a Python module within the Python reader's own (what `10xgraph audit` reads), so the
    // editor's verdict on an agent module is the audit's.
    const python = isPythonPath(path);
    const read = await readRegularFile(path, python ? Math.max(this.limits.maxFileBytes, MAX_PYTHON_MODULE_BYTES) : this.limits.maxFileBytes, true);
    return 'text' in read ? this.options.read(path, read.text, python ? 'python' : 'source') : undefined;
  }

  /** The facts of an open document's text (they win over the disk until it closes). */
  setOpen(path: string, facts: F, names?: string): void {
    const before = this.open.get(path) ?? this.files.get(path)?.facts;
    // The caller may know the names key already (cheaper than reading it from the facts).
    if (names !== undefined) this.namesCache.set(facts, names);
    this.open.set(path, facts);
    this.revision++;
    // Typing moves positions at every keystroke; only a change of names is worth telling.
    if (this.namesOf(before) !== this.namesOf(facts)) this.bump();
  }

  /** The names a file's facts hold (cached per facts object). */
  private namesOf(facts: F | undefined): string {
    if (!facts) return '';
    let key = this.namesCache.get(facts);
    if (key === undefined) this.namesCache.set(facts, (key = this.options.names(facts)));
    return key;
  }

  /** An open document closed: the disk is the truth again. */
  closeOpen(path: string): void {
    const before = this.open.get(path);
    if (!this.open.delete(path)) return;
    if (!sameFacts(before, this.files.get(path)?.facts)) this.bump();
  }

  /** A watched file was created, changed or deleted. */
  async fileEvent(path: string, deleted: boolean): Promise<void> {
    const root = this.rootOf(path);
    // The index holds nothing outside the workspace folders.
    if (!root) return;
    if (basename(path) === '.gitignore') {
      this.ignores.clear();
      await this.setRoots(this.roots);
      return;
    }
    if (deleted) return this.forget(path);
    let info;
    try {
      info = await lstat(path);
    } catch {
      return this.forget(path);
    }
    // What the walk would not have read is dropped (a file replaced by a link, moved below an ignored folder).
    if (!(info.isFile() || info.isDirectory()) || !(await this.reaches(root, path, info.isDirectory()))) return this.forget(path);
    if (info.isDirectory()) {
      // A folder appeared (moved in, checked out): index what it holds.
      await this.walk(root, path, this.scan, false);
      this.bump();
      return;
    }
    if (!this.isWanted(root, path)) return;
    if (!this.files.has(path)) {
      const bound = this.boundReached();
      if (bound) {
        this.truncated = bound;
        this.bump();
        return;
      }
    }
    await this.indexFile(path);
  }

  /** Whether `path` lies in a folder the index reads. */
  covers(path: string): boolean {
    return this.rootOf(path) !== undefined;
  }

  /**
   * Whether `path` belongs to the project, as the walk sees it: in a workspace folder, not below a
   * link, `node_modules` or a folder `.gitignore` or the exclude setting leaves out, nor left out itself.
   * What the server changes in the workspace (a rename's edits) stays within it.
   */
  async includes(path: string): Promise<boolean> {
    const root = this.rootOf(path);
    return root !== undefined && (await this.reaches(root, path, false));
  }

  /** Drops what is known of `path` (a file, or a folder and what it held). */
  private forget(path: string): void {
    let removed = false;
    for (const known of [...this.files.keys()]) {
      if (known === path || known.startsWith(path + sep)) {
        this.totalBytes -= this.files.get(known)!.bytes;
        this.files.delete(known);
        removed = true;
      }
    }
    if (removed) this.bump();
  }

  /**
   * Whether the walk reaches `path` below `root`: every folder on the way is a real folder (a
   * link is never entered) that is not left out, and `path` itself is not. A folder that does not
   * exist (an unsaved document's) holds no link.
   */
  private async reaches(root: IndexRoot, path: string, isFolder: boolean): Promise<boolean> {
    // The folder itself: its own .gitignore speaks of what it holds, not of it.
    if (path === root.path) return true;
    const parts = relative(root.path, path).split(sep);
    let dir = root.path;
    for (const part of parts.slice(0, -1)) {
      dir = join(dir, part);
      const info = await lstat(dir).catch(() => undefined);
      if ((info && !info.isDirectory()) || (await this.isIgnored(root, dir, true))) return false;
    }
    return !(await this.isIgnored(root, path, isFolder));
  }

  /** Why no further file may join the index, or undefined while it is within its bounds. */
  private boundReached(): string | undefined {
    if (this.files.size >= this.limits.maxFiles) return `stopped at ${this.limits.maxFiles} files`;
    if (this.totalBytes >= this.limits.maxTotalBytes) return `stopped at ${Math.round(this.limits.maxTotalBytes / (1024 * 1024))} MB of sources`;
    return undefined;
  }

  private rootOf(path: string): IndexRoot | undefined {
    return this.roots.find((r) => path === r.path || path.startsWith(r.path + sep));
  }

  private isConfig(root: IndexRoot, path: string): boolean {
    const fromRoot = relative(root.path, path).split(sep).join('/');
    return matchAny(root.files, [fromRoot, path.split(sep).join('/')]);
  }

  private isWanted(root: IndexRoot, path: string): boolean {
    return isSourcePath(path) || (this.options.python === true && isPythonPath(path)) || this.isConfig(root, path);
  }

  private kindOf(path: string): IndexedKind {
    if (isSourcePath(path)) return 'source';
    return this.options.python === true && isPythonPath(path) ? 'python' : 'config';
  }

  private bump(): void {
    this.generation++;
    this.revision++;
    if (this.notifyScheduled) return;
    this.notifyScheduled = true;
    setImmediate(() => {
      this.notifyScheduled = false;
      this.options.changed();
    });
  }

  private async run(scan: number): Promise<void> {
    await this.scanning.catch(() => undefined);
    if (scan !== this.scan) return;
    // The first file waits as every next one does: the host may let other work go first.
    await (this.options.pause ?? yieldToEventLoop)();
    if (scan !== this.scan) return;
    const started = Date.now();
    this.files.clear();
    this.totalBytes = 0;
    this.truncated = undefined;
    try {
      for (const root of this.roots) {
        if (scan !== this.scan) return;
        await this.walk(root, root.path, scan, true);
      }
    } catch (error) {
      this.options.log(`10xgraph: the project index stopped (${error instanceof Error ? error.message : String(error)}).`);
    }
    if (scan !== this.scan) return;
    this.complete = true;
    this.options.log(`10xgraph: indexed ${this.files.size} source files in ${Date.now() - started} ms${this.truncated ? ` (${this.truncated})` : ''}.`);
    this.bump();
  }

  /** Indexes the sources below `folder` (breadth first), yielding to the event loop after each file. */
  private async walk(root: IndexRoot, folder: string, scan: number, scanning: boolean): Promise<void> {
    const queue = [folder];
    let slice = Date.now();
    while (queue.length > 0) {
      if (scan !== this.scan) return;
      const dir = queue.shift()!;
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      const environment = dir !== folder && entries.some(isEnvironmentMarker);
      if (environment) this.environments.add(dir);
      await this.loadIgnore(dir);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (Date.now() - slice >= SLICE_MS) {
          await yieldToEventLoop();
          slice = Date.now();
        }
        if (scan !== this.scan) return;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!SKIPPED_FOLDERS.has(entry.name) && !(environment && ENVIRONMENT_FOLDERS.has(entry.name)) && !(await this.isIgnored(root, path, true))) queue.push(path);
          continue;
        }
        if (!entry.isFile() || !this.isWanted(root, path) || (await this.isIgnored(root, path, false))) continue;
        if (this.files.size >= this.limits.maxFiles) {
          this.truncated = `stopped at ${this.limits.maxFiles} files`;
          return;
        }
        await this.indexFile(path, !scanning);
        if (this.totalBytes >= this.limits.maxTotalBytes) {
          this.truncated = `stopped at ${Math.round(this.limits.maxTotalBytes / (1024 * 1024))} MB of sources`;
          return;
        }
        await (this.options.pause ?? yieldToEventLoop)();
        slice = Date.now();
      }
    }
  }

  private async indexFile(path: string, notify = true): Promise<void> {
    // Larger than the bound, not a regular file (a FIFO would block the read forever), a link, or vanished (its delete event follows).
    const read = await readRegularFile(path, this.limits.maxFileBytes);
    if ('skipped' in read) {
      if (this.files.has(path)) this.forget(path);
      // A file the index does not hold may still be read by name (an agent module over the bound
      // of a source, read within the Python reader's): what was read of it is out of date.
      else if (notify && !read.missing) this.bump();
      return;
    }
    const facts = this.options.read(path, read.text, this.kindOf(path));
    const before = this.files.get(path);
    this.files.set(path, { facts, bytes: read.bytes });
    this.totalBytes += read.bytes - (before?.bytes ?? 0);
    if (notify && !this.open.has(path) && !sameFacts(before?.facts, facts)) this.bump();
  }

  private async loadIgnore(dir: string): Promise<GitIgnore | null> {
    let ignore = this.ignores.get(dir);
    if (ignore !== undefined) return ignore;
    const file = join(dir, '.gitignore');
    const read = await readRegularFile(file, this.limits.maxFileBytes);
    ignore = null;
    if ('text' in read) {
      ignore = new GitIgnore(read.text);
      for (const problem of ignore.problems) this.options.log(`10xgraph: line ${problem.line} of ${file} is not used: ${problem.reason}.`);
    } else if (!read.missing) {
      this.options.log(`10xgraph: ${file} is not read: ${read.skipped}.`);
    }
    this.ignores.set(dir, ignore);
    return ignore;
  }

  /** Whether `path` is excluded by the setting or by a `.gitignore` of its folder or any folder above, up to the root. */
  private async isIgnored(root: IndexRoot, path: string, isFolder: boolean): Promise<boolean> {
    const fromRoot = relative(root.path, path).split(sep).join('/');
    if (root.exclude.length > 0 && matchAny(root.exclude, [fromRoot, fromRoot + (isFolder ? '/' : '')])) return true;
    const parts = fromRoot.split('/');
    if (parts.some((p) => SKIPPED_FOLDERS.has(p))) return true;
    for (let dir = dirname(path); dir.length > root.path.length; dir = dirname(dir)) {
      if (ENVIRONMENT_FOLDERS.has(basename(dir)) && this.environments.has(dirname(dir))) return true;
    }
    let verdict = false;
    let dir = root.path;
    for (let i = 0; i < parts.length; i++) {
      const ignore = await this.loadIgnore(dir);
      const said = ignore?.verdict(parts.slice(i).join('/'), isFolder);
      if (said !== undefined) verdict = said;
      dir = join(dir, parts[i]);
    }
    return verdict;
  }
}

function sameFacts(a: object | undefined, b: object | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * Why `factsOf` gave nothing for the Python module at `path`: `PYTHON_MODULE_TOO_LARGE` for a
 * regular file over the Python reader's bound, undefined otherwise (missing, or not a regular file:
 * as if there were no module).
 */
export async function pythonModuleNotRead(path: string): Promise<string | undefined> {
  const size = await stat(path).then(
    (info) => (info.isFile() ? info.size : 0),
    () => 0,
  );
  return size > MAX_PYTHON_MODULE_BYTES ? PYTHON_MODULE_TOO_LARGE : undefined;
}
