// Builds the settings part of schemas/10xgraph.schema.json from the one table of the file's fields
// (runtime/src/rules/fields.ts): `npm run schema`. The hand-written parts (the root's words, the
// remote tool definitions, `agent`'s pattern) are kept as they stand in the file; every setting's
// words and type are written from the table. A value the server judges at start-up (stage
// `start`) is restricted exactly as the server reads it; a value read later yields warnings only,
// so the schema describes it and never rejects it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FILE_FIELDS, RBAC_FIELDS, type SettingSpec, type SettingStage } from '../runtime/src/rules/fields';
import { isPythonSpace } from '../runtime/src/rules/python';

/** A JSON Schema, as plain data. */
export type Schema = Record<string, unknown>;

export const SCHEMA_PATH = join(__dirname, '..', 'schemas', '10xgraph.schema.json');

const RULES_URL = 'https://github.com/10xgraph/10xgraph-tooling/blob/main/docs/rules.md';

/** The largest finite number: Python's `int()` refuses an infinite float, which JSON's `1e400` is. */
const FINITE = Number.MAX_VALUE;

/**
 * The values Python's truth test reads as false (`if not value`), which mean "not set": as
 * alternatives, the empty list and object by their size (ajv's `enum` compares objects with a
 * deep equality that breaks on a key such as "valueOf").
 */
const FALSY: readonly Schema[] = [{ enum: [null, false, 0, ''] }, { type: 'array', maxItems: 0 }, { type: 'object', maxProperties: 0 }];
/** A value that is empty to Python's truth test, as one schema (for conditions). */
const EMPTY: Schema = { anyOf: FALSY };

/** A regular expression character class of the UTF-16 code units `test` holds. */
function charClass(test: (unit: number) => boolean, negated = false): string {
  const hex = (unit: number) => '\\u' + unit.toString(16).padStart(4, '0');
  let out = '';
  for (let unit = 0; unit <= 0xffff; unit++) {
    if (!test(unit)) continue;
    let end = unit;
    while (end < 0xffff && test(end + 1)) end++;
    out += end === unit ? hex(unit) : end === unit + 1 ? hex(unit) + hex(end) : `${hex(unit)}-${hex(end)}`;
    unit = end;
  }
  return `[${negated ? '^' : ''}${out}]`;
}

/** White space as Python's `str.strip()` removes it. */
export const PYTHON_SPACE = charClass(isPythonSpace);
/** Any character that is not Python white space: a string holding one is not blank after `strip()`. */
export const NOT_PYTHON_SPACE = charClass(isPythonSpace, true);
const WS = `${PYTHON_SPACE}*`;

/** `word` in any case, without the `(?i)` flag JSON Schema lacks: `on` is `[Oo][Nn]`. */
function anyCase(word: string): string {
  return [...word].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))).join('');
}

/** The words the server's boolean settings take, in any case, with white space around (python.ts `pythonBool`). */
export const BOOL_PATTERN = `^${WS}(?:${['1', 'true', 'yes', 'on', '0', 'false', 'no', 'off'].map(anyCase).join('|')})${WS}$`;

/** A `module.path:attribute` import path, as python.ts `isImportPath` takes it. */
const IMPORT_BODY = '[A-Za-z_][\\p{L}\\p{N}_.]*:[A-Za-z_][\\p{L}\\p{N}_.]*\\n?';
export const IMPORT_PATTERN = `^${IMPORT_BODY}$`;

/** A base-10 integer string Python's `int()` reads as a value of at least `min` (any value when undefined). */
export function intStringPattern(min: number | undefined): string {
  const digits = '\\d+(?:_\\d+)*';
  let body: string;
  if (min === undefined) body = `[+-]?${digits}`;
  else if (min === 0) body = `(?:\\+?${digits}|-0+(?:_0+)*)`;
  else if (min === 1) body = `\\+?(?=[\\d_]*[1-9])${digits}`;
  else throw new Error(`scripts/schema.ts cannot say "an integer string of at least ${min}": teach intStringPattern`);
  return `^${WS}${body}${WS}$`;
}

