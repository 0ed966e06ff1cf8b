/**
 * A temporary project folder for start-up checks: a copy of the corpus graph module
 * (test/fixtures/corpus/graph.ts) beside the config, so `"agent": "graph:app"` loads the real
 * graph. The module imports `10xgraph`; a `node_modules` link to the repository's lets the
 * loader resolve it from the temporary folder.
 */
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CORPUS_DIR } from '../../support/corpus';

export const ROOT = join(__dirname, '..', '..', '..');

/** The folder and how to remove it. */
export interface AgentFolder {
  dir: string;
  remove(): void;
}

/** Makes a fresh folder holding `graph.ts` (the corpus graph) and a `node_modules` link. */
export function createAgentFolder(prefix = '10xgraph-hardening-'): AgentFolder {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  copyFileSync(join(CORPUS_DIR, 'graph.ts'), join(dir, 'graph.ts'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Agent specs that load the corpus graph from such a folder. */
export const LOADABLE_AGENTS: ReadonlySet<string> = new Set(['graph:app', './graph:app', 'graph.ts:app', './graph.ts:app']);
