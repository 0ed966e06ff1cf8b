/**
 * The Python modules a config's `module:attribute` values name, found beside the config as the
 * server's import finds them (the config's folder comes first on its `sys.path`), and the
 * top-level names each binds, read by the Python reader (never run). `module-attribute-missing`
 * and `agent-not-found` judge a name against them; a module not found there, not read whole or
 * binding names no statement shows gives nothing, and nothing is judged.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { auditProjectConfig, configSummaryOf, PROJECT_RULES, type Problem } from '../rules/index';
import type { PythonModuleNames } from '../rules/project';
import { parseTree } from '../rules/tree';
import { MAX_PYTHON_MODULE_BYTES, type PythonModuleRead, readPythonModule } from './pythonGraph';
import { readRegularFile } from './regularFile';

/** A package's entries looked at for its submodules, at most. */
const MAX_PACKAGE_ENTRIES = 2000;

/** The files `base` (a module's path without extension) may be, in the order Python's path finder tries them: the package, then the module. */
export function pythonModuleFiles(base: string): string[] {
  return [join(base, '__init__.py'), base + '.py'];
}

/** What a module read whole says of its names (`PythonModuleNames`); undefined when they are not all known. */
export function moduleNamesOf(read: ModuleNamesRead, shown: string, submodules?: readonly string[]): PythonModuleNames | undefined {
  if (read.unread !== undefined || read.namesOpen !== undefined) return undefined;
  // Python stores an identifier NFKC-normalized (`ｃontainer = 1` binds `container`).
  return { shown, names: read.exports.map(([name]) => name.normalize('NFKC')), ...(submodules ? { submodules } : {}) };
}

/** The names of the `.py` modules and the folders in a package's folder (its possible submodules). */
export async function packageEntries(folder: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for (const entry of (await readdir(folder, { withFileTypes: true })).slice(0, MAX_PACKAGE_ENTRIES)) {
      if (entry.isDirectory()) names.push(entry.name);
      else if (entry.name.endsWith('.py')) names.push(entry.name.slice(0, -3));
    }
  } catch {
    // A folder that cannot be listed has no submodule known.
  }
  return names;
}

/** Reads one module file: what the Python reader makes of it, `missing` when there is no such file, undefined when it cannot be read. */
export type ModuleFileReader = (file: string) => Promise<ModuleNamesRead | 'missing' | undefined>;

/** What `moduleNamesOf` reads. */
export type ModuleNamesRead = Pick<PythonModuleRead, 'unread' | 'namesOpen'> & { exports: ReadonlyArray<readonly [string, unknown]> };

/** A module file read from the disk, a regular file within the Python reader's bound (the default reader). */
export const readModuleFile: ModuleFileReader = async (file) => {
  const read = await readRegularFile(file, MAX_PYTHON_MODULE_BYTES, true);
  if ('text' in read) return readPythonModule(read.text);
  return read.missing ? 'missing' : undefined;
};

/**
 * The module `module` (dotted) as the server would import it from beside the config at
 * `configPath` (the package `a/b/__init__.py`, else the module `a/b.py`); undefined when it is not
 * beside the config, cannot be read or its names are not all known.
 */
export async function readPythonModuleNames(configPath: string, module: string, read: ModuleFileReader = readModuleFile): Promise<PythonModuleNames | undefined> {
  const folder = dirname(resolve(configPath));
  for (const file of pythonModuleFiles(join(folder, ...module.split('.')))) {
    const found = await read(file);
    if (found === 'missing') continue;
    if (found === undefined) return undefined;
    const shown = relative(folder, file).split('\\').join('/');
    const submodules = basename(file) === '__init__.py' ? await packageEntries(dirname(file)) : undefined;
    return moduleNamesOf(found, shown, submodules);
  }
  return undefined;
}

/** The names of every module of `modules`, read once each: the lookup `module-attribute-missing` takes. */
export async function pythonModulesOf(
  configPath: string,
  modules: Iterable<string>,
  read: ModuleFileReader = readModuleFile,
): Promise<(module: string) => PythonModuleNames | undefined> {
  const names = new Map<string, PythonModuleNames | undefined>();
  for (const module of modules) if (!names.has(module)) names.set(module, await readPythonModuleNames(configPath, module, read));
  return (module) => names.get(module);
}

/** The rule judged here, beside a config alone. */
const MODULE_ATTRIBUTE_RULES = PROJECT_RULES.filter((r) => r.code === 'module-attribute-missing');

/**
 * The problems of the `module:attribute` settings of the config text at `configPath` (`injectq`,
 * `store`, …) whose Python module beside it binds no such name (`module-attribute-missing`): the
 * modules read from the disk, never run, as `audit --project` and the editor read them. `10xgraph
 * audit` reports them; `10xgraph api` refuses to start on them, as the Python server stops.
 */
export async function startupImportProblems(configPath: string, text: string): Promise<Problem[]> {
  const parsed = parseTree(text);
  const config = parsed.ok ? configSummaryOf(parsed.tree) : undefined;
  if (!config?.imports?.length) return [];
  const modules = await pythonModulesOf(
    configPath,
    config.imports.map((i) => i.module),
  );
  return auditProjectConfig(
    { config, project: { complete: false, handled: new Set(), computedHandlers: 0, declared: new Set() }, covered: false, modules },
    MODULE_ATTRIBUTE_RULES,
  );
}
