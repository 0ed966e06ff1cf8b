/**
 * Loads the agent module a config names (`"agent": "<module>:<export>"`) and returns its
 * compiled graph, as `10xgraph api` does at start-up and `10xgraph audit` does to know the graph.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Loader, Plugin } from 'esbuild';
import { AgentCompileCache, type CompiledAgent, type ExternalPackage } from './compileCache';
import { consultedConfigs, recordResolutions, type FolderListing } from './compileInputs';
import { agentModuleCandidates } from '../workspace/agentFile';
import { displayPath } from '../workspace/configFile';
import { AGENT_EXTENSIONS } from '../workspace/sourceAnalysis';
import { isCompiledGraph, type CompiledGraph } from '../graph/compiledGraph';
import { GraphError } from '../graph/errors';
import { isStateGraph } from '../graph/stateGraph';
import { agentSpecMessage, checkAgentSpec, splitAgentSpec } from '../rules/rules/agent-invalid';
import { loadPeer, MissingPeerError } from '../peers';
import { Kind, NONE, parseTree } from '../rules/tree';

/** Why an agent module could not be loaded. */
export type AgentLoadErrorCode = 'agent-invalid' | 'agent-module-not-found' | 'agent-module-failed' | 'agent-export-not-found' | 'agent-export-not-graph' | 'agent-module-python';

/** The agent module could not be loaded; the message says which file and what to do. */
export class AgentLoadError extends GraphError {
  declare readonly code: AgentLoadErrorCode;

  constructor(code: AgentLoadErrorCode, message: string) {
    super(code, message);
    this.name = 'AgentLoadError';
  }
}

export { AGENT_EXTENSIONS };
const COMPILED = new Set(['.ts', '.mts', '.cts']);

/** Splits `module:export` at its last colon: the rule set's own split, so `agent-invalid` and the loader agree. */
export { splitAgentSpec as parseAgentSpec };

/**
 * Finds the file of the agent's module, relative to the config's folder: a TypeScript or
 * JavaScript module (`graph:app` is `graph.ts`, `graph.mts`, `graph.js` or `graph.mjs`) or a
 * Python one (`graph.react:app` is `graph/react.py` or `graph/react/__init__.py`). When both
 * exist, a dotted module is Python's (dots are its package separator; a TypeScript file named
 * `graph.react.ts` is unusual) and an undotted one is TypeScript's (a TypeScript project keeps the
 * module it had). A spec the rule set refuses (`agent-invalid`: not `module:export`, or a module
 * outside the config's folder) is refused here with the rule's own message. Throws `AgentLoadError`.
 */
export function resolveAgentModule(configPath: string, agentSpec: string): { file: string; exportName: string; language: 'python' | 'javascript' } {
  const spec = checkAgentSpec(agentSpec);
  if (!spec.ok) throw new AgentLoadError('agent-invalid', `${agentSpecMessage(agentSpec, spec.why)} (in ${configPath})`);
  const folder = dirname(resolve(configPath));
  const candidates = agentModuleCandidates(folder, spec.module);
  const file = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  if (!file) {
    const names = candidates.map((candidate) => relative(folder, candidate).split('\\').join('/'));
    const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
    throw new AgentLoadError(
      'agent-module-not-found',
      `Cannot find the module of agent '${agentSpec}': no ${list} in ${folder}; fix "agent" in ${configPath} or create the module.`,
    );
  }
  return { file, exportName: spec.exportName, language: extname(file) === '.py' ? 'python' : 'javascript' };
}

/**
 * Loads the agent module of `agentSpec` (relative to the folder of `configPath`) and returns the
 * compiled graph it exports. TypeScript modules are bundled with esbuild (an optional peer of the
 * package; their packages, `10xgraph` included, stay external) and run as the module's own file; the compiled code is cached
 * (./compileCache.ts). Graphs are recognised by their mark, not by
 * class, since the module loads its own copy of the library. Throws `AgentLoadError`.
 */
export async function loadAgentGraph(configPath: string, agentSpec: string): Promise<CompiledGraph> {
  const { file, exportName, language } = resolveAgentModule(configPath, agentSpec);
  if (language === 'python') {
    throw new AgentLoadError(
      'agent-module-python',
      `Agent '${agentSpec}' is the Python module ${relative(dirname(resolve(configPath)), file)
        .split('\\')
        .join('/')}: 10xgraph api runs TypeScript graphs; run the Python project with 10xgraph-api.`,
    );
  }
  const exports = COMPILED.has(extname(file)) ? await loadTypeScript(file) : await importModule(file);
  const value = exportOf(exports, exportName);
  if (value === undefined) {
    const names = Object.keys(exports).filter((name) => name !== 'default' && name !== '__esModule');
    throw new AgentLoadError(
      'agent-export-not-found',
      `Agent module ${file} has no export '${exportName}'${names.length ? ` (it exports ${names.map((n) => `'${n}'`).join(', ')})` : ''}; export the compiled graph as '${exportName}' or fix "agent" in ${configPath}.`,
    );
  }
  if (!isCompiledGraph(value)) {
    const what = isStateGraph(value)
      ? 'a StateGraph that is not compiled: export graph.compile()'
      : `${describeValue(value)}, not a compiled graph: export the result of StateGraph.compile()`;
    throw new AgentLoadError('agent-export-not-graph', `Export '${exportName}' of ${file} is ${what}.`);
  }
  return value;
}

