// schemas/10xgraph.schema.json agrees with the rule set: it accepts every file in which the
// rule set finds no structural error, rejects every file with one, and (with ajv's allErrors)
// rejects it at the very places the rule set points at. Structural errors are the error codes a
// schema can express: all but invalid-json (the file must parse first), duplicate-name and the
// graph rules; they include the settings the server refuses at start-up. Warnings and information
// never make the schema reject a file.
import { closestToolField } from '../../runtime/src/rules/rules/unknown-field';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { DiagnosticSeverity, MarkupContent, TextDocument, getLanguageService } from 'vscode-json-languageservice';
import { RULES, analyzeConfig, auditConfig, pathOfNode, type JsonNode, type Problem, type ProblemCode } from '../../runtime/src/rules/index';
import { FILE_FIELDS, type SettingSpec } from '../../runtime/src/rules/fields';
import { readDocSections } from './docsExamples';

const ROOT = join(__dirname, '..', '..');
const SCHEMA_PATH = join(ROOT, 'schemas', '10xgraph.schema.json');
const FIXTURES_DIR = join(ROOT, 'test', 'fixtures');
const WIRE_SCHEMAS_DIR = join(FIXTURES_DIR, 'wire');

/** Error codes no JSON Schema can express: uniqueness of a field across items, the files beside the config, and the graph. */
const NOT_IN_SCHEMA = new Set<ProblemCode>([
  'duplicate-name',
  'agent-not-found',
  'node-not-found',
  'node-not-tool-node',
  'name-conflicts-with-server-tool',
  'module-attribute-missing',
]);

/** VS Code's extensions to JSON Schema, which the editor reads and validators ignore. */
const EDITOR_KEYWORDS = ['markdownDescription', 'defaultSnippets', 'patternErrorMessage', 'errorMessage'];

const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as Record<string, any>;
const ajv = new Ajv({ strict: false, allErrors: true });
const validate: ValidateFunction = ajv.compile(schema);

/** One text to judge, and where it comes from (for failure messages). */
interface Case {
  source: string;
  text: string;
}

function isStructural(p: Problem): boolean {
  return p.severity === 'error' && p.code !== 'invalid-json' && !NOT_IN_SCHEMA.has(p.code);
}

/** Every *.json file below `dir`, recursively. */
function findJsonFiles(dir: string): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    const path = join(dir, name);
    // node_modules, and the JSON Schemas of the API's answers (test/fixtures/wire), which are no configs.
    if (name === 'node_modules' || path === WIRE_SCHEMAS_DIR) continue;
    if (statSync(path).isDirectory()) out.push(...findJsonFiles(path));
    else if (name.endsWith('.json')) out.push(path);
  }
  return out;
}

function escapePointer(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

function pointerOf(path: (string | number)[]): string {
  return path.map((s) => '/' + escapePointer(s)).join('');
}

/** The node a problem covers: the value, the key, or the object whose `{` it covers. */
function nodeOfProblem(root: JsonNode, problem: Problem): JsonNode | undefined {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'property' && node.offset === problem.offset && (node.length === problem.length || (problem.length === 1 && node.type === 'object'))) return node;
    if (node.children) stack.push(...node.children);
  }
  return undefined;
}

/** Where a problem stands, as a JSON pointer: a key stands for the property it names. */
function problemPointer(root: JsonNode, problem: Problem): string {
  const node = nodeOfProblem(root, problem);
  if (!node) return `?${problem.offset}+${problem.length}`;
  const property = node.parent;
  if (property?.type === 'property' && property.children![0] === node) return pointerOf([...pathOfNode(property.parent!), node.value as string]);
  return pointerOf(pathOfNode(node));
}

/** Where an ajv error stands, as a JSON pointer: an extra property stands for itself. */
function errorPointer(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') return `${error.instancePath}/${escapePointer((error.params as { additionalProperty: string }).additionalProperty)}`;
  return error.instancePath;
}

