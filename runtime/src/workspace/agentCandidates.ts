/**
 * Finds agent modules beside a config by reading (never running) the files: each
 * `graph.ts`-like module, the exports found in it and the compiled graphs among them, as
 * `module:export` specs. `10xgraph audit` and the language server share this one scanner, so
 * both offer the same specs in the same order.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The extensions `agent` modules may have, in the order the loader tries them. */
export const AGENT_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const;

// A larger file is listed as a module but not read for exports.
const MAX_FILE_BYTES = 512 * 1024;
const MAX_MODULES = 200;

/** A module beside a config, read from its source: its exports, graph-looking ones first. */
export interface AgentModule {
  /** The module as `agent` spells it (no extension). */
  module: string;
  /** The file it resolves to (the first of `AGENT_EXTENSIONS` present). */
  file: string;
  /** Exports that look like compiled graphs, then the other exports. */
  exports: string[];
  /** How many of `exports`, from the start, look like compiled graphs. */
  graphExports: number;
}

/** `module:export` specs found in `dir`, likeliest first (files named graph/agent/app first). */
export function findAgentCandidates(dir: string): string[] {
  return agentSpecs(scanAgentModules(dir));
}

/** The modules in `dir` an `agent` field could name, graph-looking ones first; read synchronously. */
function scanAgentModules(dir: string): AgentModule[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const modules: AgentModule[] = [];
  for (const { module, file } of moduleFiles(dir, names)) {
    try {
      const info = statSync(file);
      if (info.isFile()) modules.push({ module, file, ...moduleExports(info.size <= MAX_FILE_BYTES ? readFileSync(file, 'utf8') : '') });
    } catch {
      // A file that vanished or cannot be read is simply not a candidate.
    }
  }
  return graphsFirst(modules);
}

/** `scanAgentModules` without blocking: the same modules, read with asynchronous file calls. */
export async function readAgentModules(dir: string): Promise<AgentModule[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const modules: AgentModule[] = [];
  for (const { module, file } of moduleFiles(dir, names)) {
    try {
      const info = await stat(file);
      if (info.isFile()) modules.push({ module, file, ...moduleExports(info.size <= MAX_FILE_BYTES ? await readFile(file, 'utf8') : '') });
    } catch {
      // A file that vanished or cannot be read is simply not a candidate.
    }
  }
  return graphsFirst(modules);
}

/**
 * The file each module of a folder listing resolves to: declarations, tests and dot-files are
 * skipped, a module present with several extensions keeps the one the loader tries first, and
 * a folder of thousands of files yields at most `MAX_MODULES`, the same ones on every system.
 */
function moduleFiles(dir: string, names: string[]): Array<{ module: string; file: string }> {
  const byModule = new Map<string, string>();
  for (const name of names.sort().slice(0, MAX_MODULES * 4)) {
    if (name.endsWith('.d.ts') || /\.(test|spec)\.[cm]?[jt]s$/.test(name) || name.startsWith('.')) continue;
    const ext = AGENT_EXTENSIONS.find((e) => name.endsWith(e));
    if (!ext) continue;
    const module = name.slice(0, -ext.length);
    const known = byModule.get(module);
    if (!known || rankOf(ext) < rankOf(known.slice(module.length))) byModule.set(module, name);
    if (byModule.size >= MAX_MODULES) break;
  }
  return [...byModule].map(([module, name]) => ({ module, file: join(dir, name) }));
}

function rankOf(ext: string): number {
  return (AGENT_EXTENSIONS as readonly string[]).indexOf(ext);
}

function graphsFirst(modules: AgentModule[]): AgentModule[] {
  return modules.sort((a, b) => Number(b.graphExports > 0) - Number(a.graphExports > 0) || a.module.localeCompare(b.module));
}

/**
 * The `module:export` specs of the compiled graphs of `modules`, likeliest first: modules named
 * graph, agent, app or main, then the others, each in alphabetical order. The CLI and the
 * language server offer the same specs in the same order.
 */
export function agentSpecs(modules: readonly AgentModule[]): string[] {
  const specs: Array<{ spec: string; rank: number }> = [];
  for (const m of modules) {
    const rank = /^(graph|agent|app|main)$/.test(m.module) ? 0 : 1;
    for (const exportName of m.exports.slice(0, m.graphExports)) specs.push({ spec: `${m.module}:${exportName}`, rank });
  }
  return [...new Set(specs.sort((a, b) => a.rank - b.rank || a.spec.localeCompare(b.spec)).map((s) => s.spec))];
}

const COMPILED = /(export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*[^;]*?\.compile\s*\(/g;
const NAMED = /export\s+(?:const|let|var|function\*?|async\s+function|class)\s+([A-Za-z_$][\w$]*)/g;
const LIST = /export\s*\{([^}]*)\}/g;

/**
 * The exports of a module's source, read (never run): those that look like compiled graphs
 * (`export const app = graph.compile()`, or a compiled local in `export { app }`) first, then the
 * others. `graphExports` says how many of `exports` are graph-looking.
 */
function moduleExports(source: string): { exports: string[]; graphExports: number } {
  const graphs = new Set<string>();
  const compiledLocals = new Set<string>();
  for (const m of source.matchAll(COMPILED)) (m[1] ? graphs : compiledLocals).add(m[2]);
  const others = new Set<string>();
  for (const m of source.matchAll(NAMED)) if (!graphs.has(m[1])) others.add(m[1]);
  for (const m of source.matchAll(LIST)) {
    for (const part of m[1].split(',')) {
      const [local, alias] = part.trim().split(/\s+as\s+/).map((x) => x.trim());
      const name = alias ?? local;
      if (!name || !/^[A-Za-z_$][\w$]*$/.test(name) || graphs.has(name)) continue;
      if (compiledLocals.has(local)) graphs.add(name);
      else others.add(name);
    }
  }
  for (const g of graphs) others.delete(g);
  if (/export\s+default\b/.test(source)) others.add('default');
  return { exports: [...graphs, ...others], graphExports: graphs.size };
}
