/**
 * The rule set fuzzed: random JSON values in every position of a valid config, character-level
 * mutations of the fixture corpus, random layouts and sequences of edits. Each text is held to
 * `assertRuleInvariants` (support/invariants.ts). CI runs a fixed seed and bounded counts;
 * `npm run fuzz` runs the same properties long with a random seed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { auditConfig } from '../../runtime/src/rules/index';
import {
  applyEdit,
  auditOptionsArb,
  configModelArb,
  configTextArb,
  editArb,
  jsonValueArb,
  layoutArb,
  modelMutationArb,
  mutatedTextArb,
  mutateModel,
  obj,
  seedTextArb,
  serialize,
  validConfigArb,
} from './support/arbitraries';
import { checkProperty } from './support/fuzz';
import { assertRuleInvariants, strictParse } from './support/invariants';
import { CORPUS_GRAPH } from '../support/corpus';

test('a valid config in any layout has no error and round-trips to JSON.parse', () =>
  checkProperty(
    'valid configs',
    fc.property(validConfigArb, layoutArb, (model, layout) => {
      const text = serialize(model, layout);
      const errors = auditConfig(text, { graph: CORPUS_GRAPH }).filter((p) => p.severity === 'error');
      assert.deepEqual(errors, [], 'a generated valid config has errors');
      assertRuleInvariants(text, { graph: CORPUS_GRAPH });
    }),
    1500,
  ));

test('a random JSON value in any position of a valid config', () =>
  checkProperty(
    'random value in a position',
    fc.property(validConfigArb, modelMutationArb, layoutArb, auditOptionsArb, (model, mutation, layout, options) => {
      assertRuleInvariants(serialize(mutateModel(model, mutation), layout), options);
    }),
    8000,
  ));

test('several random changes of a config, with repeated keys', () =>
  checkProperty(
    'several changes',
    fc.property(configModelArb, layoutArb, auditOptionsArb, (model, layout, options) => {
      assertRuleInvariants(serialize(model, layout), options);
    }),
    8000,
  ));

test('any JSON value as the whole file', () =>
  checkProperty(
    'any root',
    fc.property(jsonValueArb, layoutArb, auditOptionsArb, (value, layout, options) => {
      assertRuleInvariants(serialize(value, layout), options);
    }),
    4000,
  ));

test('a tool list of random JSON values', () =>
  checkProperty(
    'random tools',
    fc.property(fc.array(jsonValueArb, { maxLength: 4 }), layoutArb, auditOptionsArb, (tools, layout, options) => {
      assertRuleInvariants(serialize(obj(['agent', 'graph:app'], ['remote_tools', tools]), layout), options);
    }),
    4000,
  ));

test('character-level mutations of the corpus: insertions, deletions, swaps, truncation, surrogates, NUL, line breaks, BOM', () =>
  checkProperty(
    'corpus mutations',
    fc.property(mutatedTextArb, auditOptionsArb, (text, options) => {
      assertRuleInvariants(text, options);
    }),
    10000,
  ));

test('every prefix of a config (a file being typed or cut short)', () =>
  checkProperty(
    'prefixes',
    fc.property(configTextArb, fc.nat(), (text, cut) => {
      const prefix = text.slice(0, cut % (text.length + 1));
      assertRuleInvariants(prefix, { graph: CORPUS_GRAPH });
    }),
    3000,
  ));

test('random sequences of edits, checked after every edit', () =>
  checkProperty(
    'edit sequences',
    fc.property(seedTextArb, fc.array(editArb, { minLength: 1, maxLength: 12 }), auditOptionsArb, (start, edits, options) => {
      let text = start;
      for (const edit of edits) {
        text = applyEdit(text, edit).text;
        // Fix application is the costly part; it is covered by the other properties.
        assertRuleInvariants(text, options, { fixes: false });
      }
      assertRuleInvariants(text, options);
    }),
    2500,
  ));

test('text outside strict JSON: whatever JSON.parse refuses is invalid-json, and nothing else', () =>
  checkProperty(
    'strict JSON agreement',
    fc.property(mutatedTextArb, (text) => {
      const problems = auditConfig(text);
      const parsed = strictParse(text);
      assert.equal(
        problems.some((p) => p.code === 'invalid-json'),
        !parsed.ok,
      );
    }),
    15000,
  ));

test('found by fuzzing: keys named after Object.prototype members get no bogus rename', () => {
  // unknown-field looks keys up in plain objects, where "__proto__" and "constructor" hit
  // Object.prototype: the rename became `{}` or `undefined` and the fixed text was not JSON.
  for (const key of ['__proto__', 'constructor', 'Constructor', '__PROTO__']) {
    const text = `{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "t", "description": "Read the clipboard now.", ${JSON.stringify(key)}: 1}]}`;
    const unknown = auditConfig(text).filter((p) => p.code === 'unknown-field');
    assert.equal(unknown.length, 1, key);
    for (const fix of unknown[0].fixes ?? []) {
      for (const edit of fix.edits) assert.equal(typeof edit.newText, 'string', `${key}: fix "${fix.title}" has newText ${String(edit.newText)}`);
      assert.doesNotMatch(fix.title, /\[object Object\]|function Object|undefined/, `${key}: fix "${fix.title}"`);
    }
    assertRuleInvariants(text);
  }
});

test('nesting around the bound: invalid-json exactly when deeper than 1000 levels', () =>
  checkProperty(
    'depth bound',
    fc.property(fc.integer({ min: 990, max: 1010 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), (depth, kinds) => {
      // Containers alternate as `kinds` says: an array, or an object with one key.
      let open = '';
      let close = '';
      for (let i = 0; i < depth; i++) {
        const array = i === 0 ? false : kinds[i % kinds.length];
        open += array ? '[' : '{"k": ';
        close = (array ? ']' : '}') + close;
      }
      const text = `${open}1${close}`.replace(/^\{"k": /, '{"agent": "graph:app", "x": ');
      const problems = auditConfig(text);
      assert.equal(
        problems.some((p) => p.code === 'invalid-json'),
        depth > 1000,
        `depth ${depth}`,
      );
      assertRuleInvariants(text, {}, { fixes: depth <= 1000 });
    }),
    40,
  ));