/** An IP address or network, as python.ts `isIpNetwork` (Python's `ipaddress.ip_network(strict=False)`) takes it. */
function networkPattern(): string {
  const octet = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)';
  const v4 = `${octet}(?:\\.${octet}){3}`;
  // A mask is a netmask (ones then zeros) or a host mask (zeros then ones), in dotted form.
  const run = (values: number[]) => `(?:${values.join('|')})`;
  const net = run([0, 128, 192, 224, 240, 248, 252, 254, 255]);
  const host = run([0, 1, 3, 7, 15, 31, 63, 127, 255]);
  const masks = [
    `255\\.255\\.255\\.${net}`,
    `255\\.255\\.${net}\\.0`,
    `255\\.${net}\\.0\\.0`,
    `${net}\\.0\\.0\\.0`,
    `0\\.0\\.0\\.${host}`,
    `0\\.0\\.${host}\\.255`,
    `0\\.${host}\\.255\\.255`,
    `${host}\\.255\\.255\\.255`,
  ];
  const prefix4 = '0*(?:3[0-2]|[12]?\\d)';
  const prefix6 = '0*(?:12[0-8]|1[01]\\d|[1-9]?\\d)';
  const h16 = '[0-9A-Fa-f]{1,4}';
  const ls32 = `(?:${h16}:${h16}|${v4})`;
  const before = (n: number) => (n === 0 ? '' : n === 1 ? `(?:${h16})?` : `(?:(?:${h16}:){0,${n - 1}}${h16})?`);
  // RFC 3986's IPv6address: "::" stands for one or more groups of zeros.
  const v6 = [
    `(?:${h16}:){6}${ls32}`,
    `::(?:${h16}:){5}${ls32}`,
    `${before(1)}::(?:${h16}:){4}${ls32}`,
    `${before(2)}::(?:${h16}:){3}${ls32}`,
    `${before(3)}::(?:${h16}:){2}${ls32}`,
    `${before(4)}::${h16}:${ls32}`,
    `${before(5)}::${ls32}`,
    `${before(6)}::${h16}`,
    `${before(7)}::`,
  ];
  // A `%scope` after an IPv6 address: before a prefix anything but "%" and "/", else up to the end, stripped.
  const scoped = `(?:%[^%/]+/${prefix6}|%[^%/]*${charClass((u) => !isPythonSpace(u) && u !== 0x25 && u !== 0x2f)}|/${prefix6})?`;
  return `^${WS}(?:${v4}(?:/(?:${prefix4}|${masks.join('|')}))?|(?:${v6.join('|')})${scoped})${WS}$`;
}
export const NETWORK_PATTERN = networkPattern();

