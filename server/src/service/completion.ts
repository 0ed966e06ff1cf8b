/**
 * Completion: the keys of the file and of each of its settings objects (with value snippets, from
 * the rule set's table of fields), the allowed values of a setting, field names in a tool, a
 * whole tool in `remote_tools`, ToolNode names from the live graph for `node`, JSON Schema
 * keywords and types inside `parameters`, and agent modules found beside the file for `agent`.
 */
import type { CompletionItem, Range } from 'vscode-languageserver';
import { CompletionItemKind, InsertTextFormat, MarkupKind } from 'vscode-languageserver-types';
import { getLocation } from 'jsonc-parser';
import { FILE_FIELDS, type Graph, type GraphNode, type JsonNode, type SettingSpec, toolNodes } from '10xgraph/rules';
import type { Positions } from '../positions';
import type { AgentModule } from '../agentModules';
import { type FieldDoc, fieldMarkdown, PARAMETERS_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_TYPES, settingDocAt, TOOL_FIELDS, toolListMarkdown } from './fieldDocs';
import { keysOf, nodeAtPath, schemaPlaceOf, toolIndexOf, type JsonPath } from '../jsonPaths';
import { rangeOf } from '../diagnostics';

/** Everything completion looks at. */
export interface CompletionInput {
  text: string;
  offset: number;
  lines: Positions;
  /** A (possibly tolerant) tree of the text, for the keys already present. */
  tree: JsonNode | undefined;
  graph: Graph | undefined;
  agentModules: readonly AgentModule[];
  /** The `module:export` specs the rule set's `agent-missing` fix offers, offered first here too. */
  agentCandidates: readonly string[];
  /** The client accepts snippets. */
  snippets: boolean;
}

/** Escapes text for a snippet's literal part. */
function escapeSnippet(text: string): string {
  return text.replace(/[\\$}]/g, '\\$&');
}

/** Turns a snippet into the text it inserts when the client cannot expand snippets. */
function snippetToPlain(snippet: string): string {
  return snippet
    .replace(/\$\{\d+\|([^,|]*)[^|]*\|\}/g, '$1')
    .replace(/\$\{\d+:([^}]*)\}/g, '$1')
    .replace(/\$\{\d+\}|\$\d+/g, '')
    .replace(/\\([\\$}])/g, '$1');
}

function jsonString(text: string): string {
  return JSON.stringify(text);
}

/** The range completion replaces: the string or word under the cursor, or an empty range at it. */
function replaceRange(input: CompletionInput, previous: { offset: number; length: number; type: string } | undefined): { start: number; end: number } {
  const { text, offset } = input;
  if (previous && offset >= previous.offset && offset <= previous.offset + previous.length && previous.type !== 'object' && previous.type !== 'array') {
    return { start: previous.offset, end: previous.offset + previous.length };
  }
  let start = offset;
  while (start > 0 && /[\w$-]/.test(text[start - 1])) start--;
  let end = offset;
  while (end < text.length && /[\w$-]/.test(text[end])) end++;
  return { start, end };
}

function nextSignificant(text: string, from: number): string {
  let i = from;
  while (i < text.length && /\s/.test(text[i])) i++;
  return text[i] ?? '';
}

interface Builder {
  items: CompletionItem[];
  range: Range;
  /** The text the range replaces, for the filter. */
  replaced: string;
  snippets: boolean;
  /** The key under the cursor, when a key is being rewritten. */
  currentKey?: string;
}

function push(b: Builder, item: Omit<CompletionItem, 'textEdit' | 'insertTextFormat'> & { snippet: string }): void {
  const { snippet, ...rest } = item;
  const newText = b.snippets ? snippet : snippetToPlain(snippet);
  b.items.push({
    ...rest,
    filterText: rest.filterText ?? (b.replaced.startsWith('"') ? jsonString(rest.label) : rest.label),
    textEdit: { range: b.range, newText },
    insertTextFormat: b.snippets ? InsertTextFormat.Snippet : InsertTextFormat.PlainText,
  });
}

const TOOL_SNIPPET_BODY = (node: string) =>
  `{\n\t"node": ${node},\n\t"name": "\${2:tool_name}",\n\t"description": "\${3:What the tool does, in one sentence the model reads.}",\n\t"parameters": {\n\t\t"type": "object",\n\t\t"properties": {\$4},\n\t\t"required": []\n\t}\n}`;

function nodeSnippet(graph: Graph | undefined, index: number): string {
  const names = graph ? toolNodes(graph).map((n) => n.name) : [];
  if (names.length === 1) return `"\${${index}:${escapeSnippet(names[0])}}"`;
  if (names.length > 1 && names.every((n) => !/[,|]/.test(n))) return `"\${${index}|${names.map(escapeSnippet).join(',')}|}"`;
  return `"\${${index}:TOOL}"`;
}