/** Judges one text with both, and asserts that they agree. */
function assertAgreement({ source, text }: Case): void {
  const analysis = analyzeConfig(text);
  const syntax = analysis.problems.filter((p) => p.code === 'invalid-json');
  let data: unknown;
  let parsed = true;
  try {
    data = JSON.parse(text);
  } catch {
    parsed = false;
  }
  const tooDeep = syntax.some((p) => p.message.includes('nests deeper'));
  if (!tooDeep) assert.equal(parsed, syntax.length === 0, `${source}: JSON.parse ${parsed ? 'accepts' : 'rejects'} it, the rule set reports ${syntax.length} invalid-json`);
  if (syntax.length > 0) return;
  const structural = analysis.problems.filter(isStructural);
  const valid = validate(data) as boolean;
  const errors = validate.errors ?? [];
  const explain = () =>
    `${source}\n${text}\nrule set: ${JSON.stringify(analysis.problems.map((p) => p.code))}\nschema: ${JSON.stringify(errors.map((e) => `${errorPointer(e)} ${e.keyword} ${e.message}`))}`;
  assert.equal(valid, structural.length === 0, `schema ${valid ? 'accepts' : 'rejects'} a file with ${structural.length} structural errors: ${explain()}`);
  const fromRules = [...new Set(structural.map((p) => problemPointer(analysis.tree!, p)))].sort();
  // A misspelt required field (`desc`) is one fault for the rule set (unknown-field, with the
  // rename) and two for a schema (an extra property and a missing one): drop the schema's second.
  const misspelt = (e: ErrorObject) => {
    if (e.keyword !== 'required') return false;
    const missing = (e.params as { missingProperty: string }).missingProperty;
    const object = e.instancePath
      .split('/')
      .slice(1)
      .reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], data);
    return (
      typeof object === 'object' &&
      object !== null &&
      Object.keys(object).some((k) => {
        const c = closestToolField(k);
        return c?.sure === true && c.field === missing && k !== missing;
      })
    );
  };
  // A failed `then` is reported twice by ajv: where its keyword fails, and (keyword "if") at the
  // object holding the condition. The first is the place; the second only says why it applied.
  const fromSchema = [...new Set(errors.filter((e) => e.keyword !== 'if' && !misspelt(e)).map(errorPointer))].sort();
  assert.deepEqual(fromSchema, fromRules, `the schema and the rule set point at different places: ${explain()}`);
}