/** Words for people, from the help: Markdown with its marks removed. */
function plainText(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*/g, '')
    .replace(/`/g, '');
}

/** The help of a field, and links to the rules that judge it besides the settings rules. */
function markdownOf(spec: SettingSpec): string {
  if (!spec.rules?.length) return spec.help;
  return `${spec.help}\n\n${spec.rules.length > 1 ? 'Rules' : 'Rule'}: ${spec.rules.map((code) => `[\`${code}\`](${RULES_URL}#${code})`).join(', ')}.`;
}

/** The words every property carries: its label, its help, its default, its values (as examples, unless an `enum` lists them). */
function annotationsOf(spec: SettingSpec, stage: SettingStage): Schema {
  const out: Schema = { title: spec.label, description: plainText(spec.help), markdownDescription: markdownOf(spec) };
  if (spec.default !== undefined) out.default = spec.default;
  if (spec.values && !(stage === 'start' && spec.type === 'enum' && !spec.lowercase)) out.examples = [...spec.values];
  if (spec.snippet) out.defaultSnippets = [{ label: spec.label, description: plainText(spec.help.split(/(?<=\.) /)[0]), bodyText: spec.snippet }];
  return out;
}

/** What a value must be for a message: the sentence shown by editors on a value the server refuses. */
function refusal(name: string, what: string): string {
  return `"${name}" must be ${what}: the server refuses any other value and does not start.`;
}

/** One alternative of the values a setting takes, with the message an editor shows when none fits (also for a pattern). */
function alternative(schema: Schema, message: string): Schema {
  return { ...schema, errorMessage: message };
}

/** The values the server takes for `spec`, as alternatives (anyOf), by the setting type (see fields.ts). */
function alternativesOf(spec: SettingSpec, name: string): { alternatives: Schema[]; what: string } {
  const int = (min: number | undefined): Schema[] => {
    const bools = [true, false].filter((b) => min === undefined || Number(b) >= min);
    const number: Schema = { type: 'number', ...(min === undefined ? { minimum: -FINITE } : min >= 1 ? { minimum: min } : { exclusiveMinimum: min - 1 }), maximum: FINITE };
    return [number, ...(bools.length ? [bools.length === 1 ? { const: bools[0] } : { type: 'boolean' }] : []), { type: 'string', pattern: intStringPattern(min) }];
  };
  const bounds =
    spec.min !== undefined && spec.max !== undefined
      ? `, from ${spec.min} to ${spec.max}`
      : spec.min !== undefined
        ? `, at least ${spec.min}`
        : spec.max !== undefined
          ? `, at most ${spec.max}`
          : '';
  switch (spec.type) {
    case 'section':
      return { alternatives: [{ type: 'object' }], what: 'an object' };
    case 'bool':
      return { alternatives: [{ type: 'boolean' }, { type: 'string', pattern: BOOL_PATTERN }], what: 'true, false, or one of "1", "true", "yes", "on", "0", "false", "no", "off"' };
    case 'strict-bool':
      return { alternatives: [{ type: 'boolean' }], what: 'true or false' };
    case 'truthy':
    case 'any':
      return { alternatives: [], what: '' };
    case 'int':
      if (spec.max !== undefined) throw new Error(`scripts/schema.ts cannot bound "${name}" from above: teach alternativesOf`);
      return { alternatives: int(spec.min), what: `an integer (or a string of one)${bounds}` };
    case 'limit':
      if (spec.max !== undefined) throw new Error(`scripts/schema.ts cannot bound "${name}" from above: teach alternativesOf`);
      return { alternatives: [...FALSY, ...int(spec.min)], what: `an integer (or a string of one)${bounds}, or 0 or null for no limit` };
    case 'strict-int':
      // JSON Schema's `integer` also takes 5.0, which Python reads as a float: close, not exact.
      return {
        alternatives: [{ type: 'integer', ...(spec.min !== undefined ? { minimum: spec.min } : {}), ...(spec.max !== undefined ? { maximum: spec.max } : {}) }],
        what: `a whole number${bounds}`,
      };
    case 'number':
      return {
        alternatives: [{ type: 'number', ...(spec.min !== undefined ? { minimum: spec.min } : {}), ...(spec.max !== undefined ? { maximum: spec.max } : {}) }],
        what: `a number${bounds}`,
      };
    case 'string':
      return { alternatives: [{ type: 'string' }], what: 'a string' };
    case 'string-list':
      // The server refuses the list as a whole: an item that is not a string makes the list wrong.
      return { alternatives: [{ type: 'array', not: { type: 'array', contains: { not: { type: 'string' } } } }], what: 'a list of strings' };
    case 'list':
      return { alternatives: [{ type: 'array' }], what: 'a list' };
    case 'enum': {
      const values = spec.values ?? [];
      const list = values.map((v) => `"${v}"`).join(', ');
      if (spec.lowercase) return { alternatives: [{ type: 'string', pattern: `^(?:${values.map(anyCase).join('|')})$` }], what: `one of ${list}, in any case` };
      return { alternatives: [{ enum: [...values] }], what: `one of ${list}` };
    }
    case 'import-path':
      return { alternatives: [{ type: 'string', pattern: IMPORT_PATTERN }], what: 'an import path "module.path:attribute"' };
    case 'networks':
      return { alternatives: [{ type: 'array', items: { type: 'string', pattern: NETWORK_PATTERN } }], what: 'a list of IP addresses or networks, e.g. "10.0.0.0/8"' };
    case 'redis':
      return { alternatives: orUnset([{ type: ['string', 'object'] }], FALSY), what: 'a Redis URL string or an object {"url", "prefix"}' };
    case 'auth':
    case 'authorization':
      throw new Error(`"${name}" has a form of its own`);
  }
}

/** Whether an alternative surely takes all that `unset` takes: it names only a type of it, or lists all its values. */
function covers(alternative: Schema, unset: Schema): boolean {
  if (Array.isArray(unset.enum)) {
    const listed = (alternative.enum ?? []) as unknown[];
    return unset.enum.every((value) => listed.includes(value) || (Object.keys(alternative).length === 1 && typesOf(alternative).includes(value === null ? 'null' : typeof value)));
  }
  return Object.keys(alternative).length === 1 && typesOf(alternative).includes(unset.type as string);
}

function typesOf(alternative: Schema): unknown[] {
  return alternative.type === undefined ? [] : ([] as unknown[]).concat(alternative.type);
}

/** The alternatives with the unset values of `spec` added (`null` when nullable, every empty value when empty means unset). */
function withUnset(spec: SettingSpec, alternatives: Schema[]): Schema[] {
  return orUnset(alternatives, spec.emptyIsUnset ? FALSY : spec.nullable ? [{ type: 'null' }] : []);
}

/** The alternatives with those of `unset` that they do not already cover. */
function orUnset(alternatives: Schema[], unset: readonly Schema[]): Schema[] {
  return [...alternatives, ...unset.filter((u) => !alternatives.some((a) => covers(a, u)))];
}

/** `alternatives` as keywords: one is merged in, more are an `anyOf`. */
function keywordsOf(alternatives: Schema[], message: string): Schema {
  if (alternatives.length === 0) return {};
  if (alternatives.length === 1) return alternative(alternatives[0], message);
  return { anyOf: alternatives.map((a) => alternative(a, message)) };
}

/**
 * The keywords that say which values of field `name` the server takes when it judges it at
 * start-up, by its type (fields.ts), `null` or empty values included when they mean "not set".
 * `auth` and `authorization` have forms of their own (`buildSchema` writes them).
 */
export function valueSchema(spec: SettingSpec, name: string): Schema {
  const { alternatives, what } = alternativesOf(spec, name);
  const unset = spec.emptyIsUnset ? ', or empty' : spec.nullable ? ', or null' : '';
  return keywordsOf(withUnset(spec, alternatives), refusal(name, what + unset));
}

/** The schema of one field at `path`, judged at `stage`. */
function fieldSchema(spec: SettingSpec, path: string[], parentStage: SettingStage | undefined): Schema {
  const stage: SettingStage = parentStage === 'later' ? 'later' : spec.stage;
  const name = path.join('.');
  const out = annotationsOf(spec, stage);
  if (spec.type === 'auth') return { ...out, ...authSchema(spec, name) };
  if (spec.type === 'authorization') return { ...out, ...authorizationSchema(spec, name) };
  if (stage === 'start') Object.assign(out, valueSchema(spec, name));
  // The fields of an object value are judged whatever the object's own verdict: outside the anyOf.
  if (spec.fields) out.properties = fieldsSchema(spec.fields, path, stage);
  return out;
}

function fieldsSchema(fields: Readonly<Record<string, SettingSpec>>, path: string[], stage: SettingStage | undefined): Schema {
  return Object.fromEntries(Object.entries(fields).map(([key, spec]) => [key, fieldSchema(spec, [...path, key], stage)]));
}

/** `auth`: empty for none, a string holding "jwt", or `{"method": "custom", "path": "module:attribute"}` (the rule auth-invalid). */
function authSchema(spec: SettingSpec, name: string): Schema {
  const message = refusal(name, 'a string holding "jwt", an object {"method": "custom", "path": "module:attribute"}, or empty');
  const both = refusal(name, 'an object with both "method" and "path"');
  return {
    anyOf: orUnset([{ type: 'string', pattern: 'jwt' }, { type: 'object' }], FALSY).map((a) => alternative(a, message)),
    properties: fieldsSchema(spec.fields!, [name], 'start'),
    // A non-empty object needs both fields, not empty; only then is the method judged.
    if: { type: 'object', minProperties: 1 },
    then: {
      required: ['method', 'path'],
      not: {
        anyOf: [
          { required: ['method'], properties: { method: EMPTY } },
          { required: ['path'], properties: { path: EMPTY } },
        ],
      },
      errorMessage: both,
      if: { required: ['method', 'path'], properties: { method: { not: EMPTY }, path: { not: EMPTY } } },
      then: { properties: { method: { const: 'custom', errorMessage: refusal(`${name}.method`, '"custom" (for JWT write "auth": "jwt")') } } },
    },
  };
}

/** `authorization`: empty, a built-in backend name, a `module:attribute` backend, or an RBAC object (the rule setting-unknown-value). */
function authorizationSchema(spec: SettingSpec, name: string): Schema {
  const builtins = `${WS}(?:${(spec.values ?? []).map(anyCase).join('|')})${WS}`;
  const rbac = RBAC_FIELDS.backend.values!;
  const message = refusal(name, `one of ${(spec.values ?? []).map((v) => `"${v}"`).join(', ')}, a "module:attribute" path, or an RBAC object {"backend": "rbac", "roles": {…}}`);
  const backendName = (key: string) => ({
    anyOf: [...FALSY, { type: 'string', pattern: `^(?:${rbac.map(anyCase).join('|')})$` }].map((a) =>
      alternative(a, refusal(`${name}.${key}`, `one of ${rbac.map((v) => `"${v}"`).join(', ')}`)),
    ),
  });
  const properties = fieldsSchema(RBAC_FIELDS, [name], 'start');
  const named = (key: string) => ({ required: [key], not: { properties: { [key]: EMPTY } } });
  return {
    anyOf: orUnset([{ type: 'string', pattern: `^(?:${IMPORT_BODY}|${builtins})$` }, { type: 'object' }], FALSY).map((a) => alternative(a, message)),
    properties: { ...properties, backend: { ...(properties.backend as Schema), ...backendName('backend') } },
    // A non-empty object names its backend by "backend", or by "type" when "backend" is empty.
    if: { type: 'object', minProperties: 1 },
    then: {
      anyOf: [named('backend'), named('type')],
      errorMessage: refusal(name, 'an object naming its backend: "backend": "rbac"'),
      if: named('backend'),
      else: { properties: { type: backendName('type') } },
    },
  };
}

/** The properties of the root: the table's fields in its order, `agent` and `remote_tools` keeping their own keywords. */
function rootProperties(existing: Schema): Schema {
  const before = (existing.properties ?? {}) as Record<string, Schema>;
  return Object.fromEntries(
    Object.entries(FILE_FIELDS).map(([key, spec]) => {
      const generated = fieldSchema(spec, [key], undefined);
      // `agent` and `remote_tools` have rules of their own, which the hand-written keywords say.
      if (spec.type === 'any' && before[key])
        return [key, { ...generated, ...before[key], title: generated.title, description: generated.description, markdownDescription: generated.markdownDescription }];
      return [key, generated];
    }),
  );
}

/** The schema with its settings written from the table; everything else is kept from `existing`. */
export function buildSchema(existing: Schema): Schema {
  return { ...existing, properties: rootProperties(existing) };
}

/** The text of the schema file for `schema`: 2-space JSON and a trailing line break. */
export function formatSchema(schema: Schema): string {
  return JSON.stringify(schema, null, 2) + '\n';
}

if (require.main === module) {
  const existing = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as Schema;
  writeFileSync(SCHEMA_PATH, formatSchema(buildSchema(existing)));
  console.log(`schema: wrote ${SCHEMA_PATH}`);
}
