/**
 * Agent modules beside a config, for `agent` completion and hover. The language server never
 * runs workspace code, so it reads the folder and the files' text and guesses exports with a
 * pattern: a `const` whose value ends in `.compile(...)` is a compiled graph and comes first;
 * other exports follow. (The `agent-missing` fix uses the runtime's own `findAgentCandidates`,
 * as `10xgraph audit` does, so both offer the same specs.)
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AGENT_EXTENSIONS, moduleExports } from '../../runtime/src/workspace/agentCandidates';

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

const EXTENSIONS: readonly string[] = AGENT_EXTENSIONS;
const MAX_FILES = 200;
const MAX_FILE_BYTES = 512 * 1024;

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
      modules.push({ module, file, ...moduleExports(source) });
    } catch {
      // A file that vanished or cannot be read is simply not a candidate.
    }
  }
  modules.sort((a, b) => Number(b.graphExports > 0) - Number(a.graphExports > 0) || a.module.localeCompare(b.module));
  return modules;
}