function toolSnippet(graph: Graph | undefined): string {
  return TOOL_SNIPPET_BODY(nodeSnippet(graph, 1));
}

const TOOL_VALUE_SNIPPETS: Record<string, (graph: Graph | undefined) => string> = {
  node: (graph) => nodeSnippet(graph, 1),
  name: () => '"${1:tool_name}"',
  description: () => '"${1:What the tool does, in one sentence the model reads.}"',
  parameters: () => '{\n\t"type": "object",\n\t"properties": {$1},\n\t"required": []\n}',
};

/** A key completion offers: its documentation, the snippet of its value, and the other names of the same field. */
interface KeyOffer {
  doc: FieldDoc;
  value: string;
  /** Other keys the server reads as this field: when one is present, this key is not offered. */
  otherNames?: readonly string[];
}

function keyItems(b: Builder, input: CompletionInput, objectPath: JsonPath, afterRange: number, fields: Record<string, KeyOffer>): void {
  const present = keysOf(nodeAtPath(input.tree, objectPath));
  const colonFollows = nextSignificant(input.text, afterRange) === ':';
  const commaNeeded = !colonFollows && nextSignificant(input.text, afterRange) === '"';
  // The key under the cursor is being rewritten; only the other present keys are excluded.
  const taken = (name: string) => present.has(name) && name !== b.currentKey;
  let order = 0;
  for (const [name, { doc, value, otherNames }] of Object.entries(fields)) {
    order++;
    if (taken(name) || otherNames?.some(taken)) continue;
    const snippet = colonFollows ? jsonString(name) : `${jsonString(name)}: ${value}${commaNeeded ? ',' : ''}`;
    push(b, {
      label: name,
      kind: CompletionItemKind.Property,
      detail: doc.summary,
      documentation: { kind: MarkupKind.Markdown, value: fieldMarkdown(name, doc) },
      sortText: String(order).padStart(3, '0'),
      snippet,
    });
  }
}

function valueItem(b: Builder, label: string, snippet: string, kind: CompletionItemKind, detail?: string, documentation?: string, preselect?: boolean): void {
  push(b, {
    label,
    kind,
    detail,
    documentation: documentation ? { kind: MarkupKind.Markdown, value: documentation } : undefined,
    preselect: preselect || undefined,
    snippet,
  });
}

function describeNode(node: GraphNode): string {
  const tools = node.tools ?? [];
  if (tools.length === 0) return `ToolNode \`${node.name}\`: no tools listed.`;
  return `ToolNode \`${node.name}\` carries:\n\n${toolListMarkdown(tools)}`;
}

