/**
 * What the rules may know of the place the server runs in, through `AuditOptions.files`: whether
 * a file beside the config exists, the names (never the values) the `env` file sets, and, at the
 * start-up of `10xgraph api`, the names its environment sets. The rule set reads no file itself.
 */
import type { AuditOptions } from './types';
import { Kind, NONE, type Tree } from './tree';

/** The `env` file the config names, when it names one (a non-empty string). */
export function envFileOf(tree: Tree, root: number): string | undefined {
  const env = tree.get(root, 'env');
  if (env === NONE || tree.kind[env] !== Kind.String) return undefined;
  const path = tree.string(env);
  return path === '' ? undefined : path;
}

/**
 * Whether a variable is set where the server will run, as far as the front end knows, and the
 * clause a message ends with for a variable that is not: "which the env file ".env" does not set".
 */
export function envNameCheck(tree: Tree, root: number, options: AuditOptions): { defined: (name: string) => boolean; notSet: string } {
  const path = envFileOf(tree, root);
  const fromFile = path !== undefined ? options.files?.envNames?.(path) : undefined;
  const environment = options.files?.environment;
  const defined = (name: string) => (fromFile?.has(name) ?? false) || (environment?.has(name) ?? false);
  const file = path === undefined ? undefined : fromFile ? `the env file "${path}"` : `the env file "${path}" (which could not be read)`;
  if (environment) return { defined, notSet: file ? `which neither the environment nor ${file} sets` : 'which the environment does not set (and no "env" file is named)' };
  return { defined, notSet: file ? `which ${file} does not set` : 'which no "env" file sets (none is named)' };
}

/**
 * Whether the Python module of an import path exists beside the config (`graph.deps` is
 * `graph/deps.py` or `graph/deps/__init__.py`); undefined when the front end cannot tell.
 */
export function pythonModuleExists(module: string, options: AuditOptions): boolean | undefined {
  const exists = options.files?.fileExists;
  if (!exists) return undefined;
  const base = module.split('.').join('/');
  return exists(`${base}.py`) || exists(`${base}/__init__.py`);
}