/** Texts on the edges of the rules, written here because no fixture needs them. */
const INLINE: Array<[string, string]> = [
  ['empty text', ''],
  ['white space only', ' \n\t'],
  ['byte order mark', '\ufeff{"agent": "graph:app"}'],
  ['comment', '{"agent": "graph:app"} // trailing'],
  ['trailing comma', '{"agent": "graph:app",}'],
  ['single quotes', "{'agent': 'graph:app'}"],
  ['root array', '[]'],
  ['root string', '"graph:app"'],
  ['root number', '42'],
  ['root null', 'null'],
  ['root true', 'true'],
  ['empty object', '{}'],
  ['agent only', '{"agent": "graph:app"}'],
  ['agent with folders', '{"agent": "src/agents/graph:app"}'],
  ['agent with a drive letter: an absolute path, refused', '{"agent": "C:/agents/graph:app"}'],
  ['agent with a colon in its module: the last colon splits', '{"agent": "lib:v2/graph:app"}'],
  ['agent with an absolute module', '{"agent": "/srv/agents/graph:app"}'],
  ['agent with a UNC module', '{"agent": "\\\\\\\\host\\\\share\\\\graph:app"}'],
  ['agent leaving the folder', '{"agent": "../other/graph:app"}'],
  ['agent leaving the folder with backslashes', '{"agent": "..\\\\other\\\\graph:app"}'],
  ['agent with a ".." inside', '{"agent": "src/../graph:app"}'],
  ['agent whose module ends in ".."', '{"agent": "src/.. : app"}'],
  ['agent with dots that are not ".."', '{"agent": "..graph/v..2:app"}'],
  ['agent whose module is a colon', '{"agent": "::app"}'],
  ['agent with spaces around the colon', '{"agent": " graph : app "}'],
  ['agent with a line break inside the module', '{"agent": "gr\\naph:app"}'],
  ['agent without a colon', '{"agent": "graph"}'],
  ['agent with an empty export', '{"agent": "graph:"}'],
  ['agent with an empty module', '{"agent": ":app"}'],
  ['agent with a blank export after the last colon', '{"agent": "graph:app: "}'],
  ['agent of only a colon', '{"agent": ":"}'],
  ['agent with a blank module', '{"agent": " \\t:app"}'],
  ['agent with a no-break space module', '{"agent": "\\u00a0:app"}'],
  ['agent with a line separator export', '{"agent": "graph:\\u2028"}'],
  ['agent with a BOM-character module (white space to trim)', '{"agent": "\\ufeff:app"}'],
  ['agent with a zero-width space module (not white space)', '{"agent": "\\u200b:app"}'],
  ['agent with a lone surrogate', '{"agent": "\\ud800:app"}'],
  ['agent empty', '{"agent": ""}'],
  ['agent number', '{"agent": 42}'],
  ['agent null', '{"agent": null}'],
  ['agent list', '{"agent": ["graph:app"]}'],
  ['agent repeated, last valid', '{"agent": 1, "agent": "graph:app"}'],
  ['agent repeated, last invalid', '{"agent": "graph:app", "agent": "graph"}'],
  ['other root settings are not checked', '{"agent": "graph:app", "port": "eight thousand", "$schema": 5, "remote_tool": {}}'],
  ['remote_tools null', '{"agent": "graph:app", "remote_tools": null}'],
  ['remote_tools string', '{"agent": "graph:app", "remote_tools": "get_user_location"}'],
  ['remote_tools empty object', '{"agent": "graph:app", "remote_tools": {}}'],
  ['remote_tools empty list', '{"agent": "graph:app", "remote_tools": []}'],
  ['tools that are not objects', '{"agent": "graph:app", "remote_tools": [null, 1, "x", [], true]}'],
  ['a minimal tool', '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "t", "description": "Do the thing now."}]}'],
  ['a tool with every field empty', '{"agent": "graph:app", "remote_tools": [{"node": "", "name": " ", "description": "\\t\\n"}]}'],
  ['a tool with a no-break space description', '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "t", "description": "\\u00a0"}]}'],
  ['a tool with non-string fields', '{"agent": "graph:app", "remote_tools": [{"node": 1, "name": null, "description": {"text": "x"}}]}'],
  ['an empty tool', '{"agent": "graph:app", "remote_tools": [{}]}'],
  [
    'a tool with prototype-named fields',
    '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "t", "description": "Do the thing now.", "__proto__": {}, "constructor": 1, "toString": "x"}]}',
  ],
  ['a tool with an alias field instead of a required one', '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "t", "desc": "Do the thing now."}]}'],
  ['a tool field repeated, last blank', '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "node": "", "name": "t", "description": "Do the thing now."}]}'],
  ['a tool field repeated, last fine', '{"agent": "graph:app", "remote_tools": [{"node": "", "node": "TOOL", "name": "t", "description": "Do the thing now."}]}'],
  [
    'a duplicate name is not structural',
    '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "t", "description": "Do the thing now."}, {"node": "TOOL", "name": "t", "description": "Do the thing now."}]}',
  ],
  ['an invalid tool name is a warning', '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "TOOL:read clipboard", "description": "x"}]}'],
  ...(
    [
      ['parameters null', 'null'],
      ['parameters list', '[]'],
      ['parameters string', '"object"'],
      ['parameters false', 'false'],
      ['parameters empty object', '{}'],
      ['parameters without type', '{"properties": {}}'],
      ['parameters type Object', '{"type": "Object"}'],
      ['parameters type list', '{"type": ["object"]}'],
      ['parameters type null', '{"type": null}'],
      ['parameters minimal', '{"type": "object"}'],
      ['parameters full', '{"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": false, "$schema": "x", "description": 5}'],
      ['properties null', '{"type": "object", "properties": null}'],
      ['properties list', '{"type": "object", "properties": ["q"]}'],
      ['required null', '{"type": "object", "required": null}'],
      ['required string', '{"type": "object", "required": "q"}'],
      ['required with non-strings', '{"type": "object", "properties": {"q": {}}, "required": ["q", 1, null, ["q"]]}'],
      ['required not in properties is a warning', '{"type": "object", "required": ["q"]}'],
      ['required repeated is accepted', '{"type": "object", "properties": {"q": {}}, "required": ["q", "q"]}'],
      [
        'invalid argument schemas are warnings',
        '{"type": "object", "properties": {"a": {"type": "int"}, "b": 5, "c": true, "d": null, "e": {"minimum": "1"}, "f": {"properties": []}}}',
      ],
      ['every structural fault at once', '{"type": 1, "properties": 2, "required": [3]}'],
    ] as const
  ).map(([name, parameters]): [string, string] => [
    name,
    `{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "t", "description": "Do the thing now.", "parameters": ${parameters}}]}`,
  ]),
  ['node_name alone is node', '{"agent": "graph:app", "remote_tools": [{"node_name": "TOOL", "name": "t", "description": "Do the thing now."}]}'],
  ['node_name alone, blank', '{"agent": "graph:app", "remote_tools": [{"node_name": "\\u3000", "name": "t", "description": "Do the thing now."}]}'],
  ['node and node_name both', '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "node_name": 5, "name": "t", "description": "Do the thing now."}]}'],
  [
    'a name with white space around it, which the server trims',
    '{"agent": "graph:app", "remote_tools": [{"node": " TOOL", "name": "t\\u0085", "description": "Do the thing now."}]}',
  ],
  ['a number too large for Python int()', '{"agent": "graph:app", "rate_limit": {"requests": 1e400, "window": 1.0, "trusted_proxy_hops": "+1_0"}}'],
  ['auth with an empty path and a wrong method', '{"agent": "graph:app", "auth": {"method": "jwt", "path": ""}}'],
  ['auth with a wrong method', '{"agent": "graph:app", "auth": {"method": "Custom", "path": "auth:Backend"}}'],
  ['authorization named by type', '{"agent": "graph:app", "authorization": {"backend": "", "type": "Roles", "default_scopes": ["a", 1]}}'],
  ['authorization with neither backend nor type', '{"agent": "graph:app", "authorization": {"roles": {}}}'],
  ['authorization as a module path', '{"agent": "graph:app", "authorization": "auth.backends:Rbac"}'],
  [
    'settings read after start-up are never rejected',
    '{"agent": "graph:app", "websocket": {"max_connections": -5}, "test": {"coverage": "yes"}, "evaluation": {"max_concurrency": 2.0}, "redis": 5}',
  ],
  [
    'a mix of faults in two tools',
    '{"remote_tools": [{"node": "TOOL", "nmae": "t", "description": ""}, {"node": "TOOL", "name": "u", "description": "Do it now please.", "parameters": {"type": "array", "required": {}}}], "agent": 3}',
  ],
];