/** The completion items at `input.offset`. */
export function completeAt(input: CompletionInput): CompletionItem[] {
  const { text, offset } = input;
  const location = getLocation(text, offset);
  const path = location.path;
  const last = path[path.length - 1];
  const previous = location.previousNode;
  const span = replaceRange(input, previous ? { offset: previous.offset, length: previous.length, type: previous.type } : undefined);
  const b: Builder = { items: [], range: rangeOf(input.lines, span.start, span.end - span.start), replaced: text.slice(span.start, span.end), snippets: input.snippets };
  if (previous?.type === 'property' && typeof previous.value === 'string' && span.start === previous.offset) b.currentKey = previous.value;
  const tool = toolIndexOf(path);
  const schema = schemaPlaceOf(path);

  if (path.length === 0) return b.items;

  if (typeof last === 'string' && location.isAtPropertyKey) {
    const objectPath = path.slice(0, -1);
    const settingFields = settingFieldsAt(objectPath);
    if (objectPath.length === 0) {
      keyItems(b, input, objectPath, span.end, settingKeyOffers([], FILE_FIELDS, input));
    } else if (tool !== undefined && objectPath.length === 2) {
      const fields: Record<string, KeyOffer> = {};
      for (const [name, doc] of Object.entries(TOOL_FIELDS)) {
        if (doc.aliasOf !== undefined) continue;
        const otherNames = Object.keys(TOOL_FIELDS).filter((other) => TOOL_FIELDS[other].aliasOf === name);
        fields[name] = { doc, value: TOOL_VALUE_SNIPPETS[name](input.graph), otherNames };
      }
      keyItems(b, input, objectPath, span.end, fields);
    } else if (settingFields) {
      keyItems(b, input, objectPath, span.end, settingKeyOffers(objectPath as string[], settingFields, input));
    } else {
      const place = schemaPlaceOf(objectPath);
      if (place?.place === 'schema') {
        const keywords = place.depth === 0 ? PARAMETERS_KEYWORDS : SCHEMA_KEYWORDS;
        const fields: Record<string, KeyOffer> = {};
        for (const [name, doc] of Object.entries(keywords)) fields[name] = { doc, value: keywordValueSnippet(name, place.depth) };
        keyItems(b, input, objectPath, span.end, fields);
      } else if (place?.place === 'properties') {
        const colonFollows = nextSignificant(text, span.end) === ':';
        const snippet = colonFollows
          ? '"${1:argument}"'
          : `"\${1:argument}": {\n\t"type": "\${2|${SCHEMA_TYPES.join(',')}|}",\n\t"description": "\${3:What the argument means.}"\n}${nextSignificant(text, span.end) === '"' ? ',' : ''}`;
        push(b, { label: 'new argument', kind: CompletionItemKind.Snippet, detail: 'An argument: its type and description', filterText: b.replaced || 'argument', snippet });
      }
    }
    return b.items;
  }

  if (typeof last === 'number') {
    if (tool !== undefined && path.length === 2) {
      const comma = nextSignificant(text, span.end) === '{' ? ',' : '';
      valueItem(b, 'new remote tool', toolSnippet(input.graph) + comma, CompletionItemKind.Snippet, 'A remote tool: node, name, description, parameters');
    } else if (schema?.place === 'keywordItem' && schema.keyword === 'type') {
      for (const type of SCHEMA_TYPES) valueItem(b, type, jsonString(type), CompletionItemKind.EnumMember);
    } else if (schema?.place === 'keywordItem' && schema.keyword === 'required') {
      const properties = keysOf(nodeAtPath(input.tree, [...schema.schemaPath, 'properties']));
      const listed = nodeAtPath(input.tree, [...schema.schemaPath, 'required']);
      const already = new Set((listed?.children ?? []).map((c) => c.value).filter((v) => v !== previous?.value));
      for (const name of properties) if (!already.has(name)) valueItem(b, name, jsonString(name), CompletionItemKind.Value, 'An argument of `properties`');
    }
    return b.items;
  }

  if (path.length === 1 && last === 'agent') {
    for (const [i, spec] of agentSuggestions(input.agentCandidates, input.agentModules).entries()) {
      const module = input.agentModules.find((m) => spec.startsWith(`${m.module}:`));
      valueItem(b, spec, jsonString(spec), CompletionItemKind.Module, module ? `${module.file}` : undefined, undefined, i === 0);
    }
  } else if (path.length === 1 && last === 'remote_tools') {
    valueItem(b, 'remote_tools list', toolListSnippet(input.graph), CompletionItemKind.Snippet, 'A list with one remote tool');
  } else if (tool !== undefined && path.length === 3 && last === 'node') {
    const nodes = input.graph ? toolNodes(input.graph) : [];
    for (const node of nodes) {
      const tools = node.tools?.length ?? 0;
      valueItem(
        b,
        node.name,
        jsonString(node.name),
        CompletionItemKind.Class,
        `ToolNode · ${tools} tool${tools === 1 ? '' : 's'}${input.graph?.stale ? ' · cached graph' : ''}`,
        describeNode(node),
        nodes.length === 1,
      );
    }
  } else if (tool !== undefined && path.length === 3 && last === 'parameters') {
    valueItem(b, 'parameters object', TOOL_VALUE_SNIPPETS.parameters(input.graph), CompletionItemKind.Snippet, 'An object schema with no arguments yet');
  } else if (schema?.place === 'keyword' && schema.keyword === 'type') {
    const types = schema.depth === 0 ? ['object'] : SCHEMA_TYPES;
    for (const type of types) valueItem(b, type, jsonString(type), CompletionItemKind.EnumMember, undefined, undefined, schema.depth === 0);
  } else {
    const setting = settingDocAt(path);
    if (setting) settingValueItems(b, setting.spec);
  }
  return b.items;
}

/** The fields of the settings object at `path`, when the rule set's table knows it as one (a section, `auth`, an RBAC `authorization`, `rate_limit.redis`). */
function settingFieldsAt(path: JsonPath): Readonly<Record<string, SettingSpec>> | undefined {
  return path.length > 0 ? settingDocAt(path)?.spec.fields : undefined;
}

/**
 * The keys of a settings object, each with the snippet of its value. The table gives other
 * names of one field the same label (`backend` and `type` of an RBAC `authorization`): only the
 * first is offered, and none once one of them is present.
 */
function settingKeyOffers(objectPath: readonly string[], fields: Readonly<Record<string, SettingSpec>>, input: CompletionInput): Record<string, KeyOffer> {
  const offers: Record<string, KeyOffer> = {};
  const firstOfLabel = new Map<string, string>();
  for (const [name, spec] of Object.entries(fields)) {
    const first = firstOfLabel.get(spec.label);
    if (first !== undefined) {
      offers[first] = { ...offers[first], otherNames: [...(offers[first].otherNames ?? []), name] };
      continue;
    }
    firstOfLabel.set(spec.label, name);
    const value =
      objectPath.length === 0 && name === 'agent'
        ? agentValueSnippet(input)
        : objectPath.length === 0 && name === 'remote_tools'
          ? toolListSnippet(input.graph)
          : settingValueSnippet(spec);
    offers[name] = { doc: settingDocAt([...objectPath, name])!.doc, value };
  }
  return offers;
}

