/**
 * What each field of `10xgraph.json` means (docs/spec.md §1), for hover and completion, with the
 * rules that judge it. The settings (every field outside `remote_tools`) are worded from the rule
 * set's one table of them (`FILE_FIELDS`, `settingAt`); the fields of a remote tool and the JSON
 * Schema keywords of its `parameters` are worded here. Every judgement is the rule set's.
 */
import { type GraphTool, type ProblemCode, type SettingSpec, settingAt } from '10xgraph/rules';
import { ruleDocsHref } from '../diagnostics';
import type { JsonPath } from '../jsonPaths';

/** The documentation of one field or JSON Schema keyword. */
export interface FieldDoc {
  /** One line: required or optional, and the type. */
  summary: string;
  /** A paragraph of Markdown. */
  body: string;
  /** The rules that judge this field, linked from the hover. */
  rules: ProblemCode[];
  /** The field this one is another name of (`node_name` of `node`): hover explains it, completion offers only the first name. */
  aliasOf?: string;
}

/** Fields of one remote tool, in the order a new tool lists them. */
export const TOOL_FIELDS: Readonly<Record<string, FieldDoc>> = {
  node: {
    summary: 'Required, non-blank string.',
    body: 'The ToolNode of the graph that carries this tool. It must name a node of the graph whose type is `tool_node`.',
    rules: ['missing-field', 'not-a-string', 'blank-field', 'untrimmed-field', 'node-not-found', 'node-not-tool-node'],
  },
  node_name: {
    summary: 'Another name of `node`.',
    body: 'Read as `node` when `node` is absent. With both, the server refuses the tool: write `node` alone.',
    rules: ['unknown-field', 'missing-field', 'not-a-string', 'blank-field', 'untrimmed-field', 'node-not-found', 'node-not-tool-node'],
    aliasOf: 'node',
  },
  name: {
    summary: 'Required, non-blank string, unique across `remote_tools`.',
    body: 'The name the model calls the tool by: `tool_name`, never `node:tool_name`. Model APIs accept `^[A-Za-z0-9_-]{1,64}$`.',
    rules: ['missing-field', 'not-a-string', 'blank-field', 'untrimmed-field', 'duplicate-name', 'invalid-tool-name', 'name-conflicts-with-server-tool', 'tool-not-attached'],
  },
  description: {
    summary: 'Required, non-blank string.',
    body: 'What the tool does; the model reads it to decide when to call the tool, so say it in a sentence ("Read text from the user\'s clipboard."), not a word.',
    rules: ['missing-field', 'not-a-string', 'blank-field', 'untrimmed-field', 'vague-description'],
  },
  parameters: {
    summary: 'Optional JSON Schema object.',
    body: 'The arguments the model passes. Default `{"type": "object", "properties": {}, "required": []}`; the server fills in what is absent. `type`, when present, must be `"object"`; `properties`, when present, an object; `required`, when present, a list of strings. Other JSON Schema keywords are allowed.',
    rules: ['parameters-not-object', 'parameters-type-not-object', 'properties-not-object', 'required-not-string-list'],
  },
};

/** Keywords of the `parameters` object itself. */
export const PARAMETERS_KEYWORDS: Readonly<Record<string, FieldDoc>> = {
  type: {
    summary: 'Must be `"object"` when present.',
    body: 'The arguments of a tool are always one object; absent, the server fills it in.',
    rules: ['parameters-type-not-object'],
  },
  properties: {
    summary: 'Optional object: argument name → JSON Schema.',
    body: 'One entry per argument, each a JSON Schema (`{"type": "string", "description": "..."}`).',
    rules: ['properties-not-object', 'invalid-property-schema'],
  },
  required: {
    summary: 'Optional list of strings.',
    body: 'The arguments the model must always pass; each should have an entry in `properties`.',
    rules: ['required-not-string-list', 'required-not-in-properties'],
  },
  description: { summary: 'Optional string.', body: 'What the arguments are, as a whole.', rules: [] },
  additionalProperties: { summary: 'Optional boolean or schema.', body: '`false` forbids arguments not listed in `properties`.', rules: [] },
};