/**
 * Loads the export a `module:export` setting other than `agent` names (`auth.path`, a
 * `module:attr` `authorization`), found and compiled as the agent module is: a TypeScript or
 * JavaScript module beside the config. `setting` names the setting in messages. Throws
 * `AgentLoadError` (a Python module is not this server's to load).
 */
export async function loadSettingExport(configPath: string, setting: string, spec: string): Promise<unknown> {
  const parsed = checkAgentSpec(spec);
  if (!parsed.ok)
    throw new AgentLoadError(
      'agent-invalid',
      `"${setting}" must be "module:export" naming a module inside the folder of 10xgraph.json (no absolute path, no ".."), not '${spec}' (in ${configPath}).`,
    );
  const folder = dirname(resolve(configPath));
  const candidates = agentModuleCandidates(folder, parsed.module);
  const file = candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  if (!file) {
    const names = candidates.filter((candidate) => extname(candidate) !== '.py').map((candidate) => relative(folder, candidate).split('\\').join('/'));
    throw new AgentLoadError(
      'agent-module-not-found',
      `Cannot find the module of "${setting}" '${spec}': no ${names.join(', ')} in ${folder}; create it or fix "${setting}" in ${configPath}.`,
    );
  }
  if (extname(file) === '.py') {
    throw new AgentLoadError(
      'agent-module-python',
      `"${setting}" '${spec}' is the Python module ${relative(folder, file).split('\\').join('/')}: 10xgraph api loads TypeScript or JavaScript modules; write the module in TypeScript beside it, or run the Python project with 10xgraph-api.`,
    );
  }
  const exports = COMPILED.has(extname(file)) ? await loadTypeScript(file) : await importModule(file);
  const value = exportOf(exports, parsed.exportName);
  if (value === undefined) {
    const names = Object.keys(exports).filter((name) => name !== 'default' && name !== '__esModule');
    throw new AgentLoadError(
      'agent-export-not-found',
      `Module ${file} has no export '${parsed.exportName}'${names.length ? ` (it exports ${names.map((n) => `'${n}'`).join(', ')})` : ''}; fix "${setting}" in ${configPath}.`,
    );
  }
  return value;
}

function exportOf(exports: Record<string, unknown>, name: string): unknown {
  if (name in exports) return exports[name];
  // A CommonJS module imported as ESM puts its exports under `default`.
  const fallback = exports.default;
  if (name !== 'default' && typeof fallback === 'object' && fallback !== null && name in fallback) return (fallback as Record<string, unknown>)[name];
  return undefined;
}

