/**
 * Shared fast-check arbitraries for the hardening properties: hostile characters and strings,
 * random JSON values, valid configs with a random value put in any position, serialisation in
 * random layouts (indent, CRLF/LF/CR, raw or escaped non-ASCII, repeated keys), byte-level
 * mutations of the fixture corpus, and sequences of edits.
 *
 * Objects are modelled as `Entries` (an ordered list of key/value pairs) rather than JavaScript
 * objects, so a model can hold a repeated key or a `__proto__` key exactly as a text can.
 */
import fc from 'fast-check';
import type { AuditOptions, Graph } from '../../../runtime/src/rules/index';
import { generateConfig } from '../../../bench/generate';
import { CORPUS_GRAPH, loadCorpus } from '../../support/corpus';

// ---- characters and strings --------------------------------------------------------------

/** Characters that trouble parsers and position maths: structure, white space, surrogates, BOM, NUL. */
export const HOSTILE_UNITS: readonly string[] = [
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '"',
  '\\',
  '/',
  '*',
  ' ',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\0',
  '\x01',
  '\x1f',
  '\x7f',
  '\uFEFF',
  '\uD800',
  '\uDBFF',
  '\uDC00',
  '\uDFFF',
  '\uD83D',
  '\uDE00',
  '😀',
  '\u{10FFFF}',
  '\u{1FFFE}',
  '\uFFFE',
  '\uFFFF',
  '\u2028',
  '\u2029',
  '\u00A0',
  '\u000B',
  '\u000C',
  '\u0085',
  '\u200B',
  'é',
  'e\u0301',
  '日',
  '-',
  '+',
  '.',
  '0',
  '1',
  '9',
  'e',
  'E',
  't',
  'f',
  'n',
  'u',
  'x',
  '_',
  '$',
];

/** One UTF-16 unit or code point: a hostile one, any BMP unit (lone surrogates included), or any astral code point. */
export const anyUnit: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...HOSTILE_UNITS) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)) },
);

/** A short string of hostile units (may hold lone surrogates and control characters). */
export const hostileString: fc.Arbitrary<string> = fc.array(anyUnit, { maxLength: 10 }).map((units) => units.join(''));

/** Words a config is written with, so random values often look like the real thing. */
const MEANINGFUL = [
  '',
  ' ',
  '\t',
  '  \n ',
  'TOOL',
  'agent',
  'format_answer',
  'NOPE',
  'tool',
  'graph:app',
  'graph',
  ':app',
  'graph:',
  'a:b:c',
  'get_time',
  'get_user_location',
  'object',
  'string',
  'number',
  'integer',
  'boolean',
  'array',
  'null',
  'int',
  'x',
  'clipboard',
  'Read text from the clipboard.',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'bad name',
  'x'.repeat(65),
  'ünï😀',
];

/** A JSON string value: meaningful, random or hostile. */
export const jsonString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...MEANINGFUL) },
  { weight: 2, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 2, arbitrary: hostileString },
);

/** Keys of a config, their typos, and troublesome keys. */
const KEYS = [
  'agent',
  'remote_tools',
  'node',
  'name',
  'description',
  'parameters',
  'type',
  'properties',
  'required',
  'desc',
  'params',
  'node_name',
  'tool_name',
  'summary',
  'args',
  'nmae',
  'descripton',
  'enum',
  'items',
  'minimum',
  '$ref',
  '__proto__',
  'constructor',
  '',
];

/** An object key: a config key, a typo of one, or any string. */
export const keyArb: fc.Arbitrary<string> = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...KEYS) }, { weight: 1, arbitrary: jsonString });

// ---- the model -----------------------------------------------------------------------------

/** A number written exactly as given (`-0`, `1e400`, a 30-digit integer). */
export class RawNumber {
  constructor(readonly text: string) {}
}

/** An object as an ordered list of entries; a key may repeat (the last one counts, as in JSON.parse). */
export class Entries {
  constructor(readonly entries: Array<[string, Model]>) {}
}

/** A JSON value as a text would hold it. */
export type Model = null | boolean | number | string | RawNumber | Model[] | Entries;

