/**
 * `10xgraph types [FILE] [--out FILE]`: TypeScript types of the remote tools of a 10xgraph.json,
 * for `TenxGraphClient<RemoteTools>` (10xgraph-client): each tool's arguments come from its
 * `parameters` JSON Schema, converted by json-schema-to-typescript. A config with errors gets
 * the audit's problem lines and no file.
 */
import { dirname, relative, resolve } from 'node:path';
import { analyzeConfig, LineIndex, NONE, type RemoteToolSchema, type Tree } from '../rules/index';
import { countProblems, formatProblemLine } from '../rules/problemText';
import { defaultConfigPath } from '../workspace/configFiles';
import { displayPath, readConfigText } from '../workspace/configFile';
import { readArgs, UsageError, type OptionSpecs } from './args';
import { GeneratedFileError, writeGeneratedFile } from './fixFile';
import { escapeControl } from '../text/escapeControl';
import { escapeComment, pointerSegment, prepareToolSchema, type SchemaPath } from './typesSchema';
import { isMissingPeer, MissingPeerError, type Peer } from '../peers';

const HELP = `usage: 10xgraph types [FILE] [--out FILE]

Writes TypeScript types of the remote tools of FILE (default ./10xgraph.json, or ./agentflow.json
when only that exists): one interface of arguments per tool, from its "parameters" JSON Schema,
and RemoteTools mapping each tool's name to them. With 10xgraph-client:

  import type { RemoteTools } from './remote-tools';
  const client = new TenxGraphClient<RemoteTools>({ baseUrl });
  client.registerToolHandler('get_user_location', async (args) => ...);  // args typed

A misspelt tool name or a wrong argument type is then a compile error.

  --out FILE   write the types to FILE (default: print them), creating its folders

A "$ref" is resolved only as a JSON pointer into the same tool's parameters ("#/definitions/x",
"#"), never as a file or a URL; "tsType" and "tsEnumNames" are refused: the types are
declarations only.

Exit status: 0 written, 1 the config has errors (nothing is written), 2 could not run (a "$ref"
or a keyword refused, a path that cannot be written).`;

interface TypesArgs {
  file: string;
  out?: string;
}

const OPTIONS: OptionSpecs = { help: { type: 'boolean', short: 'h' }, out: { type: 'string' } };

function parseArgs(argv: string[]): TypesArgs | 'help' {
  const args: TypesArgs = { file: '' };
  let fileSeen = false;
  for (const { flag, value } of readArgs(argv, OPTIONS)) {
    switch (flag) {
      case '-h':
      case '--help':
        return 'help';
      case '--out':
        args.out = value();
        break;
      default:
        if (flag.startsWith('-') && flag !== '-') throw new UsageError(`unknown option '${flag}'.`);
        if (fileSeen) throw new UsageError(`only one FILE may be given ('${args.file}', then '${flag}').`);
        args.file = flag;
        fileSeen = true;
    }
  }
  return args;
}

/** `get_user_location` → `GetUserLocationArgs`: the name of a tool's interface of arguments. */
export function argsTypeName(toolName: string): string {
  const words = toolName.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const name = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('') || 'Tool';
  return `${/^[0-9]/.test(name) ? `Tool${name}` : name}Args`;
}

/** Why the types of the remote tools cannot be generated, and where in the config (none when unknown). */
export class TypesRefusal extends Error {
  constructor(
    message: string,
    /** The index of the tool in `remote_tools`, and the path inside its `parameters`. */
    readonly at?: { tool: number; path: SchemaPath },
  ) {
    super(message);
  }
}

/**
 * The TypeScript source of the types of `tools`: `RemoteTools` maps each tool's name to the
 * interface of its arguments. The schemas go through json-schema-to-typescript in one run, so
 * names its sub-schemas' titles produce never collide. They depend on `tools` alone: a `$ref` is
 * a JSON pointer into its own tool's parameters, never a file or a URL (see typesSchema.ts), and
 * the result holds declarations only. Throws `TypesRefusal` when that cannot be kept.
 */