function fixtureCases(): Case[] {
  return findJsonFiles(FIXTURES_DIR).map((path) => ({ source: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
}

function docCases(): Case[] {
  return readDocSections().flatMap((section) => section.examples.map((e) => ({ source: `docs/rules.md:${e.line} (${section.heading}, ${e.label})`, text: e.text })));
}

/** Replaces VS Code snippet placeholders (`${1:text}`, `$1`) by their default text. */
function expandSnippet(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\$\{\d+:([^}]*)\}/g, '$1').replace(/\$\d+/g, '');
  if (Array.isArray(value)) return value.map(expandSnippet);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [expandSnippet(k) as string, expandSnippet(v)]));
  return value;
}

/** Files of settings from the table (fields.ts), each a valid file or not. */
function settingsConfigs(): fc.Arbitrary<unknown> {
  // Values on the edges of how the server reads its settings (Python's int(), its boolean
  // words, import paths, networks, empty values), and any JSON now and then.
  const edge = fc.constantFrom<unknown>(
    ...[true, false, null, 0, -0, 1, -1, 2, 0.5, 1.5, -0.5, 0.99, 100, 1e300],
    ...['', ' ', '\u00a0', '1', ' Yes\t', 'TRUE', 'oFF', 'maybe', '+1_000', '0', '-0', ' 7 ', '1__0', '_1', '\u0661', '1.5', '-3'],
    ...['ip', 'IP', 'user', 'global', 'memory', 'redis', 'custom', 'Custom', 'spans', 'FULL', 'owner', 'none'],
    ...['jwt', 'JWT', 'x-jwt-y', 'graph.deps:container', 'a:b:c', ' a:b', 'a:b\n', 'a:b ', '1a:b', 'a:', 'ownership', ' Allow_All ', 'default:x', 'rbac', 'Role_Based', ' rbac'],
    ...[
      '10.0.0.0/8',
      '::1',
      'fe80::1%eth0',
      '1.2.3.4/255.255.0.0',
      '1.2.3.4/0.0.0.255',
      '01.2.3.4',
      '1.2.3.4/33',
      ' ::ffff:1.2.3.4 ',
      '1::2::3',
      'redis://localhost:6379/0',
      '$REDIS_URL',
    ],
    ...[[], {}, ['a'], [1], ['10.0.0.1', 'x'], [null], { a: 1 }],
  );
  const anyJson = fc.jsonValue({ maxDepth: 2 });
  const valueOf = (spec: SettingSpec): fc.Arbitrary<unknown> => {
    const scalar = fc.oneof({ arbitrary: edge, weight: 4 }, { arbitrary: anyJson, weight: 1 });
    const fields = spec.fields;
    if (!fields) return spec.type === 'networks' ? fc.oneof(fc.array(edge, { maxLength: 3 }), scalar) : scalar;
    const object = fc.record(Object.fromEntries(Object.entries(fields).map(([key, field]) => [key, valueOf(field)])), { requiredKeys: [] });
    return fc.oneof({ arbitrary: object, weight: 3 }, { arbitrary: scalar, weight: 1 });
  };
  const settings = Object.fromEntries(
    Object.entries(FILE_FIELDS)
      .filter(([key]) => key !== 'agent' && key !== 'remote_tools')
      .map(([key, spec]) => [key, valueOf(spec)]),
  );
  // One setting alone (so that many files are valid), or all of them at once.
  const one = fc.oneof(...Object.entries(settings).map(([key, value]) => fc.record({ agent: fc.constant('graph:app'), [key]: value })));
  const all = fc.record({ agent: fc.constant('graph:app'), ...settings, unknown_setting: anyJson }, { requiredKeys: ['agent'] });
  return fc.oneof({ arbitrary: one, weight: 2 }, { arbitrary: all, weight: 1 });
}