/** Builds an `Entries` from pairs. */
export function obj(...entries: Array<[string, Model]>): Entries {
  return new Entries(entries);
}

const RAW_NUMBERS = ['-0', '0', '1e400', '-1e400', '1E+2', '0.5e-10', '123456789012345678901234567890', '4.9e-324', '1.7976931348623157e308', '0.1', '-12.50'];

/** A scalar JSON value. */
export const scalarArb: fc.Arbitrary<Model> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(...RAW_NUMBERS).map((t) => new RawNumber(t)),
  jsonString,
);

/** Any JSON value, a few levels deep. */
export const jsonValueArb: fc.Arbitrary<Model> = fc.letrec<{ value: Model; array: Model[]; object: Entries }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalarArb, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.array(fc.tuple(keyArb, tie('value')), { maxLength: 4 }).map((entries) => new Entries(entries)),
})).value;

const WORDS = [
  'Get',
  'the',
  'user',
  'current',
  'location',
  'time',
  'Read',
  'text',
  'from',
  'clipboard',
  'Look',
  'up',
  'a',
  'record',
  'Ünïcödé',
  '😀',
  '日本語',
  'in',
  'local',
  'database',
];

/** A description of three words or more (no `vague-description`). */
export const descriptionArb: fc.Arbitrary<string> = fc.array(fc.constantFrom(...WORDS), { minLength: 3, maxLength: 7 }).map((w) => `${w.join(' ')}.`);

/** A tool name models accept. */
export const toolNameArb: fc.Arbitrary<string> = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);

const propertySchemaArb: fc.Arbitrary<Model> = fc
  .record({ type: fc.constantFrom('string', 'number', 'integer', 'boolean'), description: fc.option(descriptionArb, { nil: undefined }) })
  .map(({ type, description }) => (description === undefined ? obj(['type', type]) : obj(['type', type], ['description', description])));

/** A valid `parameters` object: properties with simple schemas, `required` a subset of them. */
export const parametersArb: fc.Arbitrary<Entries> = fc
  .record({
    properties: fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z_]{1,8}$/), propertySchemaArb), { selector: (t) => t[0], maxLength: 4 }),
    required: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
    withProperties: fc.boolean(),
    withRequired: fc.boolean(),
  })
  .map(({ properties, required, withProperties, withRequired }) => {
    const entries: Array<[string, Model]> = [['type', 'object']];
    if (withProperties || properties.length) entries.push(['properties', new Entries(properties)]);
    if (withRequired) entries.push(['required', properties.filter((_, i) => required[i]).map(([name]) => name)]);
    return new Entries(entries);
  });

/** A config with no error against the corpus graph: agent `graph:app`, tools on `TOOL`, unique names. */
export const validConfigArb: fc.Arbitrary<Entries> = fc
  .record({
    names: fc.uniqueArray(
      toolNameArb.filter((n) => n !== 'get_time'),
      { maxLength: 5 },
    ),
    descriptions: fc.array(descriptionArb, { minLength: 5, maxLength: 5 }),
    parameters: fc.array(fc.option(parametersArb, { nil: undefined }), { minLength: 5, maxLength: 5 }),
    withTools: fc.boolean(),
    extras: fc.array(fc.tuple(fc.constantFrom('port', 'host', 'log_level', 'settings', 'x-notes'), scalarArb), { maxLength: 2 }),
  })
  .map(({ names, descriptions, parameters, withTools, extras }) => {
    const tools = names.map((name, i) => {
      const entries: Array<[string, Model]> = [
        ['node', 'TOOL'],
        ['name', name],
        ['description', descriptions[i]],
      ];
      if (parameters[i]) entries.push(['parameters', parameters[i]!]);
      return new Entries(entries);
    });
    const root: Array<[string, Model]> = [['agent', 'graph:app']];
    if (withTools || tools.length) root.push(['remote_tools', tools]);
    const seen = new Set(['agent', 'remote_tools']);
    for (const [key, value] of extras) if (!seen.has(key)) (seen.add(key), root.push([key, value]));
    return new Entries(root);
  });

// ---- mutations of a model ------------------------------------------------------------------

