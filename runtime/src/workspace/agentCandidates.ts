/**
 * Finds agent modules beside a config by reading (never running) the files: each
 * `graph.ts`-like module and the compiled graphs it exports, as `module:export` specs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The extensions `agent` modules may have, in the order the loader tries them. */
export const AGENT_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const;

const MAX_FILE_BYTES = 512 * 1024;
const MAX_FILES = 200;

/** A module beside a config, read from its source: its exports, graph-looking ones first. */
export interface ModuleExports {
  /** The module as `agent` spells it (no extension). */
  module: string;
  exports: string[];
  /** How many of `exports`, from the start, look like compiled graphs. */
  graphExports: number;
}

/** `module:export` specs found in `dir`, likeliest first (files named graph/agent/app first). */
export function findAgentCandidates(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const modules: ModuleExports[] = [];
  for (const name of names.slice(0, MAX_FILES)) {
    const ext = AGENT_EXTENSIONS.find((e) => name.endsWith(e));
    if (!ext || name.endsWith('.d.ts') || /\.(test|spec)\./.test(name)) continue;
    const path = join(dir, name);
    let source: string;
    try {
      if (statSync(path).size > MAX_FILE_BYTES) continue;
      source = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    modules.push({ module: name.slice(0, -ext.length), ...moduleExports(source) });
  }
  return agentSpecs(modules);
}

/**
 * The `module:export` specs of the compiled graphs of `modules`, likeliest first: modules named
 * graph, agent, app or main, then the others, each in alphabetical order. The CLI and the
 * language server offer the same specs in the same order.
 */
export function agentSpecs(modules: readonly ModuleExports[]): string[] {
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
export function moduleExports(source: string): { exports: string[]; graphExports: number } {
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
