/**
 * Agent modules beside a config, for `agent` completion and hover. The language server never
 * runs workspace code, so it reads the folder and the files' text and guesses exports with a
 * pattern: a `const` whose value ends in `.compile(...)` is a compiled graph and comes first;
 * other exports follow. (The `agent-missing` fix uses the runtime's own `findAgentCandidates`,
 * as `10xgraph audit` does, so both offer the same specs.)
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** One module the `agent` field could name, with the exports found in it. */
export interface AgentModule {
  /** The module path as `agent` spells it (no extension). */
  module: string;
  /** The file it resolves to. */
  file: string;
  /** Exports that look like compiled graphs, then the other exports. */
  exports: string[];
  /** How many of `exports`, from the start, look like compiled graphs. */
  graphExports: number;
}

// The runtime resolves `graph` to the first of these that exists (SPEC §1).
const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];
const MAX_FILES = 200;
const MAX_FILE_BYTES = 512 * 1024;

const COMPILED = /export\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*[^;]*?\.compile\s*\(/g;
const NAMED = /export\s+(?:const|let|var|function\*?|async\s+function|class)\s+([A-Za-z_$][\w$]*)/g;
const LIST = /export\s*\{([^}]*)\}/g;

function exportsOf(source: string): { exports: string[]; graphExports: number } {
  const graphs = new Set<string>();
  for (const m of source.matchAll(COMPILED)) graphs.add(m[1]);
  const others = new Set<string>();
  for (const m of source.matchAll(NAMED)) if (!graphs.has(m[1])) others.add(m[1]);
  for (const m of source.matchAll(LIST)) {
    for (const part of m[1].split(',')) {
      const name = part.trim().split(/\s+as\s+/).pop()?.trim();
      if (name && /^[A-Za-z_$][\w$]*$/.test(name) && !graphs.has(name)) others.add(name);
    }
  }
  if (/export\s+default\b/.test(source)) others.add('default');
  return { exports: [...graphs, ...others], graphExports: graphs.size };
}

/** Lists the modules in `folder` an `agent` field could name, graph-looking ones first. */
export async function findAgentModules(folder: string): Promise<AgentModule[]> {
  let names: string[];
  try {
    names = (await readdir(folder)).sort();
  } catch {
    return [];
  }
  const byModule = new Map<string, string>();
  for (const name of names.slice(0, MAX_FILES * 4)) {
    if (name.endsWith('.d.ts') || /\.(test|spec)\.[cm]?[jt]s$/.test(name) || name.startsWith('.')) continue;
    const ext = EXTENSIONS.find((e) => name.endsWith(e));
    if (!ext) continue;
    const module = name.slice(0, -ext.length);
    const known = byModule.get(module);
    if (!known || EXTENSIONS.indexOf(ext) < EXTENSIONS.indexOf(known.slice(module.length))) byModule.set(module, name);
    if (byModule.size >= MAX_FILES) break;
  }
  const modules: AgentModule[] = [];
  for (const [module, name] of byModule) {
    const file = join(folder, name);
    try {
      const info = await stat(file);
      if (!info.isFile()) continue;
      const source = info.size <= MAX_FILE_BYTES ? await readFile(file, 'utf8') : '';
      modules.push({ module, file, ...exportsOf(source) });
    } catch {
      // A file that vanished or cannot be read is simply not a candidate.
    }
  }
  modules.sort((a, b) => Number(b.graphExports > 0) - Number(a.graphExports > 0) || a.module.localeCompare(b.module));
  return modules;
}
