/**
 * Finds agent modules beside a config by reading (never running) the files: each
 * `graph.ts`-like module, the exports found in it and the compiled graphs among them, as
 * `module:export` specs. `10xgraph audit` and the language server share this one scanner, so
 * both offer the same specs in the same order; the exports are read by the project's one source
 * reader (`sourceAnalysis.ts`). The files may be anyone's (an untrusted
 * workspace), so the scan is linear in what it reads and reads a bounded amount: the start of
 * each file, a budget per folder, a bounded number of modules.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AGENT_EXTENSIONS, analyzeSource } from './sourceAnalysis';

// Only the start of a module is read for its exports, and only so much of a folder in all:
// a folder of huge or many files costs a bounded read, never a frozen editor.
const MAX_FILE_BYTES = 256 * 1024;
const MAX_FOLDER_BYTES = 2 * 1024 * 1024;
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
  let budget = MAX_FOLDER_BYTES;
  for (const { module, file } of moduleFiles(dir, names)) {
    try {
      const info = statSync(file);
      if (!info.isFile()) continue;
      const source = budget > 0 ? readStartSync(file, Math.min(MAX_FILE_BYTES, budget)) : '';
      budget -= Math.min(info.size, MAX_FILE_BYTES);
      modules.push({ module, file, ...exportsOf(source) });
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
  let budget = MAX_FOLDER_BYTES;
  for (const { module, file } of moduleFiles(dir, names)) {
    try {
      const info = await stat(file);
      if (!info.isFile()) continue;
      const source = budget > 0 ? await readStart(file, Math.min(MAX_FILE_BYTES, budget)) : '';
      budget -= Math.min(info.size, MAX_FILE_BYTES);
      modules.push({ module, file, ...exportsOf(source) });
    } catch {
      // A file that vanished or cannot be read is simply not a candidate.
    }
  }
  return graphsFirst(modules);
}

/** The first `maxBytes` of `file` as text (a character cut at the end becomes U+FFFD). */
function readStartSync(file: string, maxBytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes);
    let length = 0;
    while (length < maxBytes) {
      const n = readSync(fd, buffer, length, maxBytes - length, length);
      if (n === 0) break;
      length += n;
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

/** `readStartSync` with asynchronous file calls. */
async function readStart(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes);
    let length = 0;
    while (length < maxBytes) {
      const { bytesRead } = await handle.read(buffer, length, maxBytes - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
}

/**
 * The file each module of a folder listing resolves to: declarations, tests and dot-files are
 * skipped, a module present with several extensions keeps the one the loader tries first, and
 * a folder of thousands of files yields at most `MAX_MODULES`, the same ones on every system.
 * Modules named graph, agent, app or main come first, so the read budget goes to them first.
 */
function moduleFiles(dir: string, names: string[]): Array<{ module: string; file: string }> {
  const byModule = new Map<string, string>();
  for (const name of names) {
    if (name.startsWith('.') || name.endsWith('.d.ts') || isTestFile(name)) continue;
    const ext = AGENT_EXTENSIONS.find((e) => name.endsWith(e));
    if (!ext) continue;
    const module = name.slice(0, -ext.length);
    const known = byModule.get(module);
    if (!known || rankOf(ext) < rankOf(known.slice(module.length))) byModule.set(module, name);
  }
  return [...byModule]
    .sort(([a], [b]) => Number(!LIKELY.has(a)) - Number(!LIKELY.has(b)) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_MODULES)
    .map(([module, name]) => ({ module, file: join(dir, name) }));
}

const LIKELY: ReadonlySet<string> = new Set(['graph', 'agent', 'app', 'main']);

/** `x.test.ts`, `x.spec.mjs` and the like. */
function isTestFile(name: string): boolean {
  const parts = name.split('.');
  return parts.length >= 3 && (parts[parts.length - 2] === 'test' || parts[parts.length - 2] === 'spec');
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
    const rank = LIKELY.has(m.module) ? 0 : 1;
    for (const exportName of m.exports.slice(0, m.graphExports)) specs.push({ spec: `${m.module}:${exportName}`, rank });
  }
  return [...new Set(specs.sort((a, b) => a.rank - b.rank || a.spec.localeCompare(b.spec)).map((s) => s.spec))];
}

/** The exports of a module's source, graph-looking ones first (see `analyzeSource`). */
function exportsOf(source: string): { exports: string[]; graphExports: number } {
  const { exports, graphExports } = analyzeSource(source);
  return { exports, graphExports };
}