describe('schemas/10xgraph.schema.json', () => {
  test('is a draft-07 schema with an $id, and names only keywords JSON Schema or VS Code defines', () => {
    assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
    assert.match(schema.$id, /^https:\/\/.+\/10xgraph\.schema\.json$/);
    const undefinedRequired: string[] = [];
    const logger = { log() {}, warn: (message: unknown) => undefinedRequired.push(String(message)), error() {} };
    const strictAjv = new Ajv({ strictSchema: true, strictTypes: false, strictRequired: 'log', logger });
    strictAjv.addVocabulary(EDITOR_KEYWORDS);
    assert.doesNotThrow(() => strictAjv.compile(schema));
    // ajv compiles a condition (if, then, else, not, anyOf) before the `properties` of its object,
    // so it logs every `required` in one: each must name a property of the object it belongs to.
    for (const warning of undefinedRequired) {
      const m = /required property "(.+)" is not defined at ".*#(.*)" \(strictRequired\)/.exec(warning);
      assert.ok(m, warning);
      const owner = m[2].replace(/(?:\/(?:if|then|else|not|(?:anyOf|allOf)\/\d+))+$/, '');
      // The place is within the root, or within a definition (ajv compiles one apart).
      const objects = [schema, ...Object.values(schema.definitions)].map((root) =>
        owner
          .split('/')
          .slice(1)
          .reduce<Record<string, any> | undefined>((v, k) => v?.[k], root as Record<string, any>),
      );
      assert.ok(
        objects.some((o) => o?.properties?.[m[1]] !== undefined),
        warning,
      );
    }
  });

  test('every field has a title, a description and a markdownDescription', () => {
    const defs = schema.definitions;
    const fields: Array<[string, Record<string, unknown>]> = [
      ['root', schema],
      ['agent', schema.properties.agent],
      ['remote_tools', schema.properties.remote_tools],
      ['remote tool', defs.remoteTool],
      ['node', defs.remoteTool.properties.node],
      ['node_name', defs.remoteTool.properties.node_name],
      ['name', defs.remoteTool.properties.name],
      ['description', defs.remoteTool.properties.description],
      ['parameters', defs.parameters],
      ['parameters.type', defs.parameters.properties.type],
      ['parameters.properties', defs.parameters.properties.properties],
      ['parameters.required', defs.parameters.properties.required],
    ];
    for (const [name, field] of fields) {
      for (const keyword of ['title', 'description', 'markdownDescription']) assert.equal(typeof field[keyword], 'string', `${name} has no ${keyword}`);
    }
  });

  test('requires agent and the three tool fields (node or node_name), and rejects other tool fields, as docs/spec.md §1 says', () => {
    assert.deepEqual(schema.required, ['agent']);
    const tool = schema.definitions.remoteTool;
    assert.deepEqual(tool.required, ['name', 'description']);
    assert.deepEqual([tool.if, tool.then], [{ not: { required: ['node_name'] } }, { required: ['node'] }]);
    assert.deepEqual(tool.dependencies, { node: { properties: { node_name: false } } });
    assert.equal(tool.additionalProperties, false);
    assert.deepEqual(Object.keys(tool.properties), ['node', 'node_name', 'name', 'description', 'parameters']);
    assert.notEqual(schema.additionalProperties, false, 'unknown top-level keys are warnings, accepted');
  });

  test('its examples, defaults and snippets are files the rule set finds nothing wrong with', () => {
    for (const example of schema.examples) {
      assert.equal(validate(example), true);
      assert.deepEqual(auditConfig(JSON.stringify(example, null, 2)), []);
    }
    const withTools = (tools: unknown) => JSON.stringify({ agent: 'graph:app', remote_tools: tools }, null, 2);
    const tool = (parameters?: unknown) => ({
      node: 'TOOL',
      name: 'read_clipboard',
      description: "Read text from the user's clipboard.",
      ...(parameters === undefined ? {} : { parameters }),
    });
    const defs = schema.definitions;
    const texts: Array<[string, string]> = [
      ['default of remote_tools', withTools(schema.properties.remote_tools.default)],
      ['default of parameters', withTools([tool(defs.parameters.default)])],
      ['default of agent', JSON.stringify({ agent: schema.properties.agent.default })],
      ...schema.properties.agent.examples.map((agent: string): [string, string] => [`example agent ${agent}`, JSON.stringify({ agent })]),
      ...schema.defaultSnippets.map((s: { label: string; body: unknown }): [string, string] => [`root snippet ${s.label}`, JSON.stringify(expandSnippet(s.body), null, 2)]),
      ...schema.properties.remote_tools.defaultSnippets.map((s: { label: string; body: unknown }): [string, string] => [
        `remote_tools snippet ${s.label}`,
        withTools(expandSnippet(s.body)),
      ]),
      ...defs.remoteTool.defaultSnippets.map((s: { label: string; body: unknown }): [string, string] => [`tool snippet ${s.label}`, withTools([expandSnippet(s.body)])]),
      ...defs.parameters.defaultSnippets.map((s: { label: string; body: unknown }): [string, string] => [
        `parameters snippet ${s.label}`,
        withTools([tool(expandSnippet(s.body))]),
      ]),
      ...defs.argumentSchema.defaultSnippets.map((s: { label: string; body: unknown }): [string, string] => [
        `argument snippet ${s.label}`,
        withTools([tool({ type: 'object', properties: { query: expandSnippet(s.body) }, required: ['query'] })]),
      ]),
    ];
    for (const [name, text] of texts) {
      const problems = auditConfig(text).filter((p) => p.code !== 'vague-description' || !name.includes('snippet'));
      assert.deepEqual(
        problems.map((p) => `${p.code}: ${p.message}`),
        [],
        `${name}:\n${text}`,
      );
      assert.equal(validate(JSON.parse(text)), true, `${name}: ${JSON.stringify(validate.errors)}`);
    }
  });

  test('the agent pattern agrees with how the rule set splits module:export', () => {
    const pattern = new RegExp(schema.properties.agent.pattern, 'u');
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(' ', ':', 'a', 'b', '\n', '\t', '\u00a0', '\u2028', '\ufeff', '\u200b', '/'), maxLength: 10 }), (agent) => {
        const invalid = auditConfig(JSON.stringify({ agent })).some((p) => p.code === 'agent-invalid');
        assert.equal(pattern.test(agent), !invalid, JSON.stringify(agent));
      }),
      { numRuns: 2000 },
    );
  });

  describe('agrees with the rule set on the fixture corpus', () => {
    const cases = fixtureCases();
    test('the corpus is there', () => {
      assert.ok(cases.length > 0, `no *.json file under ${relative(ROOT, FIXTURES_DIR)}`);
    });
    for (const c of cases) test(c.source, () => assertAgreement(c));
  });

  describe('agrees with the rule set on edge cases', () => {
    for (const [name, text] of INLINE) test(name, () => assertAgreement({ source: name, text }));
  });

  describe('agrees with the rule set on the examples of docs/rules.md', () => {
    for (const c of docCases()) test(c.source, () => assertAgreement(c));
  });

  test('accepts and rejects at least one file each among the cases (the comparison is not vacuous)', () => {
    const verdicts = [...fixtureCases(), ...INLINE.map(([source, text]) => ({ source, text })), ...docCases()]
      .map((c) => {
        try {
          return validate(JSON.parse(c.text)) as boolean;
        } catch {
          return undefined;
        }
      })
      .filter((v) => v !== undefined);
    assert.ok(verdicts.includes(true));
    assert.ok(verdicts.includes(false));
  });

  test('agrees with the rule set on generated settings', () => {
    const config = settingsConfigs();
    fc.assert(
      fc.property(config, (value) => {
        assertAgreement({ source: 'generated', text: JSON.stringify(value, null, 2) });
      }),
      { numRuns: 3000 },
    );
  });

  test('agrees with the rule set on generated configs', () => {
    const anyJson = fc.jsonValue({ maxDepth: 2 });
    const text = fc.oneof(fc.constantFrom('', ' ', '\t\n', 'TOOL', 'read_clipboard', 'a b', ':', 'graph:app', '\u00a0', 'Read the clipboard text.'), fc.string({ maxLength: 6 }));
    const field = fc.oneof({ arbitrary: text, weight: 4 }, { arbitrary: anyJson, weight: 1 });
    const parameters = fc.oneof(
      {
        arbitrary: fc.record(
          {
            type: fc.oneof({ arbitrary: fc.constant('object'), weight: 4 }, { arbitrary: anyJson, weight: 1 }),
            properties: fc.oneof({ arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), anyJson, { maxKeys: 3 }), weight: 4 }, { arbitrary: anyJson, weight: 1 }),
            required: fc.oneof(
              { arbitrary: fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }), weight: 3 },
              { arbitrary: fc.array(anyJson, { maxLength: 2 }), weight: 1 },
              { arbitrary: anyJson, weight: 1 },
            ),
            additionalProperties: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
        weight: 4,
      },
      { arbitrary: anyJson, weight: 1 },
    );
    const tool = fc.oneof(
      {
        arbitrary: fc.record({ node: field, node_name: field, name: field, description: field, parameters, params: anyJson, desc: text }, { requiredKeys: [] }),
        weight: 6,
      },
      { arbitrary: anyJson, weight: 1 },
    );
    const config = fc.oneof(
      {
        arbitrary: fc.record(
          {
            agent: fc.oneof({ arbitrary: fc.constantFrom('graph:app', 'graph', ':app', 'a:b:c', ' : '), weight: 3 }, { arbitrary: anyJson, weight: 1 }),
            remote_tools: fc.oneof({ arbitrary: fc.array(tool, { maxLength: 3 }), weight: 5 }, { arbitrary: anyJson, weight: 1 }),
            port: anyJson,
          },
          { requiredKeys: [] },
        ),
        weight: 9,
      },
      { arbitrary: anyJson, weight: 1 },
    );
    fc.assert(
      fc.property(config, (value) => {
        assertAgreement({ source: 'generated', text: JSON.stringify(value, null, 2) });
      }),
      { numRuns: 1500 },
    );
  });

  test('its structural codes are every error code but invalid-json, duplicate-name, agent-not-found and the graph rules', () => {
    const errors = (Object.keys(RULES) as ProblemCode[]).filter((c) => RULES[c].severity === 'error' && c !== 'internal-error');
    const structural = errors.filter((c) => c !== 'invalid-json' && !NOT_IN_SCHEMA.has(c));
    assert.deepEqual(structural, [
      'root-not-object',
      'agent-missing',
      'agent-invalid',
      'remote-tools-not-list',
      'tool-not-object',
      'unknown-field',
      'missing-field',
      'not-a-string',
      'blank-field',
      'parameters-not-object',
      'parameters-type-not-object',
      'properties-not-object',
      'required-not-string-list',
      'setting-wrong-type',
      'setting-out-of-range',
      'setting-unknown-value',
      'invalid-import-path',
      'invalid-network',
      'auth-invalid',
    ]);
  });
});