/** JSON Schema keywords offered inside an argument's schema. */
export const SCHEMA_KEYWORDS: Readonly<Record<string, FieldDoc>> = {
  type: {
    summary: 'A JSON Schema type, or a list of them.',
    body: 'One of `string`, `number`, `integer`, `boolean`, `object`, `array`, `null`.',
    rules: ['invalid-property-schema'],
  },
  description: { summary: 'A string.', body: 'What the argument means; the model reads it.', rules: [] },
  enum: { summary: 'A list of allowed values.', body: 'The argument must equal one of them.', rules: ['invalid-property-schema'] },
  default: { summary: 'Any value.', body: 'The value assumed when the argument is left out.', rules: [] },
  items: { summary: 'A JSON Schema.', body: 'The schema of each item of an `array` argument.', rules: ['invalid-property-schema'] },
  properties: { summary: 'An object of JSON Schemas.', body: 'The fields of an `object` argument.', rules: ['invalid-property-schema'] },
  required: { summary: 'A list of strings.', body: 'The fields of an `object` argument that must be present.', rules: ['invalid-property-schema'] },
  minimum: { summary: 'A number.', body: 'The smallest allowed value.', rules: ['invalid-property-schema'] },
  maximum: { summary: 'A number.', body: 'The largest allowed value.', rules: ['invalid-property-schema'] },
  minLength: { summary: 'A non-negative integer.', body: 'The shortest allowed string.', rules: ['invalid-property-schema'] },
  maxLength: { summary: 'A non-negative integer.', body: 'The longest allowed string.', rules: ['invalid-property-schema'] },
  pattern: { summary: 'A regular expression.', body: 'A string argument must match it.', rules: ['invalid-property-schema'] },
  format: { summary: 'A string.', body: 'A well-known format: `date-time`, `email`, `uri`, …', rules: [] },
  minItems: { summary: 'A non-negative integer.', body: 'The fewest items of an array.', rules: ['invalid-property-schema'] },
  maxItems: { summary: 'A non-negative integer.', body: 'The most items of an array.', rules: ['invalid-property-schema'] },
  additionalProperties: { summary: 'A boolean or a schema.', body: 'Whether an `object` argument may have fields not listed.', rules: [] },
  anyOf: { summary: 'A list of schemas.', body: 'The argument matches at least one of them.', rules: ['invalid-property-schema'] },
  oneOf: { summary: 'A list of schemas.', body: 'The argument matches exactly one of them.', rules: ['invalid-property-schema'] },
};

/** The JSON Schema types. */
export const SCHEMA_TYPES: readonly string[] = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/** The value a setting takes, in words, by how the server reads it. */
const TYPE_WORDS: Readonly<Record<SettingSpec['type'], string>> = {
  section: 'an object',
  bool: 'a boolean',
  'strict-bool': '`true` or `false`',
  truthy: 'a boolean, read as a truth value',
  int: 'an integer',
  limit: 'a non-negative integer, `0` or `null` for no limit',
  'strict-int': 'a whole number',
  number: 'a number',
  string: 'a string',
  'string-list': 'a list of strings',
  list: 'a list',
  enum: 'one of the allowed values',
  'import-path': 'an import path `"module:attribute"`',
  networks: 'a list of IP addresses or networks',
  redis: 'a Redis URL string or `{"url", "prefix"}`',
  auth: '`"jwt"` or `{"method": "custom", "path"}`',
  authorization: 'a backend name, a `"module:attribute"` path or an RBAC object',
  any: '',
};

/** A value as the file writes it, in Markdown. */
function codeOf(value: unknown): string {
  return `\`${JSON.stringify(value)}\``;
}

/** Whether `path` holds keys only (no array index): the paths the settings table knows. */
function isKeyPath(path: JsonPath): path is string[] {
  return path.every((key) => typeof key === 'string');
}

/** When the server reads the field at `path` (a field of a section read later is read later too), what reads it then, and what that reader does with a value it cannot take. */
function readingOf(path: readonly string[]): { stage: SettingSpec['stage']; readBy?: string; onRefusal?: string } {
  let stage: SettingSpec['stage'] = 'start';
  let reader: { readBy?: string; onRefusal?: string } = {};
  for (let i = 1; i <= path.length; i++) {
    const spec = settingAt(path.slice(0, i));
    if (!spec) break;
    if (spec.stage === 'later') stage = 'later';
    if (spec.readBy !== undefined) reader = { readBy: spec.readBy, onRefusal: spec.onRefusal };
  }
  return { stage, ...reader };
}

