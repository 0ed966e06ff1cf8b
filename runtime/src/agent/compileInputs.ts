/**
 * What esbuild reads to bundle an agent module besides the source files themselves, recorded so
 * that the compile cache (./compileCache.ts) can tell when a compile would now come out otherwise:
 *
 * - The config files of each source's folder and of every folder above it, up to the root:
 *   `tsconfig.json` and `jsconfig.json` (their compiler options: `jsx`, `jsxFactory`, decorators…)
 *   with every config they `extends`, and `package.json` (its `type`, `sideEffects`, `main`).
 *   One that is not there is recorded as absent, so that creating it is a change too.
 * - For each relative import, the names of the folder where esbuild looked for it that could
 *   answer it (`second`, `second.tsx`, `second.ts`… for `./second`), and the names in the folder
 *   the import names, when it is one (an `index.tsx`, a `package.json`): a file that would now
 *   win the resolution is a change.
 *
 * Reading these back costs a few `stat` and `readdir` calls, far less than starting esbuild.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import type { Plugin } from 'esbuild';

/** A file esbuild consulted: its path, and its text, or null when there was no such file. */
export type ConsultedFile = [path: string, text: string | null];

/**
 * The names in `folder` that start with `prefix` (all of them for ''), sorted, one a line, each
 * link followed by ` -> ` and its target; `names` is null when `folder` was not a folder, and
 * undefined while recording when it could not be read (such a compile is not cached).
 */
export interface FolderListing {
  folder: string;
  prefix: string;
  names: string | null | undefined;
}

const CONFIG_NAMES = ['tsconfig.json', 'jsconfig.json', 'package.json'];
// esbuild maps an import of `x.js` to `x.ts` (and `.jsx` to `.tsx`…): the stem is what its candidates share.
const JS_EXTENSION = /\.(?:[cm]?js|jsx)$/;

/**
 * The text of the file at `path`, null when there is no file there (nothing, or a folder), or
 * undefined when it cannot be read (the answer would then be unknown).
 */
export function readConsulted(path: string): string | null | undefined {
  try {
    // No exception for a missing file: most of the files looked for are not there.
    const info = statSync(path, { throwIfNoEntry: false });
    if (info === undefined || !info.isFile()) return null;
    return readFileSync(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? null : undefined;
  }
}

/** The listing of `folder` as `FolderListing.names` has it, or undefined when it cannot be read. */
export function listFolder(folder: string, prefix: string): string | null | undefined {
  try {
    const info = statSync(folder, { throwIfNoEntry: false });
    if (info === undefined || !info.isDirectory()) return null;
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.name.startsWith(prefix))
      .map((entry) => (entry.isSymbolicLink() ? `${entry.name} -> ${readlinkSync(join(folder, entry.name))}` : entry.name))
      .sort()
      .join('\n');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? null : undefined;
  }
}

/**
 * Records, for each relative or absolute import esbuild resolves, the listings described in the
 * module comment, keyed by folder and prefix. It never answers the resolution itself: esbuild's
 * own resolver does, as without the plugin.
 */
export function recordResolutions(listings: Map<string, FolderListing>): Plugin {
  return {
    name: '10xgraph-record-resolutions',
    setup(build) {
      build.onResolve({ filter: /^(?:\.\.?(?:[/\\]|$)|[/\\])/ }, (args) => {
        if (args.kind === 'entry-point' || args.namespace !== 'file') return undefined;
        const target = resolve(args.resolveDir, args.path);
        note(listings, dirname(target), basename(target).replace(JS_EXTENSION, ''));
        note(listings, target, '');
        return undefined;
      });
    },
  };
}

function note(listings: Map<string, FolderListing>, folder: string, prefix: string): void {
  const key = `${folder}\0${prefix}`;
  if (listings.has(key)) return;
  listings.set(key, { folder, prefix, names: listFolder(folder, prefix) });
}

/**
 * The config files esbuild consults for `sources` (see the module comment), each with its text or
 * null; undefined when one of them cannot be read, so that the compile is not cached.
 */
export function consultedConfigs(sources: Iterable<string>): ConsultedFile[] | undefined {
  const consulted = new Map<string, string | null>();
  const folders = new Set<string>();
  for (const source of sources) {
    for (let folder = dirname(source); !folders.has(folder); folder = dirname(folder)) {
      folders.add(folder);
      if (dirname(folder) === folder) break;
    }
  }
  for (const folder of folders) {
    for (const name of CONFIG_NAMES) {
      const path = join(folder, name);
      const text = consult(consulted, path);
      if (text === undefined) return undefined;
      if (text !== null && name !== 'package.json' && !followExtends(consulted, path, text)) return undefined;
    }
  }
  return [...consulted];
}

/** Records `path` once; its text, null when absent, undefined when unreadable. */
function consult(consulted: Map<string, string | null>, path: string): string | null | undefined {
  if (consulted.has(path)) return consulted.get(path);
  const text = readConsulted(path);
  if (text === undefined) return undefined;
  consulted.set(path, text);
  return text;
}

/**
 * Records the configs a tsconfig's `extends` names (one or a list), as esbuild looks for them:
 * a path (tried as given, then with `.json`), or a package in the `node_modules` folders above
 * (`NAME`, `NAME.json`, `NAME/tsconfig.json`, with the package's `package.json` for its exports).
 * Every candidate looked at is recorded; the first that is a file is followed. False when one
 * cannot be read.
 */
function followExtends(consulted: Map<string, string | null>, configPath: string, text: string, seen = new Set<string>()): boolean {
  if (seen.has(configPath)) return true;
  seen.add(configPath);
  const value = (parseJsonc(text, [], { allowTrailingComma: true }) as { extends?: unknown } | undefined)?.extends;
  const names = (Array.isArray(value) ? value : [value]).filter((name): name is string => typeof name === 'string' && name !== '');
  for (const name of names) {
    for (const { candidates, alongside } of extendsCandidates(dirname(configPath), name)) {
      for (const path of alongside) if (consult(consulted, path) === undefined) return false;
      let found = false;
      for (const candidate of candidates) {
        const candidateText = consult(consulted, candidate);
        if (candidateText === undefined || (candidateText !== null && !followExtends(consulted, candidate, candidateText, seen))) return false;
        if (candidateText !== null) {
          found = true;
          break;
        }
      }
      if (found) break;
    }
  }
  return true;
}

/** Where esbuild looks for an `extends` of a config in `folder`: groups of candidates (nearest first), and files read beside them. */
function extendsCandidates(folder: string, name: string): Array<{ candidates: string[]; alongside: string[] }> {
  if (name.startsWith('.') || isAbsolute(name)) {
    const path = resolve(folder, name);
    return [{ candidates: path.endsWith('.json') ? [path] : [path, `${path}.json`], alongside: [] }];
  }
  const groups: Array<{ candidates: string[]; alongside: string[] }> = [];
  for (let current = folder; ; current = dirname(current)) {
    const modules = join(current, 'node_modules');
    const path = join(modules, name);
    groups.push({ candidates: [path, `${path}.json`, join(path, 'tsconfig.json')], alongside: [join(modules, packageNameOf(name), 'package.json')] });
    if (dirname(current) === current) return groups;
  }
}

/** `@scope/name` or `name`: the package part of a specifier such as `@tsconfig/node20/tsconfig.json`. */
function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}