async function importModule(file: string): Promise<Record<string, unknown>> {
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new AgentLoadError('agent-module-failed', `Agent module ${file} failed to load: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function loadTypeScript(file: string): Promise<Record<string, unknown>> {
  const compilerVersion = esbuildVersion();
  const cache = compilerVersion === undefined ? undefined : AgentCompileCache.for(file, compilerVersion);
  let code = cache?.read();
  if (code === undefined) {
    const compiled = await compileTypeScript(file);
    cache?.write(compiled);
    code = compiled.code;
  }
  return runCompiled(file, code);
}

/**
 * Bundles the module and its relative imports with esbuild into CommonJS code meant to run as
 * `file` itself. Every source file esbuild reads goes through the plugin below, which records its
 * text for the cache; a compile that read a file the plugin did not see is not cached. What
 * esbuild reads besides (configs, the folders it resolves imports in) is recorded too
 * (./compileInputs.ts).
 */
async function compileTypeScript(file: string): Promise<CompiledAgent> {
  // `require`, not `import()`: a dynamic import would start Node's ESM loader for this one package.
  let esbuild: typeof import('esbuild');
  try {
    esbuild = loadPeer('esbuild', `compiling ${displayPath(file)} needs esbuild`, () => require('esbuild') as typeof import('esbuild'));
  } catch (error) {
    if (error instanceof MissingPeerError) throw new AgentLoadError('agent-module-failed', error.message);
    throw error;
  }
  const inputs = new Map<string, string>();
  const externals: ExternalPackage[] = [];
  const listings = new Map<string, FolderListing>();
  try {
    const result = await esbuild.build({
      entryPoints: [file],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      sourcemap: 'inline',
      sourcesContent: false,
      logLevel: 'silent',
      plugins: [externalPackages(externals), recordResolutions(listings), recordInputs(inputs)],
      define: {
        'import.meta.url': JSON.stringify(pathToFileURL(file).href),
        'import.meta.filename': JSON.stringify(file),
        'import.meta.dirname': JSON.stringify(dirname(file)),
      },
    });
    const read = Object.keys(result.metafile.inputs).map((input) => resolve(input));
    // A file read without the plugin (another loader, another namespace) is not recorded: no entry.
    const consulted = read.every((input) => inputs.has(input)) ? consultedConfigs(inputs.keys()) : undefined;
    const complete = consulted !== undefined;
    return {
      code: result.outputFiles[0]!.text,
      inputs: complete ? inputs : new Map(),
      consulted: consulted ?? [],
      listings: [...listings.values()],
      externals: complete ? externals : [],
    };
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string; location?: { file: string; line: number; column: number } | null }> }).errors?.[0];
    const where = first?.location ? `${first.location.file}:${first.location.line}:${first.location.column + 1}: ` : '';
    throw new AgentLoadError('agent-module-failed', `Agent module ${file} does not compile: ${where}${first?.text ?? (error instanceof Error ? error.message : String(error))}`);
  }
}

/** The installed esbuild's version (part of the cache key), or undefined when esbuild is not there. */
function esbuildVersion(): string | undefined {
  try {
    return (require('esbuild/package.json') as { version: string }).version;
  } catch {
    return undefined;
  }
}

/** Node's CommonJS module internals the loader uses to run code as a given file. */
interface ModuleInternals {
  new (id: string): { filename: string; paths: string[]; exports: unknown; _compile(code: string, filename: string): void };
  _nodeModulePaths(folder: string): string[];
}

/**
 * Runs compiled code as the module `file`: `__filename`, `__dirname`, `require` and package
 * lookup are those of the module's own location, and nothing is written to disk.
 */
function runCompiled(file: string, code: string): Record<string, unknown> {
  try {
    const Module = require('node:module') as ModuleInternals;
    const module = new Module(file);
    module.filename = file;
    module.paths = Module._nodeModulePaths(dirname(file));
    module._compile(code, file);
    return module.exports as Record<string, unknown>;
  } catch (error) {
    throw new AgentLoadError('agent-module-failed', `Agent module ${file} failed to load: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Keeps every package import external but pins it to the file it resolves to from the importing
 * file, so the bundle loads the same packages as the module's own files would; each pin is
 * recorded for the cache, which checks it still holds.
 */
function externalPackages(externals: ExternalPackage[]): Plugin {
  return {
    name: '10xgraph-external-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        try {
          const resolved = createRequire(join(args.resolveDir, 'index.js')).resolve(args.path);
          externals.push({ specifier: args.path, from: args.resolveDir, resolved });
          return { path: resolved, external: true };
        } catch (error) {
          const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
          return {
            errors: [
              {
                text: `Cannot resolve package '${args.path}' from ${args.resolveDir} (${reason}); install it, build it, or, for an ESM-only package, write the agent module as .mjs.`,
              },
            ],
          };
        }
      });
    },
  };
}

const LOADERS: Record<string, Loader> = { '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx', '.json': 'json' };

/** Reads the module's source files for esbuild, recording each one's text. */
function recordInputs(inputs: Map<string, string>): Plugin {
  return {
    name: '10xgraph-record-inputs',
    setup(build) {
      build.onLoad({ filter: /\.(?:[cm]?[jt]sx?|json)$/ }, (args) => {
        const loader = LOADERS[extname(args.path)];
        if (args.namespace !== 'file' || loader === undefined) return undefined;
        const contents = readFileSync(args.path, 'utf8');
        inputs.set(args.path, contents);
        return { contents, loader };
      });
    },
  };
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** The agent of a config and its loaded graph, or why there is none. */
export type ConfigAgent = { ok: true; agent: string; graph: CompiledGraph } | { ok: false; agent?: string; error?: string; code?: AgentLoadErrorCode };

/**
 * The graph of the agent `text` names, loaded as `10xgraph api` loads it at start-up and
 * `10xgraph audit` does by default. Without an agent (`agent` absent, not a `module:export`
 * string, or a text that is not strict JSON) there is no `agent`; a module that does not load
 * gives its `error`. Only the parse runs here: callers judge the text once, with the graph.
 */
export async function loadConfigAgent(configPath: string, text: string): Promise<ConfigAgent> {
  const agent = agentOfConfig(text);
  if (agent === undefined) return { ok: false };
  try {
    return { ok: true, agent, graph: await loadAgentGraph(configPath, agent) };
  } catch (error) {
    return { ok: false, agent, error: error instanceof Error ? error.message : String(error), ...(error instanceof AgentLoadError ? { code: error.code } : {}) };
  }
}

/** The `agent` of a config's text when it is a `module:export` string of strict JSON; undefined otherwise. */
export function agentOfConfig(text: string): string | undefined {
  const parsed = parseTree(text);
  if (!parsed.ok) return undefined;
  const tree = parsed.tree;
  const node = tree.get(tree.root, 'agent');
  const agent = node !== NONE && tree.kind[node] === Kind.String ? tree.string(node) : undefined;
  return agent !== undefined && splitAgentSpec(agent) ? agent : undefined;
}
