/**
 * The file an `agent` spec names, found as the loader finds it, without running it: the
 * language server's links and graph-from-source and `10xgraph audit --project` read this file.
 */
import { access } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { splitAgentSpec } from '../rules/index';
import { AGENT_EXTENSIONS, AGENT_FILE_EXTENSIONS } from './sourceAnalysis';

/**
 * The file `agent` names, relative to the config's folder, as the loader resolves it (the same
 * extensions in the same order); undefined when no such file exists or the spec is malformed.
 */
export async function resolveAgentFile(configPath: string, spec: string): Promise<string | undefined> {
  const parts = splitAgentSpec(spec);
  if (!parts) return undefined;
  const base = resolve(dirname(configPath), parts.module);
  const candidates = (AGENT_FILE_EXTENSIONS as readonly string[]).includes(extname(base)) ? [base] : AGENT_EXTENSIONS.map((ext) => base + ext);
  for (const candidate of candidates) {
    try {
      await access(candidate);
      return candidate;
    } catch {
      // Try the next extension, as the loader does.
    }
  }
  return undefined;
}
