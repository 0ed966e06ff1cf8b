// invalid-property-schema: each parameter's schema is valid JSON Schema (ajv); the warning
// covers the offending keyword's value, one per fault.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import Ajv from 'ajv';
import { auditConfig } from '../../runtime/src/rules';
import { isPlainValidSchema } from '../../runtime/src/rules/rules/invalid-property-schema';
import { config, expectNone, expectProblems, textAt, tool, unmark } from './helpers';

const CODE = 'invalid-property-schema';
const withProperties = (properties: string) => config(tool({ parameters: `{"type": "object", "properties": ${properties}}` }));

describe('invalid-property-schema', () => {
  test('an unknown type is a warning on the type value, naming the parameter, the tool and the keyword', () => {
    expectProblems(withProperties('{"count": {"type": ⟦"int"⟧}}'), CODE, { only: true, messages: ["'count'", "tool 'read_clipboard'", '"type"', '"integer"'] });
  });

  test('a keyword with a value of the wrong kind is a warning on that value', () => {
    expectProblems(withProperties('{"q": {"type": "string", "minLength": ⟦-1⟧}}'), CODE, { only: true, messages: ['"minLength"'] });
    expectProblems(withProperties('{"q": {"type": "string", "enum": ⟦[]⟧}}'), CODE, { only: true, messages: ['"enum"'] });
    expectProblems(withProperties('{"q": {"required": ⟦"x"⟧}}'), CODE, { only: true, messages: ['"required"'] });
  });

  test('a schema that is not an object or a boolean covers the whole schema', () => {
    expectProblems(withProperties('{"a": ⟦5⟧, "b": ⟦"string"⟧, "c": ⟦null⟧, "d": ⟦[]⟧}'), CODE, { only: true });
  });

  test('nested schemas are checked, and the warning points into them', () => {
    expectProblems(withProperties('{"filter": {"type": "object", "properties": {"inner": {"type": ⟦"int"⟧}}}}'), CODE, { only: true });
  });

  test('keys that need escaping in a JSON pointer are followed correctly', () => {
    expectProblems(withProperties('{"q": {"properties": {"a~b/c": {"type": ⟦"int"⟧}}}}'), CODE, { only: true });
  });

  test('a schema that does not compile (a bad pattern, an unresolved $ref) is reported within the schema', () => {
    for (const [schema, inner] of [
      ['{"type": "string", "pattern": "("}', '"("'],
      ['{"$ref": "#/definitions/nope"}', '"#/definitions/nope"'],
    ] as const) {
      const { text } = unmark(withProperties(`{"q": ${schema}}`));
      const problems = auditConfig(text).filter((p) => p.code === CODE);
      assert.equal(problems.length, 1, text);
      const at = text.indexOf(inner);
      assert.ok(problems[0].offset <= at && at + inner.length <= problems[0].offset + problems[0].length, `${textAt(text, problems[0])} does not contain ${inner}`);
    }
  });

  test('the same invalid schema in two tools is reported in each (the cache keys by content, not by place)', () => {
    const marked = config(
      tool({ parameters: '{"type": "object", "properties": {"x": {"type": ⟦"int"⟧}}}' }),
      tool({ name: '"other"', parameters: '{"type": "object", "properties": {"x": {"type": ⟦"int"⟧}}}' }),
    );
    const { problems } = expectProblems(marked, CODE, { only: true });
    assert.match(problems[0].message, /read_clipboard/);
    assert.match(problems[1].message, /other/);
  });

  test('valid schemas are fine: types, lists of types, enums, arrays, booleans, unknown keywords', () => {
    expectNone(
      withProperties(
        '{"a": {"type": "string", "description": "x"}, "b": {"type": ["string", "null"]}, "c": {"enum": ["x", 1]}, "d": {"type": "array", "items": {"type": "number"}}, "e": true, "f": {}, "g": {"x-ui": {"widget": "slider"}}, "h": {"type": "string", "format": "email"}}',
      ),
      CODE,
    );
  });

  test('a repeated keyword in a schema is judged by its last value', () => {
    expectNone(withProperties('{"q": {"type": "int", "type": "string"}}'), CODE);
    expectProblems(withProperties('{"q": {"type": "string", "type": ⟦"int"⟧}}'), CODE);
  });

  test('a repeated parameter in properties is judged by its last schema only', () => {
    expectProblems(withProperties('{"q": {"type": "string"}, "q": {"type": ⟦"int"⟧}}'), CODE);
    expectNone(withProperties('{"q": {"type": "int"}, "q": {"type": "string"}}'), CODE);
  });

  test('properties that is not an object, or parameters that is not an object, is not looked into', () => {
    expectNone(config(tool({ parameters: '{"type": "object", "properties": [{"type": "int"}]}' })), CODE);
    expectNone(config(tool({ parameters: '[{"properties": {"q": {"type": "int"}}}]' })), CODE);
  });

  test('one fault in a list of types is one warning, on the bad item', () => {
    expectProblems(withProperties('{"q": {"type": ["string", ⟦"int"⟧]}}'), CODE, { only: true });
  });

  test('one fault in a nested "items" schema is one warning, on the bad value', () => {
    expectProblems(withProperties('{"q": {"type": "array", "items": {"type": ⟦"int"⟧}}}'), CODE, { only: true });
  });

  test('a schema that names another JSON Schema draft in "$schema" is judged, never an internal error', () => {
    for (const draft of ['https://json-schema.org/draft/2020-12/schema', 'http://json-schema.org/draft-04/schema#']) {
      const { text } = unmark(withProperties(`{"a": {"$schema": "${draft}", "type": "string"}, "b": {"type": "int"}}`));
      const codes = auditConfig(text).map((p) => p.code);
      assert.ok(!codes.includes('internal-error'), `internal-error for $schema ${draft}: ${codes.join(', ')}`);
      assert.ok(codes.includes(CODE), 'the other parameters of the tool are still checked');
    }
  });

  test("a schema nested 900 levels deep (within the parser's limit) is judged, never an internal error", () => {
    let deep = '{"type": "string"}';
    for (let i = 0; i < 900; i++) deep = `{"type": "array", "items": ${deep}}`;
    const { text } = unmark(withProperties(`{"q": ${deep}}`));
    const codes = auditConfig(text).map((p) => p.code);
    assert.ok(!codes.includes('internal-error'), codes.join(', '));
  });
});