export async function generateRemoteToolTypes(tools: readonly RemoteToolSchema[], source: string): Promise<string> {
  const properties: Record<string, unknown> = {};
  // Names from the file system go into comments: one line each, and unable to end the comment.
  const label = escapeComment(escapeControl(source));
  for (const [index, tool] of tools.entries()) {
    const prepared = prepareToolSchema(tool.parameters, `#/properties/${pointerSegment(tool.name)}`);
    if ('refusal' in prepared) {
      const { subject, reason, path } = prepared.refusal;
      const name = tool.name.length <= 80 ? tool.name : `${tool.name.slice(0, 79)}…`;
      throw new TypesRefusal(`${subject} in the parameters of tool '${name}' ${reason}`, { tool: index, path });
    }
    // The tool's own name and description name and document its interface, whatever `title`
    // its schema carries: the handler is registered by that name.
    const schema = { ...(prepared.schema as object), title: argsTypeName(tool.name), description: escapeComment(tool.description) };
    Object.defineProperty(properties, tool.name, { value: schema, enumerable: true, writable: true, configurable: true });
  }
  const schema = {
    title: 'RemoteTools',
    description: `The arguments of each remote tool of ${label}, by tool name: use as \`TenxGraphClient<RemoteTools>\`.`,
    type: 'object',
    properties,
    required: tools.map((tool) => tool.name),
    additionalProperties: false,
  };
  const banner = `/* Generated by \`10xgraph types\` from ${label}: do not edit. Run it again when remote_tools change. */`;
  // Loaded here, not at start-up: it brings a formatter that no other command needs.
  const { compile } = await import('json-schema-to-typescript');
  const generated = await compile(schema as Parameters<typeof compile>[0], 'RemoteTools', {
    bannerComment: banner,
    // Every $ref is local by now; the ref parser is still told to read no file and no URL.
    $refOptions: { resolve: { external: false, file: false, http: false } },
  });
  checkDeclarationsOnly(generated);
  return generated;
}

/**
 * Throws `TypesRefusal` unless `source` (TypeScript) is declarations only: compiled to
 * JavaScript, nothing is left. The last guard of the generated file, whatever a schema keyword
 * or a comment that ends early would have put in it.
 */
export function checkDeclarationsOnly(source: string): void {
  const { transformSync } = require('esbuild') as typeof import('esbuild');
  let code: string;
  try {
    code = transformSync(source, { loader: 'ts', format: 'esm', legalComments: 'none' }).code;
  } catch (error) {
    const first = (error as { errors?: Array<{ text: string }> }).errors?.[0]?.text ?? (error as Error).message;
    throw new TypesRefusal(`the generated types are not valid TypeScript: ${first}`);
  }
  if (code.trim() !== '') throw new TypesRefusal(`the generated types would hold code, not declarations only: ${code.trim().split('\n')[0]}`);
}

/** `LINE:COL` (one-based) of `offset`, as problem lines give it. */
function position(lines: LineIndex, offset: number): string {
  const { line, character } = lines.positionAt(offset);
  return `${line + 1}:${character + 1}`;
}

/** The offset of the value at `path` inside the `parameters` of the `tool`-th remote tool (or of the deepest node found). */
function offsetOf(tree: Tree, tool: number, path: SchemaPath): number | undefined {
  const list = tree.get(tree.root, 'remote_tools');
  if (list === NONE) return undefined;
  let node = tree.children(list)[tool] ?? NONE;
  node = node === NONE ? NONE : tree.get(node, 'parameters');
  if (node === NONE) return undefined;
  for (const segment of path) {
    const next = typeof segment === 'number' ? (tree.type(node) === 'array' ? (tree.children(node)[segment] ?? NONE) : NONE) : tree.get(node, segment);
    if (next === NONE) break;
    node = next;
  }
  return tree.start[node];
}

/**
 * The optional peers `10xgraph types` needs and the project lacks: json-schema-to-typescript writes
 * the types, esbuild checks that they are declarations only. Both are named at once, so one
 * install command mends it.
 */
function missingTypesPeers(): Peer[] {
  const probes: Array<[Peer, () => string]> = [
    ['json-schema-to-typescript', () => require.resolve('json-schema-to-typescript')],
    ['esbuild', () => require.resolve('esbuild')],
  ];
  return probes
    .filter(([peer, probe]) => {
      try {
        probe();
        return false;
      } catch (error) {
        if (isMissingPeer(error, peer)) return true;
        throw error;
      }
    })
    .map(([peer]) => peer);
}

