/**
 * The file an `agent` spec names, found as the loader finds it, without running it: the
 * language server's links and graph-from-source and `10xgraph audit --project` read this file.
 */
import { access } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { splitAgentSpec } from '../rules/index';
import { AGENT_EXTENSIONS, AGENT_FILE_EXTENSIONS } from './sourceAnalysis';

// A Python module path: dotted identifiers, as the 10xGraph server imports it (the loader's test, runtime/src/agent/loadAgent.ts).
const PYTHON_MODULE = /^[\p{L}_][\p{L}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{N}_]*)*$/u;

/**
 * The file `agent` names, relative to the config's folder, as the loader resolves it (the same
 * candidates in the same order: a dotted module is Python's first, `graph.react` being
 * `graph/react.py` or `graph/react/__init__.py`; an undotted one is TypeScript's first);
 * undefined when no such file exists or the spec is malformed.
 */
export async function resolveAgentFile(configPath: string, spec: string): Promise<string | undefined> {
  const parts = splitAgentSpec(spec);
  if (!parts) return undefined;
  const folder = dirname(resolve(configPath));
  const base = resolve(folder, parts.module);
  const scripts = (AGENT_FILE_EXTENSIONS as readonly string[]).includes(extname(base)) ? [base] : AGENT_EXTENSIONS.map((ext) => base + ext);
  const pythonBase = PYTHON_MODULE.test(parts.module) ? join(folder, ...parts.module.split('.')) : undefined;
  const python = pythonBase === undefined ? [] : [pythonBase + '.py', join(pythonBase, '__init__.py')];
  const candidates = parts.module.includes('.') ? [...python, ...scripts] : [...scripts, ...python];
  for (const candidate of candidates) {
    try {
      await access(candidate);
      return candidate;
    } catch {
      // Try the next candidate, as the loader does.
    }
  }
  return undefined;
}
