// schemas/10xgraph.schema.json is built from the one table of the file's fields
// (runtime/src/rules/fields.ts) by scripts/schema.ts: the committed file is what the generator
// writes, every field of the table has its words there, and the value schemas the generator
// writes read values as the rule set (python.ts, settings.ts) reads them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import fc from 'fast-check';
import { auditConfig } from '../../runtime/src/rules/index';
import { FILE_FIELDS, RBAC_FIELDS, type SettingSpec, type SettingType } from '../../runtime/src/rules/fields';
import { isImportPath, isIpNetwork, pythonBool, pythonInt, pythonStrip } from '../../runtime/src/rules/python';
import { badNetworks, judgeImportPath, judgeRange, judgeType, judgeValue } from '../../runtime/src/rules/settings';
import { parseTree } from '../../runtime/src/rules/tree';
import {
  BOOL_PATTERN,
  IMPORT_PATTERN,
  NETWORK_PATTERN,
  NOT_PYTHON_SPACE,
  SCHEMA_PATH,
  buildSchema,
  formatSchema,
  intStringPattern,
  valueSchema,
  type Schema,
} from '../../scripts/schema';

const text = readFileSync(SCHEMA_PATH, 'utf8');
const schema = JSON.parse(text) as Schema;
const ajv = new Ajv({ strict: false, allErrors: true });

/** Every field of the table with its path and the schema property at that path. */
function tableFields(): Array<{ path: string[]; spec: SettingSpec; stage: SettingSpec['stage']; property: Schema | undefined }> {
  const out: ReturnType<typeof tableFields> = [];
  const walk = (fields: Readonly<Record<string, SettingSpec>>, path: string[], properties: Schema | undefined, parentStage: SettingSpec['stage'] | undefined) => {
    for (const [key, spec] of Object.entries(fields)) {
      const property = properties?.[key] as Schema | undefined;
      const stage = parentStage === 'later' ? 'later' : spec.stage;
      out.push({ path: [...path, key], spec, stage, property });
      if (spec.fields) walk(spec.fields, [...path, key], property?.properties as Schema | undefined, stage);
    }
  };
  walk(FILE_FIELDS, [], schema.properties as Schema, undefined);
  return out;
}

/** The keywords that make a schema reject a value (the rest are words for people and editors). */
const RESTRICTING = [
  'type',
  'enum',
  'const',
  'pattern',
  'anyOf',
  'allOf',
  'oneOf',
  'not',
  'if',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'items',
  'required',
  'additionalProperties',
  'dependencies',
];

/** Whether `pattern` (as JSON Schema reads it, with the u flag) matches `value`. */
function matches(pattern: string, value: string): boolean {
  return new RegExp(pattern, 'u').test(value);
}

/** Strings over a small alphabet that reaches the edges of a reading. */
function stringsOf(alphabet: string[], maxLength = 8): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...alphabet), maxLength });
}

const SPACES = [' ', '\t', '\n', '\u00a0', '\u2028', '\u001c', '\u0085', '\ufeff', '\u200b', '\u3000'];