/** A path into a model: keys of objects, indexes of arrays. */
export type Path = Array<string | number>;

/** What to do at a path. */
export type ModelOp = 'set' | 'plausible' | 'delete' | 'add' | 'repeat-before' | 'repeat-after' | 'clone';

/**
 * One change of a model: at the `pick`-th position (modulo their count), apply `op` with
 * `value`/`key`. `plausible` sets a value a person might write in that field (`alt` picks it).
 */
export interface ModelMutation {
  pick: number;
  op: ModelOp;
  key: string;
  value: Model;
  alt: number;
}

/** Values people write in each field, right and wrong, so every rule gets its turn. */
export const PLAUSIBLE: Record<string, Model[]> = {
  agent: ['graph:app', './graph:app', 'graph', 'graph:', ':app', ' : ', 'nope:app', 'a:b:c', '', 42],
  remote_tools: [
    [],
    obj(),
    null,
    obj(['node', 'TOOL'], ['name', 'single'], ['description', 'One tool, not in a list.']),
    obj(['lookup', obj(['node', 'TOOL'], ['description', 'Keyed by its name here.'])], ['fetch', obj(['node', 'SEARCH'], ['description', 'Another keyed tool.'])]),
  ],
  node: ['TOOL', 'SEARCH', 'agent', 'format_answer', 'NOPE', 'TOOl', 'tool', 'TOOL ', '', '   ', 'get_time', null, 7],
  name: ['get_time', 'get_user_location', 'bad name', 'x'.repeat(65), 'ok-name_1', 'naïve', '😀', 'A', '', ' \t', false],
  description: ['clipboard', 'Two words', 'A proper description of the tool.', '', '\n', ['a', 'b']],
  parameters: [obj(), obj(['type', 'object']), [], null, 'object', obj(['type', 'array']), obj(['properties', obj()])],
  type: ['object', 'string', 'int', 'array', null, ['object']],
  properties: [
    obj(),
    [],
    obj(['x', obj(['type', 'int'])]),
    obj(['x', obj(['type', 'string'], ['minLength', 'a'])]),
    obj(['x', 1]),
    obj(['x', obj(['anyOf', [obj(['type', 'str'])]])]),
  ],
  required: [[], ['x'], [1], 'x', [null], ['missing'], ['x', 'x']],
};

/** Random changes of a model, from a random JSON value in one position to several. */
export const modelMutationArb: fc.Arbitrary<ModelMutation> = fc.record({
  pick: fc.nat(),
  op: fc.constantFrom<ModelOp>('set', 'set', 'plausible', 'plausible', 'plausible', 'delete', 'add', 'repeat-before', 'repeat-after', 'clone'),
  key: keyArb,
  value: jsonValueArb,
  alt: fc.nat(),
});

function entryIndex(entries: Entries, key: string): number {
  for (let i = entries.entries.length - 1; i >= 0; i--) if (entries.entries[i][0] === key) return i;
  return -1;
}

function childAt(model: Model, step: string | number): Model | undefined {
  if (Array.isArray(model) && typeof step === 'number') return model[step];
  if (model instanceof Entries && typeof step === 'string') {
    const i = entryIndex(model, step);
    return i < 0 ? undefined : model.entries[i][1];
  }
  return undefined;
}

/**
 * Every position of a model: each existing value, and the slots a config's rules care about
 * even when empty (`agent`, `remote_tools`, each tool field, each `parameters` keyword).
 */
export function positionsOf(model: Model): Path[] {
  const out: Path[] = [];
  const seen = new Set<string>();
  const add = (path: Path) => {
    const id = JSON.stringify(path);
    if (!seen.has(id)) (seen.add(id), out.push(path));
  };
  const walk = (value: Model, path: Path) => {
    add(path);
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i]));
    else if (value instanceof Entries) for (const [key, child] of value.entries) walk(child, [...path, key]);
  };
  walk(model, []);
  add(['agent']);
  add(['remote_tools']);
  const tools = childAt(model, 'remote_tools');
  if (Array.isArray(tools)) {
    tools.forEach((tool, i) => {
      if (!(tool instanceof Entries)) return;
      for (const field of ['node', 'name', 'description', 'parameters']) add(['remote_tools', i, field]);
      const parameters = childAt(tool, 'parameters');
      if (parameters instanceof Entries) for (const field of ['type', 'properties', 'required']) add(['remote_tools', i, 'parameters', field]);
    });
  }
  return out;
}