/** VS Code's own JSON support with the schema configured for every file, as an editor uses it. */
function editorService() {
  const service = getLanguageService({
    clientCapabilities: { textDocument: { completion: { completionItem: { documentationFormat: ['markdown'] } }, hover: { contentFormat: ['markdown'] } } },
  });
  service.configure({ validate: true, allowComments: false, schemas: [{ uri: schema.$id, fileMatch: ['*10xgraph.json'], schema }] });
  return service;
}

/** Opens `text`, with `|` marking the cursor, as an editor would. */
function openAtCursor(textWithCursor: string) {
  const offset = textWithCursor.indexOf('|');
  const document = TextDocument.create('file:///work/10xgraph.json', 'json', 1, textWithCursor.slice(0, offset) + textWithCursor.slice(offset + 1));
  return { document, position: document.positionAt(offset) };
}

describe('in an editor (vscode-json-languageservice)', () => {
  const service = editorService();

  test('reports a schema error exactly on the files ajv rejects', async () => {
    const cases = [...fixtureCases(), ...INLINE.map(([source, text]) => ({ source, text })), ...docCases()];
    let compared = 0;
    for (const { source, text } of cases) {
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        continue;
      }
      const document = TextDocument.create('file:///work/10xgraph.json', 'json', 1, text);
      const diagnostics = await service.doValidation(document, service.parseJSONDocument(document), { comments: 'error', trailingCommas: 'error', schemaValidation: 'error' });
      const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error);
      assert.equal(errors.length > 0, !validate(data), `${source}: ${JSON.stringify(errors.map((d) => d.message))}`);
      compared++;
    }
    assert.ok(compared > 0);
  });

  test('reports a schema error exactly on the generated settings ajv rejects', async () => {
    await fc.assert(
      fc.asyncProperty(settingsConfigs(), async (value) => {
        const text = JSON.stringify(value, null, 2);
        const document = TextDocument.create('file:///work/10xgraph.json', 'json', 1, text);
        const diagnostics = await service.doValidation(document, service.parseJSONDocument(document), { schemaValidation: 'error' });
        const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error);
        assert.equal(errors.length > 0, !validate(value), `${text}\n${JSON.stringify(errors.map((d) => d.message))}`);
      }),
      { numRuns: 500 },
    );
  });

  test("uses the schema's own words for its errors", async () => {
    const { document } = openAtCursor('{"agent": "graph|", "remote_tools": [{"node": " ", "name": "t", "description": "Do it now.", "parameters": {"type": "array"}}]}');
    const diagnostics = await service.doValidation(document, service.parseJSONDocument(document), { schemaValidation: 'error' });
    const messages = diagnostics.map((d) => d.message).sort();
    assert.deepEqual(
      messages,
      [
        schema.properties.agent.patternErrorMessage,
        schema.definitions.parameters.properties.type.errorMessage,
        schema.definitions.remoteTool.properties.node.patternErrorMessage,
      ].sort(),
    );
  });

  test('completes the top-level fields, with their descriptions', async () => {
    const { document, position } = openAtCursor('{\n  |\n}');
    const list = await service.doComplete(document, position, service.parseJSONDocument(document));
    const labels = list!.items.map((i) => i.label);
    assert.ok(labels.includes('agent') && labels.includes('remote_tools'), JSON.stringify(labels));
    const agent = list!.items.find((i) => i.label === 'agent')!;
    assert.match((agent.documentation as MarkupContent).value, /The compiled graph the server runs/);
  });

  test('offers a snippet for a new remote tool inside remote_tools', async () => {
    const { document, position } = openAtCursor('{"agent": "graph:app", "remote_tools": [\n  |\n]}');
    const list = await service.doComplete(document, position, service.parseJSONDocument(document));
    const item = list!.items.find((i) => i.label === 'New remote tool');
    assert.ok(item, JSON.stringify(list!.items.map((i) => i.label)));
    assert.match(item.insertText ?? '', /"node": "\$\{1:TOOL\}"/);
  });

  test('completes the fields of a remote tool', async () => {
    const { document, position } = openAtCursor('{"agent": "graph:app", "remote_tools": [{\n  |\n}]}');
    const list = await service.doComplete(document, position, service.parseJSONDocument(document));
    const labels = list!.items.map((i) => i.label);
    for (const field of ['node', 'name', 'description', 'parameters']) assert.ok(labels.includes(field), JSON.stringify(labels));
  });

  test('completes JSON Schema types for an argument', async () => {
    const { document, position } = openAtCursor(
      '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "t", "description": "Do it now.", "parameters": {"type": "object", "properties": {"q": {"type": |}}}}]}',
    );
    const list = await service.doComplete(document, position, service.parseJSONDocument(document));
    const labels = list!.items.map((i) => i.label);
    for (const type of ['"string"', '"number"', '"integer"', '"boolean"', '"array"', '"object"']) assert.ok(labels.includes(type), JSON.stringify(labels));
  });

  test('explains a field on hover', async () => {
    const { document, position } = openAtCursor('{"remote_tools": [{"no|de": "TOOL"}]}');
    const hover = await service.doHover(document, position, service.parseJSONDocument(document));
    const contents = JSON.stringify(hover?.contents);
    assert.match(contents, /The ToolNode of the graph that carries this tool/);
  });
});
