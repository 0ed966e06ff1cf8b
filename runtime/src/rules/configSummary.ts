/**
 * The one summary of what a config says about the project: its `agent` and the `node` and
 * `name` of each remote tool, with where each string lies (offsets). Every consumer reads this
 * one shape (the language server's navigation and project index, the project rules, `10xgraph
 * audit --project`), built from the rule set's flat tree of a strict-JSON text, or from the
 * tolerant tree of a text being typed. A repeated key counts by its last value, as everywhere.
 */
import { parseTree } from 'jsonc-parser';
import type { JsonNode } from './parse';
import { isImportPath } from './python';
import { forEachSetting } from './settings';
import { Kind, NONE, Tree } from './tree';

/** A JSON string value and where it lies. */
export interface StringSpan {
  value: string;
  /** The string with its quotes. */
  offset: number;
  length: number;
  /** True when the text between the quotes is exactly the value (no escapes): a rename can replace it. */
  exact: boolean;
}

/** One remote tool of a config (an object item of `remote_tools`). */
export interface ToolSummary {
  /** Its index in `remote_tools`. */
  index: number;
  name?: StringSpan;
  node?: StringSpan;
  /** The whole tool object. */
  offset: number;
  length: number;
}

/** A `module:attribute` the server imports at start-up (`injectq`, `store`, `thread_name_generator`, `authorization`, `auth.path`). */
export interface ImportSummary {
  /** The setting's path, as messages name it: `injectq`, `auth.path`. */
  key: string;
  value: StringSpan;
  /** The value's module (before its colon) and attribute (after it, a trailing line break left out). */
  module: string;
  attribute: string;
}

/** What a config says about the project. */
export interface ConfigSummary {
  agent?: StringSpan;
  tools: ToolSummary[];
  /** The import paths of its settings (a strict-JSON text's only; a text being typed has none yet). */
  imports?: ImportSummary[];
}

/** The text between a span's quotes. */
export function innerSpan(span: StringSpan): { offset: number; length: number } {
  return { offset: span.offset + 1, length: span.length - 2 };
}

function flatSpan(tree: Tree, node: number): StringSpan | undefined {
  if (node === NONE || tree.kind[node] !== Kind.String) return undefined;
  return { value: tree.string(node), offset: tree.start[node], length: tree.end[node] - tree.start[node], exact: tree.escaped[node] === 0 };
}

/**
 * The summary of a checked config (its `Analysis`, or the flat tree of one), undefined when the
 * text is not strict JSON. With `only`, just the tools whose name passes it (a keystroke in a
 * large config needs the few tools it reports, not all).
 */
export function configSummaryOf(source: { readonly flatTree?: Tree } | Tree, only?: (name: string) => boolean): ConfigSummary | undefined {
  const tree = source instanceof Tree ? source : source.flatTree;
  if (!tree) return undefined;
  const root = tree.root;
  if (tree.kind[root] !== Kind.Object) return { tools: [] };
  const tools: ToolSummary[] = [];
  const list = tree.get(root, 'remote_tools');
  if (list !== NONE && tree.kind[list] === Kind.Array) {
    let index = 0;
    for (let tool = tree.first[list]; tool !== NONE; tool = tree.next[tool], index++) {
      if (tree.kind[tool] !== Kind.Object) continue;
      const name = tree.get(tool, 'name');
      if (only && (name === NONE || tree.kind[name] !== Kind.String || !only(tree.string(name)))) continue;
      tools.push({ index, name: flatSpan(tree, name), node: flatSpan(tree, tree.get(tool, 'node')), offset: tree.start[tool], length: tree.end[tool] - tree.start[tool] });
    }
  }
  return { agent: flatSpan(tree, tree.get(root, 'agent')), tools, imports: importsOf(tree) };
}

/**
 * The settings whose value the server imports at start-up as `module:attribute` (an
 * `import-path` setting read at start-up, or an `authorization` string with a colon): the ones
 * `checkpointer` (never imported) and values that are no import path (other rules report them) left out.
 */
function importsOf(tree: Tree): ImportSummary[] {
  const imports: ImportSummary[] = [];
  forEachSetting(tree, ({ spec, path, value }) => {
    if (spec.stage !== 'start' || spec.unread || tree.kind[value] !== Kind.String) return;
    const text = tree.string(value);
    if (!(spec.type === 'import-path' || (spec.type === 'authorization' && text.includes(':'))) || !isImportPath(text)) return;
    const colon = text.indexOf(':');
    imports.push({ key: path.join('.'), value: flatSpan(tree, value)!, module: text.slice(0, colon), attribute: text.slice(colon + 1).replace(/\n$/, '') });
  });
  return imports;
}

/** The last property `key` of an object node (as a strict parser keeps it). */
function propertyOf(object: JsonNode, key: string): JsonNode | undefined {
  let found: JsonNode | undefined;
  for (const property of object.children ?? []) if (property.children?.[0]?.value === key) found = property.children[1];
  return found;
}

function nodeSpan(node: JsonNode | undefined, text: string): StringSpan | undefined {
  if (node?.type !== 'string' || typeof node.value !== 'string') return undefined;
  return { value: node.value, offset: node.offset, length: node.length, exact: text.slice(node.offset + 1, node.offset + node.length - 1) === node.value };
}

/** The summary of a config from a tolerant tree (a `JsonNode` root, as of a text being typed that is not strict JSON). */
export function configSummaryOfNode(root: JsonNode | undefined, text: string): ConfigSummary {
  if (root?.type !== 'object') return { tools: [] };
  const tools: ToolSummary[] = [];
  const list = propertyOf(root, 'remote_tools');
  if (list?.type === 'array') {
    list.children?.forEach((tool, index) => {
      if (tool.type !== 'object') return;
      tools.push({ index, name: nodeSpan(propertyOf(tool, 'name'), text), node: nodeSpan(propertyOf(tool, 'node'), text), offset: tool.offset, length: tool.length });
    });
  }
  return { agent: nodeSpan(propertyOf(root, 'agent'), text), tools };
}

/** The tolerant tree of a config's text (comments, trailing commas): the one the editor's features share for a text that is not strict JSON. */
export function tolerantTree(text: string): JsonNode | undefined {
  try {
    return parseTree(text, [], { allowTrailingComma: true, disallowComments: false }) as JsonNode | undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a config's text says about the project (`agent`, each tool's `name` and `node`, with
 * offsets), read tolerantly, so a config that is not strict JSON still declares its tools: the one
 * way the language server's index and `10xgraph audit --project` read configs from disk.
 */
export function readConfigSummary(text: string): ConfigSummary {
  return configSummaryOfNode(tolerantTree(text), text);
}