/**
 * The settings rules that judge a field of this type, read at this stage: at start-up each kind
 * of refusal has a code of its own (an error); a field read later has the one warning
 * `setting-invalid`.
 */
function settingCodesOf(spec: SettingSpec, stage: SettingSpec['stage']): ProblemCode[] {
  const codes: ProblemCode[] = [];
  const judged = spec.type !== 'any' && spec.type !== 'auth' && spec.type !== 'truthy' && spec.type !== 'enum';
  if (spec.unread) {
    // Never read by the server: `setting-not-applied` says so, and its value is not judged.
  } else if (stage === 'later') {
    if (spec.type !== 'any' && spec.type !== 'auth') codes.push('setting-invalid');
  } else {
    if (judged) codes.push('setting-wrong-type');
    if (spec.min !== undefined || spec.max !== undefined) codes.push('setting-out-of-range');
    if (spec.type === 'enum' || spec.type === 'authorization') codes.push('setting-unknown-value');
    if (spec.type === 'import-path' || spec.type === 'authorization') codes.push('invalid-import-path');
    if (spec.type === 'networks') codes.push('invalid-network');
  }
  if (spec.type === 'import-path') codes.push('module-not-found');
  if (spec.fields) codes.push('unknown-key');
  return codes;
}

/** The words of a setting: its label, type, bounds and default; its help; its allowed values; when it is read. */
function settingDoc(spec: SettingSpec, path: readonly string[]): FieldDoc {
  const { stage, readBy, onRefusal } = readingOf(path);
  const values = spec.values?.map((v) => `\`${v}\``).join(', ');
  const type = spec.type === 'enum' && values ? `one of ${values}${spec.lowercase ? ' (in any case)' : ''}` : TYPE_WORDS[spec.type];
  const bounds =
    spec.type === 'limit' || (spec.min === undefined && spec.max === undefined)
      ? ''
      : spec.min !== undefined && spec.max !== undefined
        ? ` from ${spec.min} to ${spec.max}`
        : spec.min !== undefined
          ? ` of at least ${spec.min}`
          : ` of at most ${spec.max}`;
  const byDefault = spec.default !== undefined ? `; default ${codeOf(spec.default)}` : '';
  const summary = `${spec.label}${type ? `: ${type}${bounds}` : ''}${byDefault}.`;
  const lines = [spec.help];
  if (values && spec.type !== 'enum') lines.push(`Values: ${values}.`);
  if (spec.nullable && spec.emptyIsUnset) lines.push('`null` or an empty value means not set.');
  else if (spec.nullable) lines.push('`null` means not set.');
  else if (spec.emptyIsUnset) lines.push('An empty value means not set.');
  if (spec.unread) lines.push('Never read by the server: its value is not judged.');
  else if (spec.type !== 'any') {
    lines.push(
      stage === 'start'
        ? 'Judged at start-up: a value the server refuses stops it.'
        : `Not judged at start-up: with a wrong value the server starts, but ${readBy ?? 'the server'} ${onRefusal ?? 'refuses it'} (a warning, not an error).`,
    );
  }
  const rules = [...new Set([...(spec.rules ?? []), ...settingCodesOf(spec, stage)])];
  return { summary, body: lines.join('\n\n'), rules };
}

/** The documentation of the setting at `path` (keys from the root), when the rule set's table knows it. */
export function settingDocAt(path: JsonPath): { name: string; spec: SettingSpec; doc: FieldDoc } | undefined {
  if (path.length === 0 || !isKeyPath(path)) return undefined;
  const spec = settingAt(path);
  return spec ? { name: path[path.length - 1], spec, doc: settingDoc(spec, path) } : undefined;
}

/** The Markdown of a field's documentation, as hover shows it and completion lists it: summary, body, linked rules. */
export function fieldMarkdown(name: string, doc: FieldDoc): string {
  const rules = doc.rules.length ? `\n\nRules: ${doc.rules.map((c) => `[\`${c}\`](${ruleDocsHref(c)})`).join(', ')}` : '';
  return `**${name}** — ${doc.summary}\n\n${doc.body}${rules}`;
}

/** A Markdown list of the tools a node carries, each with its origin and description. */
export function toolListMarkdown(tools: readonly GraphTool[]): string {
  return tools.map((t) => `- \`${t.name}\` (${t.source === 'local' ? 'server tool' : 'remote tool'})${t.description ? `: ${t.description}` : ''}`).join('\n');
}