function cloneModel(model: Model): Model {
  if (Array.isArray(model)) return model.map(cloneModel);
  if (model instanceof Entries) return new Entries(model.entries.map(([k, v]) => [k, cloneModel(v)]));
  return model;
}

/** Applies one mutation to a copy of `model`. */
export function mutateModel(model: Model, mutation: ModelMutation): Model {
  const root = cloneModel(model);
  const positions = positionsOf(root);
  const path = positions[mutation.pick % positions.length];
  if (path.length === 0) {
    if (mutation.op === 'add' && root instanceof Entries) root.entries.push([mutation.key, mutation.value]);
    else if (mutation.op === 'add' && Array.isArray(root)) root.push(mutation.value);
    else if (mutation.op !== 'delete') return mutation.value;
    return root;
  }
  let parent: Model | undefined = root;
  for (const step of path.slice(0, -1)) parent = parent === undefined ? undefined : childAt(parent, step);
  const last = path[path.length - 1];
  if (mutation.op === 'plausible') {
    const table = typeof last === 'string' && Object.hasOwn(PLAUSIBLE, last) ? PLAUSIBLE[last] : undefined;
    mutation = { ...mutation, op: 'set', value: table ? cloneModel(table[mutation.alt % table.length]) : mutation.value };
  }
  if (mutation.op === 'clone') {
    // A copy right after the original: a repeated key in an object, a repeated item (a duplicate name) in a list.
    const original = parent === undefined ? undefined : childAt(parent, last);
    mutation = { ...mutation, op: 'repeat-after', value: original === undefined ? mutation.value : cloneModel(original) };
  }
  if (Array.isArray(parent) && typeof last === 'number') {
    if (mutation.op === 'delete') parent.splice(last, 1);
    else if (mutation.op === 'add' || mutation.op === 'repeat-before') parent.splice(last, 0, mutation.value);
    else if (mutation.op === 'repeat-after') parent.splice(last + 1, 0, mutation.value);
    else parent[last] = mutation.value;
  } else if (parent instanceof Entries && typeof last === 'string') {
    const i = entryIndex(parent, last);
    const target = i < 0 ? undefined : parent.entries[i][1];
    switch (mutation.op) {
      case 'set':
        if (i < 0) parent.entries.push([last, mutation.value]);
        else parent.entries[i][1] = mutation.value;
        break;
      case 'delete':
        parent.entries.splice(0, parent.entries.length, ...parent.entries.filter(([k]) => k !== last));
        break;
      case 'add':
        if (target instanceof Entries) target.entries.push([mutation.key, mutation.value]);
        else if (Array.isArray(target)) target.push(mutation.value);
        else parent.entries.push([mutation.key, mutation.value]);
        break;
      case 'repeat-before':
        // An earlier copy of the key: ignored by a strict parser, reported as duplicate-key.
        parent.entries.splice(Math.max(0, i), 0, [last, mutation.value]);
        break;
      case 'repeat-after':
        // A later copy: it is the one that counts.
        parent.entries.push([last, mutation.value]);
        break;
    }
  }
  return root;
}

/** A config model: valid, then changed in 0–3 random positions. */
export const configModelArb: fc.Arbitrary<Model> = fc
  .tuple(validConfigArb, fc.array(modelMutationArb, { maxLength: 3 }))
  .map(([config, mutations]) => mutations.reduce<Model>((m, mutation) => mutateModel(m, mutation), config));

// ---- serialisation ---------------------------------------------------------------------------

/** How a model is written out. */
export interface Layout {
  /** Indent unit; null writes everything on one line. */
  indent: string | null;
  /** Line breaks, used in turn (so a file can mix them). */
  eols: readonly string[];
  /** Space after each colon. */
  colonSpace: string;
  /** Non-ASCII (lone surrogates included) written raw rather than as `\uXXXX`. */
  raw: boolean;
  finalEol: boolean;
}

