/**
 * The project index: the facts (`sourceFacts.ts`) of every JS/TS source of the workspace
 * folders, read from disk (never run) in the background and kept current from file events
 * (`workspace/didChangeWatchedFiles`) and the open documents. A keystroke in a config never
 * waits for it: the scan yields to the event loop after every file, and readers only look at
 * what is indexed so far (`complete` says whether that is everything).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { GitIgnore } from './gitignore';
import { matchAny } from './glob';
import { type ConfigFacts, readConfigFacts } from './configFacts';
import { isSourcePath, readSourceFacts, type SourceFacts } from './sourceFacts';

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
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.hg', '.svn']);

/** One workspace folder to index, the globs of its configs (`10xgraph.files`) and those it excludes (`10xgraph.project.exclude`). */
export interface IndexRoot {
  path: string;
  files: string[];
  exclude: string[];
}

/** What the index knows of one file: a source's facts or a config's. */
export interface FileFacts {
  source?: SourceFacts;
  config?: ConfigFacts;
}

/** One indexed file. */
export interface IndexedFile extends FileFacts {
  path: string;
}

interface Options {
  limits?: IndexLimits;
  log: (message: string) => void;
  /** Facts changed (a file added, changed or removed, or a scan finished); called at most once per turn of the event loop. */
  changed: () => void;
  /** Resolves when the next file may be read: the server gives way to the editor first (default: next turn of the event loop). */
  pause?: () => Promise<void>;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The sources of the workspace folders and what each says about the project. */
export class ProjectIndex {
  private readonly files = new Map<string, FileFacts & { bytes: number }>();
  /** Facts of open documents, which win over the disk. */
  private readonly open = new Map<string, FileFacts>();
  private readonly ignores = new Map<string, GitIgnore | null>();
  private roots: IndexRoot[] = [];
  private scan = 0;
  private scanning: Promise<void> = Promise.resolve();
  private totalBytes = 0;
  private notifyScheduled = false;
  private readonly limits: IndexLimits;
  /** False while a scan runs. */
  complete = true;
  /** Why the index holds only part of the workspace (a bound was reached), or undefined. */
  truncated: string | undefined;
  /** Bumped when names change (what diagnostics depend on), so callers can cache by it. */
  generation = 0;
  /** Bumped on every change of the facts, positions included (what navigation depends on). */
  revision = 0;

  constructor(private readonly options: Options) {
    this.limits = options.limits ?? DEFAULT_INDEX_LIMITS;
  }

  /** Indexes `roots` afresh (in the background); resolves when that scan is done or superseded. */
  setRoots(roots: IndexRoot[]): Promise<void> {
    this.roots = roots;
    const scan = ++this.scan;
    this.complete = false;
    this.scanning = this.run(scan);
    return this.scanning;
  }

  /** Every indexed file (open documents with their current facts). */
  *all(): Iterable<IndexedFile> {
    for (const [path, file] of this.files) yield { path, ...(this.open.get(path) ?? file) };
    for (const [path, facts] of this.open) if (!this.files.has(path) && this.rootOf(path)) yield { path, ...facts };
  }

  /** How many files the index holds. */
  get size(): number {
    return this.files.size;
  }

  /** The facts of one file: indexed or open, or read now when it lies outside the index (an agent module anywhere). */
  async sourceFactsOf(path: string): Promise<SourceFacts | undefined> {
    const known = this.open.get(path)?.source ?? this.files.get(path)?.source;
    if (known) return known;
    try {
      const info = await stat(path);
      if (!info.isFile() || info.size > this.limits.maxFileBytes) return undefined;
      return readSourceFacts(path, await readFile(path, 'utf8'));
    } catch {
      return undefined;
    }
  }

  /** The facts of an open document's text (they win over the disk until it closes). */
  setOpen(path: string, facts: FileFacts, names?: string): void {
    const before = this.open.get(path) ?? this.files.get(path);
    // The caller may know the names key already (cheaper than reading it from the facts).
    if (names !== undefined) namesCache.set(facts, names);
    this.open.set(path, facts);
    this.revision++;
    // Typing moves positions at every keystroke; only a change of names is worth telling.
    if (namesOf(before) !== namesOf(facts)) this.bump();
  }

  /** An open document closed: the disk is the truth again. */
  closeOpen(path: string): void {
    const before = this.open.get(path);
    if (!this.open.delete(path)) return;
    if (!sameFacts(before, this.files.get(path))) this.bump();
  }

