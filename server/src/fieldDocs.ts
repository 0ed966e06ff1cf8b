/**
 * What each field of `10xgraph.json` means (docs/spec.md §1), for hover and completion, with the
 * rules that judge it. Only words for people live here; every judgement is the rule set's.
 */
import type { GraphTool, ProblemCode } from '10xgraph/rules';
import { ruleDocsHref } from './diagnostics';

/** The documentation of one field or JSON Schema keyword. */
export interface FieldDoc {
  /** One line: required or optional, and the type. */
  summary: string;
  /** A paragraph of Markdown. */
  body: string;
  /** The rules that judge this field, linked from the hover. */
  rules: ProblemCode[];
}

/** Top-level fields. */
export const ROOT_FIELDS: Readonly<Record<string, FieldDoc>> = {
  agent: {
    summary: 'Required string `"<module>:<export>"`.',
    body: 'The graph the server runs. The module path is relative to the folder of `10xgraph.json` (`graph` finds `graph.ts`, `graph.mts`, `graph.js` or `graph.mjs`; `.ts` is compiled with esbuild on load); the export is a compiled graph.',
    rules: ['agent-missing', 'agent-invalid'],
  },
  remote_tools: {
    summary: 'Optional list of tools, default `[]`.',
    body: "Tools whose schema the server offers to the model but whose handler the client runs: when the model calls one, the run pauses and waits for the client's `tool_result`.",
    rules: ['remote-tools-not-list', 'tool-not-object', 'duplicate-name'],
  },
};

/** Fields of one remote tool, in the order a new tool lists them. */
export const TOOL_FIELDS: Readonly<Record<string, FieldDoc>> = {
  node: {
    summary: 'Required, non-blank string.',
    body: 'The ToolNode of the graph that carries this tool. It must name a node of the graph whose type is `tool_node`.',
    rules: ['missing-field', 'not-a-string', 'blank-field', 'node-not-found', 'node-not-tool-node'],
  },
  name: {
    summary: 'Required, non-blank string, unique across `remote_tools`.',
    body: 'The name the model calls the tool by: `tool_name`, never `node:tool_name`. Model APIs accept `^[A-Za-z0-9_-]{1,64}$`.',
    rules: ['missing-field', 'not-a-string', 'blank-field', 'duplicate-name', 'invalid-tool-name', 'name-conflicts-with-server-tool', 'tool-not-attached'],
  },
  description: {
    summary: 'Required, non-blank string.',
    body: 'What the tool does; the model reads it to decide when to call the tool, so say it in a sentence ("Read text from the user\'s clipboard."), not a word.',
    rules: ['missing-field', 'not-a-string', 'blank-field', 'vague-description'],
  },
  parameters: {
    summary: 'Optional JSON Schema object.',
    body: 'The arguments the model passes. Default `{"type": "object", "properties": {}, "required": []}`. `type` must be `"object"`; `properties`, when present, an object; `required`, when present, a list of strings. Other JSON Schema keywords are allowed.',
    rules: ['parameters-not-object', 'parameters-type-not-object', 'properties-not-object', 'required-not-string-list'],
  },
};

/** Keywords of the `parameters` object itself. */
export const PARAMETERS_KEYWORDS: Readonly<Record<string, FieldDoc>> = {
  type: { summary: 'Must be `"object"`.', body: 'The arguments of a tool are always one object.', rules: ['parameters-type-not-object'] },
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

/** The Markdown of a field's documentation, as hover shows it and completion lists it: summary, body, linked rules. */
export function fieldMarkdown(name: string, doc: FieldDoc): string {
  const rules = doc.rules.length ? `\n\nRules: ${doc.rules.map((c) => `[\`${c}\`](${ruleDocsHref(c)})`).join(', ')}` : '';
  return `**${name}** — ${doc.summary}\n\n${doc.body}${rules}`;
}

/** A Markdown list of the tools a node carries, each with its origin and description. */
export function toolListMarkdown(tools: readonly GraphTool[]): string {
  return tools.map((t) => `- \`${t.name}\` (${t.source === 'local' ? 'server tool' : 'remote tool'})${t.description ? `: ${t.description}` : ''}`).join('\n');
}