describe('invalid-property-schema: each schema is judged on its own', () => {
  const withTools = (...schemas: string[]) =>
    config(...schemas.map((schema, i) => tool({ name: `"tool_${i}"`, parameters: `{"type": "object", "properties": {"q": ${schema}}}` })));

  test('two tools whose schemas share an $id are both valid', () => {
    expectNone(withTools('{"$id": "https://example.com/q", "type": "string"}', '{"$id": "https://example.com/q", "type": "number"}'), CODE);
    // Nested $ids, and a $ref to an $id of the same schema, as well.
    const nested = '{"type": "object", "properties": {"a": {"$id": "#a", "type": "string"}, "b": {"$ref": "#a"}}}';
    expectNone(withTools(nested, nested.replace('"type": "string"', '"type": "integer"')), CODE);
  });

  test('the verdicts do not depend on what was checked before (the same in any order)', () => {
    const texts = [
      '{"$id": "https://example.com/s", "type": "string"}',
      '{"$id": "https://example.com/s", "type": "int"}',
      '{"$id": "https://example.com/s", "$ref": "#/definitions/a", "definitions": {"a": {"type": "string"}}}',
      '{"$ref": "https://example.com/s"}',
      '{"$id": "https://example.com/t", "$ref": "https://example.com/s"}',
      '{"type": "string", "pattern": "("}',
    ].map((schema) => unmark(withTools(schema)).text);
    const verdict = (text: string) =>
      JSON.stringify(
        auditConfig(text)
          .filter((p) => p.code === CODE)
          .map((p) => [p.offset, p.length, p.message]),
      );
    // Each text once in turn, then again in reverse and shuffled orders; the spaces added keep
    // each pass from reusing the previous pass's cached verdicts.
    const first = texts.map((text) => verdict(text));
    for (const [pass, order] of [
      [1, [5, 4, 3, 2, 1, 0]],
      [2, [3, 0, 5, 1, 4, 2]],
    ] as const) {
      for (const i of order) assert.equal(verdict(texts[i].replace(/"q": /, `"q": ${' '.repeat(pass)}`)).replace(/\[\d+,/g, '['), first[i].replace(/\[\d+,/g, '['), texts[i]);
    }
    // A $ref to an $id that only another tool declared does not resolve: each stands alone.
    assert.match(first[3], /can't resolve reference https:\/\/example\.com\/s/);
  });
});

describe('schemas judged without ajv agree with ajv', () => {
  const ajvSays = (schema: unknown): boolean => {
    const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true, logger: false });
    if (!ajv.validateSchema(schema as object)) return false;
    try {
      ajv.compile(schema as object);
      return true;
    } catch {
      return false;
    }
  };
  const value = fc.oneof(
    fc.string(),
    fc.integer({ min: -3, max: 3 }),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('string', 'int', 'number', 'integer', 'object', 'array', 'null'),
  );
  const keyword = fc.constantFrom(
    'type',
    'title',
    'description',
    'default',
    'examples',
    'enum',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'minLength',
    'maxLength',
    'minItems',
    'uniqueItems',
    'required',
    'items',
    'additionalProperties',
    'properties',
    'pattern',
    '$id',
    'format',
  );
  const schema = fc.letrec((tie) => ({
    schema: fc.oneof({ depthSize: 'small' }, fc.boolean(), fc.dictionary(keyword, tie('keywordValue'), { maxKeys: 4 })),
    keywordValue: fc.oneof(
      { depthSize: 'small' },
      value,
      fc.array(value, { maxLength: 3 }),
      tie('schema'),
      fc.dictionary(fc.string({ maxLength: 3 }), tie('schema'), { maxKeys: 2 }),
    ),
  })).schema;

  test('every schema the quick check accepts, ajv accepts', () => {
    let accepted = 0;
    fc.assert(
      fc.property(schema, (s) => {
        if (!isPlainValidSchema(s, 0)) return true;
        accepted++;
        return ajvSays(s);
      }),
      { numRuns: 3000 },
    );
    assert.ok(accepted > 300, `only ${accepted} generated schemas took the quick path`);
  });

  test('the schemas of the quick start take the quick path; others go to ajv', () => {
    assert.equal(isPlainValidSchema({ type: 'number', description: 'Maximum time to wait in milliseconds.' }, 0), true);
    assert.equal(isPlainValidSchema({ type: ['string', 'null'], enum: ['a', null], items: { type: 'string' } }, 0), true);
    for (const other of [
      { type: 'int' },
      { type: [] },
      { type: ['string', 'string'] },
      { enum: [] },
      { enum: [1, 1] },
      { enum: [{}] },
      { minLength: -1 },
      { minLength: 1.5 },
      { required: ['a', 'a'] },
      { pattern: 'a' },
      { $id: 'x' },
      { items: [] },
      { 'x-ui': 1 },
    ]) {
      assert.equal(isPlainValidSchema(other, 0), false, JSON.stringify(other));
    }
  });
});
