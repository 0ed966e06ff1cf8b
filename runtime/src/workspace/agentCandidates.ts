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

/** `module:export` specs found in `dir`, likeliest first (files named graph/agent/app first). */
export function findAgentCandidates(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const specs: Array<{ spec: string; rank: number }> = [];
  for (const name of names.slice(0, MAX_FILES)) {
    const ext = AGENT_EXTENSIONS.find((e) => name.endsWith(e));
    if (!ext || name.endsWith('.d.ts') || /\.(test|spec)\./.test(name)) continue;
    const module = name.slice(0, -ext.length);
    const path = join(dir, name);
    let source: string;
    try {
      if (statSync(path).size > MAX_FILE_BYTES) continue;
      source = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    const rank = /^(graph|agent|app|main)$/.test(module) ? 0 : 1;
    for (const exportName of compiledGraphExports(source)) specs.push({ spec: `${module}:${exportName}`, rank });
  }
  return [...new Set(specs.sort((a, b) => a.rank - b.rank || a.spec.localeCompare(b.spec)).map((s) => s.spec))];
}

/** Names of exports that look like compiled graphs (`export const app = graph.compile()`). */
export function compiledGraphExports(source: string): string[] {
  const names: string[] = [];
  const direct = /export\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*[^;]*?\.compile\s*\(/g;
  for (let m = direct.exec(source); m; m = direct.exec(source)) names.push(m[1]);
  if (names.length === 0) {
    const compiled = /(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*[^;]*?\.compile\s*\(/g;
    const locals = new Set<string>();
    for (let m = compiled.exec(source); m; m = compiled.exec(source)) locals.add(m[1]);
    const list = /export\s*\{([^}]*)\}/g;
    for (let m = list.exec(source); m; m = list.exec(source)) {
      for (const part of m[1].split(',')) {
        const [local, alias] = part.trim().split(/\s+as\s+/);
        if (locals.has(local)) names.push(alias ?? local);
      }
    }
  }
  return names;
}