/** A random layout. */
export const layoutArb: fc.Arbitrary<Layout> = fc.record({
  indent: fc.constantFrom(null, '  ', '    ', '\t'),
  eols: fc.oneof(fc.constantFrom<string[]>(['\n'], ['\r\n'], ['\r']), fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 1, maxLength: 4 })),
  colonSpace: fc.constantFrom('', ' ', '\t'),
  raw: fc.boolean(),
  finalEol: fc.boolean(),
});

function quote(value: string, raw: boolean): string {
  if (!raw) return JSON.stringify(value);
  // Only what JSON requires is escaped; everything else, lone surrogates too, stays as it is.
  return `"${value.replace(/["\\\u0000-\u001f]/g, (c) => JSON.stringify(c).slice(1, -1))}"`;
}

/** Writes a model as JSON text in `layout` (the text JSON.parse reads as the model). */
export function serialize(model: Model, layout: Layout): string {
  let lineBreaks = 0;
  const eol = () => layout.eols[lineBreaks++ % layout.eols.length];
  const write = (value: Model, depth: number): string => {
    if (value === null || typeof value === 'boolean') return String(value);
    if (typeof value === 'number') return JSON.stringify(value);
    if (typeof value === 'string') return quote(value, layout.raw);
    if (value instanceof RawNumber) return value.text;
    const items: string[] = Array.isArray(value)
      ? value.map((item) => write(item, depth + 1))
      : value.entries.map(([k, v]) => `${quote(k, layout.raw)}:${layout.colonSpace}${write(v, depth + 1)}`);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (items.length === 0) return open + close;
    if (layout.indent === null) return `${open}${items.join(`,${layout.colonSpace}`)}${close}`;
    const inner = layout.indent.repeat(depth + 1);
    return `${open}${items.map((item) => `${eol()}${inner}${item}`).join(',')}${eol()}${layout.indent.repeat(depth)}${close}`;
  };
  const text = write(model, 0);
  return layout.finalEol ? text + eol() : text;
}

/** A config text: a (mutated) config model in a random layout. */
export const configTextArb: fc.Arbitrary<string> = fc.tuple(configModelArb, layoutArb).map(([model, layout]) => serialize(model, layout));

// ---- text mutations ---------------------------------------------------------------------------

/** Every corpus file's text. */
export const CORPUS_TEXTS: readonly string[] = loadCorpus().map((c) => c.text);

/** JSON fragments a person types, pastes or half-deletes. */
const FRAGMENTS = [
  '"node": "TOOL"',
  '"name": "x"',
  '"description": "Read the user clipboard."',
  '"parameters": {"type": "object"}',
  '"agent": "graph:app"',
  '"remote_tools": []',
  '{"node": "TOOL", "name": "t", "description": "Do a thing."}',
  ', ',
  ',',
  ':',
  '{',
  '}',
  '[',
  ']',
  '"',
  'null',
  'true',
  '1e5',
  '-',
  '\\u00',
  '\\',
  '// comment\n',
  '/* comment */',
  '/*',
  '\r\n',
  '\n',
  '\r',
  '\t',
  '    ',
  '\uFEFF',
  '\0',
  '\uD800',
  '\uDC00',
];

/** Text to insert: one unit, a fragment, or a hostile string. */
export const insertTextArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: anyUnit },
  { weight: 3, arbitrary: fc.constantFrom(...FRAGMENTS) },
  { weight: 1, arbitrary: hostileString },
);

/** One character-level change; positions are taken modulo the text's length. */
export type TextMutation =
  | { kind: 'insert'; at: number; text: string }
  | { kind: 'delete'; at: number; length: number }
  | { kind: 'swap'; a: number; b: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'copy'; from: number; length: number; to: number }
  | { kind: 'eol'; eols: string[] }
  | { kind: 'bom' };

/** A random text mutation. */
export const textMutationArb: fc.Arbitrary<TextMutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: insertTextArb }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('copy' as const), from: fc.nat(), length: fc.integer({ min: 1, max: 40 }), to: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('eol' as const), eols: fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'bom' as const }) },
);