  /** A watched file was created, changed or deleted. */
  async fileEvent(path: string, deleted: boolean): Promise<void> {
    if (path.endsWith(`${sep}.gitignore`) || path.endsWith('/.gitignore')) {
      this.ignores.clear();
      await this.setRoots(this.roots);
      return;
    }
    if (deleted) {
      let removed = false;
      for (const known of [...this.files.keys()]) {
        if (known === path || known.startsWith(path + sep)) {
          this.totalBytes -= this.files.get(known)!.bytes;
          this.files.delete(known);
          removed = true;
        }
      }
      if (removed) this.bump();
      return;
    }
    let info;
    try {
      info = await stat(path);
    } catch {
      return this.fileEvent(path, true);
    }
    if (info.isDirectory()) {
      // A folder appeared (moved in, checked out): index what it holds.
      const root = this.rootOf(path);
      if (root && !(await this.isIgnored(root, path, true))) await this.walk(root, path, this.scan, false);
      this.bump();
      return;
    }
    const root = this.rootOf(path);
    if (!root || !this.isWanted(root, path) || (await this.isIgnored(root, path, false))) return;
    await this.indexFile(path, info.size);
  }

  /** Whether `path` lies in a folder the index reads. */
  covers(path: string): boolean {
    return this.rootOf(path) !== undefined;
  }

  private rootOf(path: string): IndexRoot | undefined {
    return this.roots.find((r) => path === r.path || path.startsWith(r.path + sep));
  }

  private isConfig(root: IndexRoot, path: string): boolean {
    const fromRoot = relative(root.path, path).split(sep).join('/');
    return matchAny(root.files, [fromRoot, path.split(sep).join('/')]);
  }

  private isWanted(root: IndexRoot, path: string): boolean {
    return isSourcePath(path) || this.isConfig(root, path);
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
    while (queue.length > 0) {
      if (scan !== this.scan) return;
      const dir = queue.shift()!;
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      await this.loadIgnore(dir);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (scan !== this.scan) return;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!SKIPPED_FOLDERS.has(entry.name) && !(await this.isIgnored(root, path, true))) queue.push(path);
          continue;
        }
        if (!entry.isFile() || !this.isWanted(root, path) || (await this.isIgnored(root, path, false))) continue;
        if (this.files.size >= this.limits.maxFiles) {
          this.truncated = `stopped at ${this.limits.maxFiles} files`;
          return;
        }
        await this.indexFile(path, undefined, !scanning);
        if (this.totalBytes >= this.limits.maxTotalBytes) {
          this.truncated = `stopped at ${Math.round(this.limits.maxTotalBytes / (1024 * 1024))} MB of sources`;
          return;
        }
        await (this.options.pause ?? yieldToEventLoop)();
      }
    }
  }

  private async indexFile(path: string, knownSize: number | undefined, notify = true): Promise<void> {
    try {
      const size = knownSize ?? (await stat(path)).size;
      if (size > this.limits.maxFileBytes) return;
      const text = await readFile(path, 'utf8');
      const facts: FileFacts = isSourcePath(path) ? { source: readSourceFacts(path, text) } : { config: readConfigFacts(text) };
      const before = this.files.get(path);
      this.files.set(path, { ...facts, bytes: size });
      this.totalBytes += size - (before?.bytes ?? 0);
      if (notify && !this.open.has(path) && !sameFacts(before && { source: before.source, config: before.config }, facts)) this.bump();
    } catch {
      // Vanished between the listing and the read: its delete event follows.
    }
  }

  private async loadIgnore(dir: string): Promise<GitIgnore | null> {
    let ignore = this.ignores.get(dir);
    if (ignore !== undefined) return ignore;
    try {
      ignore = new GitIgnore(await readFile(join(dir, '.gitignore'), 'utf8'));
    } catch {
      ignore = null;
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

/** The names key of a config's agent and tools (`node`, `name`), as `namesOf` spells it for its facts. */
export function configNamesKey(agent: string | undefined, tools: ReadonlyArray<readonly [string | undefined, string | undefined]>): string {
  return JSON.stringify([undefined, undefined, false, agent, tools]);
}

/** The names a file's facts hold: what the project's diagnostics depend on. */
function namesOf(facts: FileFacts | undefined): string {
  if (!facts) return '';
  let key = namesCache.get(facts);
  if (key === undefined) namesCache.set(facts, (key = computeNames(facts)));
  return key;
}

const namesCache = new WeakMap<FileFacts, string>();

function computeNames(facts: FileFacts): string {
  const source = facts.source;
  const config = facts.config;
  return JSON.stringify([
    source?.handlers.map((h) => h.name ?? null),
    source?.nodes.map((n) => [n.name ?? null, n.kind]),
    source?.syntaxError !== undefined,
    config?.agent?.value,
    config?.tools.map((t) => [t.name?.value, t.node?.value] as const),
  ]);
}

function sameFacts(a: FileFacts | undefined, b: FileFacts | undefined): boolean {
  return JSON.stringify(a?.source ?? null) === JSON.stringify(b?.source ?? null) && JSON.stringify(a?.config ?? null) === JSON.stringify(b?.config ?? null);
}