describe('scripts/schema.ts', () => {
  test('the committed schema is what it generates', () => {
    assert.equal(text, formatSchema(buildSchema(schema)), 'schemas/10xgraph.schema.json is out of date: run npm run schema');
  });

  test('generates the same schema again from its own output', () => {
    const once = buildSchema(schema);
    assert.equal(formatSchema(buildSchema(JSON.parse(formatSchema(once)) as Schema)), formatSchema(once));
  });

  test('every field of the table has a property with its label, help, default and values, in the order of the table', () => {
    assert.deepEqual(Object.keys(schema.properties as Schema), Object.keys(FILE_FIELDS));
    for (const { path, spec, property } of tableFields()) {
      const name = path.join('.');
      assert.ok(property, `no schema property for ${name}`);
      assert.equal(property.title, spec.label, name);
      assert.equal(typeof property.description, 'string', name);
      assert.ok((property.markdownDescription as string).startsWith(spec.help), `${name}: the markdownDescription is not its help`);
      for (const code of spec.rules ?? []) assert.match(property.markdownDescription as string, new RegExp(`rules\\.md#${code}\\)`), `${name} links ${code}`);
      if (spec.default !== undefined) assert.deepEqual(property.default, spec.default, name);
      if (spec.values) assert.deepEqual(property.enum ?? property.examples, [...spec.values], `${name} offers its values`);
    }
    const authorization = (schema.properties as Record<string, Schema>).authorization.properties as Record<string, Schema>;
    for (const [key, spec] of Object.entries(RBAC_FIELDS)) assert.equal(authorization[key].title, spec.label, `authorization.${key}`);
  });

  test('a field read after start-up restricts nothing, and no object of settings refuses unknown keys', () => {
    for (const { path, stage, property } of tableFields()) {
      assert.notEqual(property!.additionalProperties, false, path.join('.'));
      if (stage !== 'later') continue;
      const restricting = RESTRICTING.filter((k) => property![k] !== undefined);
      assert.deepEqual(restricting, [], `${path.join('.')} is read later (warnings only) but restricts its value`);
    }
  });

  test('the snippets of the settings give files the rule set finds no error in, and the schema accepts', () => {
    const validate = ajv.compile(schema);
    for (const { path, spec } of tableFields()) {
      if (!spec.snippet) continue;
      // A snippet's placeholders and choices stand for their first value.
      const value = spec.snippet.replace(/\$\{\d+:([^}]*)\}/g, '$1').replace(/\$\{\d+\|([^,|]*)[^}]*\}/g, '$1');
      const file = `{"agent": "graph:app", "${path.join('.')}": ${value}}`;
      // Warnings may stand: the memory backend's per-process counting is one the server logs too.
      const problems = auditConfig(file).filter((p) => p.severity === 'error');
      assert.deepEqual(
        problems.map((p) => `${p.code}: ${p.message}`),
        [],
        file,
      );
      assert.equal(validate(JSON.parse(file)), true, `${file}: ${JSON.stringify(validate.errors)}`);
    }
  });
});

describe('its patterns read strings as the server does (python.ts)', () => {
  test('the boolean words', () => {
    const words = stringsOf(['t', 'R', 'u', 'E', 'y', 'e', 's', 'O', 'n', 'f', 'a', 'l', '0', '1', ...SPACES], 7);
    const known = fc.constantFrom('1', ' TRUE ', 'yes', 'On', '0', 'False\n', 'NO', 'off', 'of', 'true1', '\ufefftrue', '\u0085on\u001c');
    fc.assert(
      fc.property(fc.oneof(words, known), (value) => assert.equal(matches(BOOL_PATTERN, value), pythonBool(value) !== undefined, JSON.stringify(value))),
      { numRuns: 3000 },
    );
  });

  test('integer strings, with and without a lower bound', () => {
    const digits = stringsOf(['0', '1', '9', '_', '+', '-', '.', ...SPACES.slice(0, 5)], 7);
    for (const min of [undefined, 0, 1]) {
      fc.assert(
        fc.property(digits, (value) => {
          const n = pythonInt(value);
          assert.equal(matches(intStringPattern(min), value), n !== undefined && (min === undefined || n >= min), `${JSON.stringify(value)} (min ${min})`);
        }),
        { numRuns: 2000 },
      );
    }
  });

  test('import paths', () => {
    const paths = stringsOf(['a', 'Z', '_', '.', ':', '1', 'é', '٣', ' ', '\n', '-', '/'], 8);
    fc.assert(
      fc.property(paths, (value) => assert.equal(matches(IMPORT_PATTERN, value), isImportPath(value), JSON.stringify(value))),
      { numRuns: 3000 },
    );
  });

  test('blank after trimming', () => {
    fc.assert(
      fc.property(stringsOf([...SPACES, 'a', '\ud800'], 4), (value) => assert.equal(matches(NOT_PYTHON_SPACE, value), pythonStrip(value) !== '', JSON.stringify(value))),
      { numRuns: 2000 },
    );
  });

  test('IP addresses and networks', () => {
    const octet = fc.constantFrom('0', '1', '10', '127', '192', '255', '256', '01', '000');
    const v4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
    const group = fc.constantFrom('0', '1', 'ffff', 'FE80', 'abcd', '12345', 'g', '');
    const v6 = fc.array(group, { minLength: 1, maxLength: 9 }).map((g) => g.join(':'));
    const mixed = fc.tuple(v6, v4).map(([a, b]) => `${a}:${b}`);
    const prefix = fc.constantFrom('', '/0', '/8', '/32', '/33', '/64', '/128', '/129', '/0032', '/255.255.0.0', '/0.0.0.255', '/255.0.255.0', '/x', '//8');
    const scope = fc.constantFrom('', '%eth0', '%', '% ', '%a b', '%1%2');
    const space = fc.constantFrom('', ' ', '\t', '\u00a0', '\ufeff');
    const network = fc.tuple(space, fc.oneof(v4, v6, mixed), scope, prefix, space).map((parts) => parts.join(''));
    const noise = stringsOf(['1', 'f', ':', '.', '/', '%', ' ', '2', '5'], 12);
    fc.assert(
      fc.property(fc.oneof(network, noise), (value) => assert.equal(matches(NETWORK_PATTERN, value), isIpNetwork(value), JSON.stringify(value))),
      { numRuns: 5000 },
    );
  });
});