/** Runs `10xgraph types` with `argv`; resolves to the exit code. */
export async function runTypes(argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  let args: TypesArgs | 'help';
  try {
    args = parseArgs(argv);
  } catch (error) {
    err.write(`10xgraph types: ${escapeControl((error as Error).message)}\nRun '10xgraph types --help' for usage.\n`);
    return 2;
  }
  if (args === 'help') {
    out.write(HELP + '\n');
    return 0;
  }
  const missing = missingTypesPeers();
  if (missing.length > 0) {
    err.write(`${new MissingPeerError(missing, `10xgraph types needs ${missing.join(' and ')}`).message}\n`);
    return 2;
  }
  const path = resolve(args.file || defaultConfigPath());
  const shown = displayPath(path);
  let text: string;
  try {
    text = readConfigText(path, shown);
  } catch (error) {
    err.write(`${escapeControl(`10xgraph types: ${(error as Error).message}`)}\n`);
    return 2;
  }

  // Types need the file only: node names are not part of them, so the agent is not loaded.
  const analysis = analyzeConfig(text);
  const { problems, config } = analysis;
  const shownProblems = problems.filter((problem) => problem.severity !== 'information');
  const lines = new LineIndex(text);
  for (const problem of shownProblems) err.write(formatProblemLine(shown, lines, problem) + '\n');
  if (!config || problems.some((problem) => problem.severity === 'error')) {
    err.write(`${escapeControl(`${shown}: ${countProblems(shownProblems)}; no types written: fix the errors above first.`)}\n`);
    return 1;
  }
  // A warning for the server, which ignores these keywords; here they would put code in the file.
  const raw = problems.filter((problem) => problem.code === 'raw-typescript-keyword');
  if (raw.length > 0) {
    const places = raw.map((problem) => `${JSON.parse(text.slice(problem.offset, problem.offset + problem.length)) as string} at ${shown}:${position(lines, problem.offset)}`);
    const listed = places.length > 3 ? `${places.slice(0, 3).join(', ')} and ${places.length - 3} more` : places.join(', ');
    err.write(
      `${escapeControl(`10xgraph types: ${shown}: no types written: ${listed} would write TypeScript of the file into the types; remove ${raw.length === 1 ? 'it' : 'them'} (see above).`)}\n`,
    );
    return 2;
  }

  // The header names the config as seen from where the types go, so the file reads the same on
  // every machine (no absolute path) and points at its source.
  const target = args.out === undefined ? undefined : resolve(args.out);
  const label = (target ? relative(dirname(target), path) : shown).split('\\').join('/');
  let source: string;
  try {
    source = await generateRemoteToolTypes(config.remoteTools, label);
  } catch (error) {
    if (error instanceof TypesRefusal) {
      const offset = error.at && analysis.flatTree ? offsetOf(analysis.flatTree, error.at.tool, error.at.path) : undefined;
      const where = offset === undefined ? shown : `${shown}:${position(lines, offset)}`;
      err.write(`${escapeControl(`10xgraph types: ${where}: ${error.message}; no types written.`)}\n`);
      return 2;
    }
    err.write(`${escapeControl(`10xgraph types: could not turn the parameters of ${shown} into types: ${(error as Error).message}`)}\n`);
    return 1;
  }
  if (target === undefined) {
    out.write(source);
    return 0;
  }
  try {
    writeGeneratedFile(target, source);
  } catch (error) {
    // The path the error names is the file or the folder in the way, never the temporary file.
    const why = error instanceof GeneratedFileError ? (error.path === target ? error.reason : `${displayPath(error.path)}: ${error.reason}`) : (error as Error).message;
    err.write(`${escapeControl(`10xgraph types: could not write ${displayPath(target)}: ${why}`)}\n`);
    return 2;
  }
  err.write(`${escapeControl(`${displayPath(target)}: types of ${config.remoteTools.length} remote tool${config.remoteTools.length === 1 ? '' : 's'} written.`)}\n`);
  return 0;
}