function agentValueSnippet(input: CompletionInput): string {
  return `"\${1:${escapeSnippet(agentSuggestions(input.agentCandidates, input.agentModules)[0] ?? 'graph:app')}}"`;
}

function toolListSnippet(graph: Graph | undefined): string {
  return `[\n\t${toolSnippet(graph).replace(/\n/g, '\n\t')}\n]`;
}

/** Escapes text for one option of a snippet's choice. */
function escapeChoice(text: string): string {
  return text.replace(/[\\$}|,]/g, '\\$&');
}

/** A choice of the strings `values` (the first one preselected), quoted. */
function choiceSnippet(values: readonly string[]): string {
  return values.length === 1 ? `"\${1:${escapeSnippet(values[0])}}"` : `"\${1|${values.map(escapeChoice).join(',')}|}"`;
}

/** The snippet of a setting's value: the table's own, or one made from its type, default and allowed values. */
function settingValueSnippet(spec: SettingSpec): string {
  if (spec.snippet !== undefined) return spec.snippet;
  switch (spec.type) {
    case 'bool':
    case 'strict-bool':
    case 'truthy':
      return '${1|true,false|}';
    case 'int':
    case 'limit':
    case 'strict-int':
    case 'number':
      return `\${1:${typeof spec.default === 'number' ? spec.default : (spec.min ?? 0)}}`;
    case 'enum':
      return choiceSnippet(defaultFirst(spec));
    case 'string-list':
    case 'list':
    case 'networks':
      return '[$1]';
    case 'section':
      return '{$1}';
    case 'string':
      return typeof spec.default === 'string' ? `"\${1:${escapeSnippet(spec.default)}}"` : '"$1"';
    case 'import-path':
      return '"${1:module:attribute}"';
    case 'redis':
      return '"${1:\\${REDIS_URL\\}}"';
    default:
      if (spec.values?.length) return choiceSnippet(defaultFirst(spec));
      return spec.default !== undefined ? escapeSnippet(JSON.stringify(spec.default)) : '$1';
  }
}

/** The allowed values of a setting, its default first. */
function defaultFirst(spec: SettingSpec): string[] {
  const values = spec.values ?? [];
  return typeof spec.default === 'string' && values.includes(spec.default) ? [spec.default, ...values.filter((v) => v !== spec.default)] : [...values];
}

/** The values of a setting: its allowed values (the default preselected), `true` and `false` for a boolean, its usual object for a section. */
function settingValueItems(b: Builder, spec: SettingSpec): void {
  for (const value of spec.values ?? []) valueItem(b, value, jsonString(value), CompletionItemKind.EnumMember, spec.label, undefined, value === spec.default);
  if (spec.type === 'bool' || spec.type === 'strict-bool' || spec.type === 'truthy') {
    for (const value of [true, false]) valueItem(b, String(value), String(value), CompletionItemKind.Keyword, spec.label, undefined, value === spec.default);
  }
  if (spec.snippet !== undefined) valueItem(b, `${spec.label} object`, spec.snippet, CompletionItemKind.Snippet, 'The usual fields');
}

function keywordValueSnippet(keyword: string, depth: number): string {
  switch (keyword) {
    case 'type':
      return depth === 0 ? '"object"' : `"\${1|${SCHEMA_TYPES.join(',')}|}"`;
    case 'properties':
      return '{$1}';
    case 'required':
    case 'enum':
      return '[$1]';
    case 'items':
      return `{ "type": "\${1|${SCHEMA_TYPES.join(',')}|}" }`;
    case 'additionalProperties':
      return '${1|false,true|}';
    case 'anyOf':
    case 'oneOf':
      return '[$1]';
    case 'description':
    case 'pattern':
    case 'format':
      return '"$1"';
    default:
      return '${1:0}';
  }
}

/**
 * The `module:export` specs offered for `agent`, most likely first: the compiled graphs (the
 * candidates already hold every graph export of `modules`), then the other exports, then
 * `module:app` for a module whose exports were not found.
 */
function agentSuggestions(candidates: readonly string[], modules: readonly AgentModule[]): string[] {
  const others = modules.flatMap((m) => (m.exports.length ? m.exports.slice(m.graphExports) : ['app']).map((name) => `${m.module}:${name}`));
  return [...new Set([...candidates, ...others])];
}