/** Applies one text mutation. */
export function mutateText(text: string, m: TextMutation): string {
  const at = (n: number) => n % (text.length + 1);
  switch (m.kind) {
    case 'insert': {
      const i = at(m.at);
      return text.slice(0, i) + m.text + text.slice(i);
    }
    case 'delete': {
      const i = at(m.at);
      return text.slice(0, i) + text.slice(i + m.length);
    }
    case 'swap': {
      if (text.length < 2) return text;
      const [a, b] = [m.a % text.length, m.b % text.length].sort((x, y) => x - y);
      if (a === b) return text;
      return text.slice(0, a) + text[b] + text.slice(a + 1, b) + text[a] + text.slice(b + 1);
    }
    case 'truncate':
      return text.slice(0, at(m.at));
    case 'copy': {
      const from = at(m.from);
      const piece = text.slice(from, from + m.length);
      const to = at(m.to);
      return text.slice(0, to) + piece + text.slice(to);
    }
    case 'eol': {
      let n = 0;
      return text.replace(/\r\n|\r|\n/g, () => m.eols[n++ % m.eols.length]);
    }
    case 'bom':
      return '\uFEFF' + text;
  }
}

/** A benchmark config of 1–40 tools (from the 14th on, one tool carries several problems). */
export const benchConfigArb: fc.Arbitrary<string> = fc.integer({ min: 1, max: 40 }).map((n) => generateConfig(n));

/** A corpus file, a generated config or a benchmark config, to start from. */
export const seedTextArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...CORPUS_TEXTS) },
  { weight: 3, arbitrary: configTextArb },
  { weight: 1, arbitrary: benchConfigArb },
);

/** A corpus file (or generated config) after 1–5 character-level mutations. */
export const mutatedTextArb: fc.Arbitrary<string> = fc
  .tuple(seedTextArb, fc.array(textMutationArb, { minLength: 1, maxLength: 5 }))
  .map(([text, mutations]) => mutations.reduce(mutateText, text));

/** One edit as an editor sends it: delete `length` units at `at` (modulo the length), insert `text`. */
export interface Edit {
  at: number;
  length: number;
  text: string;
}

/** A random edit. */
export const editArb: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(),
  length: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10 })),
  text: fc.oneof(fc.constant(''), insertTextArb),
});

/** Applies an edit; returns the new text and the edit with its real offset. */
export function applyEdit(text: string, edit: Edit): { text: string; offset: number; length: number } {
  const offset = edit.at % (text.length + 1);
  const length = Math.min(edit.length, text.length - offset);
  return { text: text.slice(0, offset) + edit.text + text.slice(offset + length), offset, length };
}

// ---- audit options ------------------------------------------------------------------------------

/** A live graph like a running corpus server reports: it also lists an attached remote tool. */
export const LIVE_GRAPH: Graph = {
  origin: 'live',
  toolsKnown: true,
  version: '0.1.0',
  nodes: [
    { name: 'agent', kind: 'model_node' },
    {
      name: 'TOOL',
      kind: 'tool_node',
      tools: [
        { name: 'get_time', description: 'Get the current time on the server.', source: 'local' },
        { name: 'get_user_location', description: 'Get the user location.', source: 'remote' },
      ],
    },
    { name: 'SEARCH', kind: 'tool_node', tools: [] },
    { name: 'format_answer', kind: 'function_node' },
  ],
};

/** An older server's graph: no node types, tools unknown. */
export const UNTYPED_GRAPH: Graph = {
  origin: 'live',
  toolsKnown: false,
  nodes: [
    { name: 'agent', kind: 'unknown' },
    { name: 'TOOL', kind: 'unknown' },
  ],
};

/** The options an audit may run with. */
export const auditOptionsArb: fc.Arbitrary<AuditOptions> = fc.constantFrom<AuditOptions>(
  {},
  { graph: CORPUS_GRAPH },
  { graph: LIVE_GRAPH },
  { graph: UNTYPED_GRAPH },
  { agentCandidates: ['graph:app', 'agent:main'] },
  { graph: CORPUS_GRAPH, agentCandidates: ['graph:app'] },
);
