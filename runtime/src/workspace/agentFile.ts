/**
 * The file an `agent` spec names, found as the loader finds it, without running it: the
 * language server's links and graph-from-source and `10xgraph audit --project` read this file.
 */
import { access } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { splitAgentSpec } from '../rules/index';
import { pythonModuleFiles } from './pythonModules';
import { AGENT_EXTENSIONS, AGENT_FILE_EXTENSIONS } from './sourceAnalysis';

// A Python module path: dotted identifiers, as the 10xGraph server imports it.
const PYTHON_MODULE = /^[\p{L}_][\p{L}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{N}_]*)*$/u;

/**
 * The files `module` (the part of an `agent` spec before its colon) may be, relative to the
 * config's `folder`, in the order they are tried: a TypeScript or JavaScript module (`graph` is
 * `graph.ts`, `graph.mts`, `graph.js` or `graph.mjs`; `graph.mjs` is itself) or a Python one
 * (`graph.react` is the package `graph/react/__init__.py` or the module `graph/react.py`, in the order Python's path finder tries them). A dotted module is Python's
 * first (dots are its package separator), an undotted one TypeScript's. The loader and the
 * readers of the workspace look for the same files in the same order.
 */
export function agentModuleCandidates(folder: string, module: string): string[] {
  const base = resolve(folder, module);
  const scripts = (AGENT_FILE_EXTENSIONS as readonly string[]).includes(extname(base)) ? [base] : AGENT_EXTENSIONS.map((ext) => base + ext);
  const pythonBase = PYTHON_MODULE.test(module) ? join(folder, ...module.split('.')) : undefined;
  const python = pythonBase === undefined ? [] : pythonModuleFiles(pythonBase);
  return module.includes('.') ? [...python, ...scripts] : [...scripts, ...python];
}

/**
 * The file `agent` names, relative to the config's folder, as the loader resolves it (the same
 * candidates in the same order, `agentModuleCandidates`); undefined when no such file exists or
 * the spec is malformed.
 */
export async function resolveAgentFile(configPath: string, spec: string): Promise<string | undefined> {
  const parts = splitAgentSpec(spec);
  if (!parts) return undefined;
  for (const candidate of agentModuleCandidates(dirname(resolve(configPath)), parts.module)) {
    try {
      await access(candidate);
      return candidate;
    } catch {
      // Try the next candidate, as the loader does.
    }
  }
  return undefined;
}