describe('its value schemas take what the settings rules take', () => {
  // Every type the table may give a field judged at start-up, with the options that change it.
  const specs: Array<Omit<SettingSpec, 'label' | 'help' | 'stage'> & { type: SettingType }> = [
    { type: 'section' },
    { type: 'section', nullable: true },
    { type: 'section', nullable: true, emptyIsUnset: true },
    { type: 'bool' },
    { type: 'strict-bool' },
    { type: 'int' },
    { type: 'int', min: 0 },
    { type: 'int', min: 1 },
    { type: 'limit', min: 0 },
    { type: 'limit', min: 1 },
    { type: 'strict-int', min: 0, max: 100, nullable: true },
    { type: 'number', min: 0, max: 1, nullable: true },
    { type: 'string' },
    { type: 'string', nullable: true, emptyIsUnset: true },
    { type: 'string-list', nullable: true },
    { type: 'list' },
    { type: 'enum', values: ['ip', 'user', 'global'] },
    { type: 'enum', values: ['spans', 'standard', 'full'], lowercase: true },
    { type: 'import-path' },
    { type: 'import-path', nullable: true, emptyIsUnset: true },
    { type: 'networks' },
    { type: 'redis' },
  ];
  const values = fc.oneof(
    fc.constantFrom<unknown>(true, false, null, 0, -0, 1, -1, 2, 0.5, -0.5, 1.5, 100, 101, 1e300, '', ' ', '1', ' yes ', 'OFF', '+1_0', '-0', '1__0', 'ip', 'IP', 'Full'),
    fc.constantFrom<unknown>('a:b', 'a:b ', 'a.b:c\n', '10.0.0.0/8', [], {}, ['a'], ['a', 1], [null], ['::1', '1.2.3.4/24'], ['x'], { a: 1 }, { valueOf: '' }),
    fc.jsonValue({ maxDepth: 2 }),
  );
  for (const options of specs) {
    const spec: SettingSpec = { ...options, label: 'x', help: 'x', stage: 'start' };
    test(JSON.stringify(options), () => {
      const validate = ajv.compile(valueSchema(spec, 'x'));
      fc.assert(
        fc.property(values, (value) => {
          const parsed = parseTree(JSON.stringify({ x: value }));
          assert.ok(parsed.ok);
          const tree = parsed.tree;
          const property = tree.first[tree.root];
          const place = { spec, path: ['x'], property, value: tree.valueOfProperty(property) };
          const refused =
            Boolean(judgeType(place, tree) ?? judgeRange(place, tree) ?? judgeValue(place, tree) ?? judgeImportPath(place, tree)) || badNetworks(place, tree).length > 0;
          assert.equal(validate(value), !refused, JSON.stringify(value));
        }),
        { numRuns: 500 },
      );
    });
  }
});
