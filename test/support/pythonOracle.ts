/**
 * The Python oracle (`python_oracle.py`): CPython runs agent modules against a stand-in of
 * 10xGraph and loads the named attribute as the server's loader does, answering with the compiled
 * graph's nodes or the error. The tests hold the Python reader to it: a module the reader reads
 * gives the nodes Python gives.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './run';

/** What Python made of one module: its compiled graph's nodes, or the error the load raised; the module's top-level names when it ran. */
export type OracleAnswer = { nodes: Array<[string, string]>; names: string[] } | { error: string; message: string; names?: string[] };

/** The Python the oracle runs on (Debian's python3; `.ci/run` installs it). */
export const PYTHON = process.env.TENXGRAPH_TEST_PYTHON ?? 'python3';

/** Runs every module of `cases` in one Python process (with `env` added to the environment the modules see). */
export function runOracle(cases: ReadonlyArray<{ source: string; attr: string }>, env: Record<string, string> = {}): OracleAnswer[] {
  const result = spawnSync(PYTHON, ['-I', join(ROOT, 'test', 'support', 'python_oracle.py')], {
    input: JSON.stringify(cases),
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  if (result.error) throw new Error(`${PYTHON} could not run the oracle: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`the oracle failed (exit ${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as OracleAnswer[];
}
