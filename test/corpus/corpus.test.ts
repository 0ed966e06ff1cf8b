import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditConfig, LineIndex } from '../../runtime/src/rules/index';
import { CORPUS_GRAPH, describeProblem, loadCorpus } from '../support/corpus';

const corpus = loadCorpus();

test('the corpus has valid files, one file per problem code and mixed files', () => {
  const names = corpus.map((c) => c.name);
  assert.ok(names.filter((n) => n.startsWith('valid-')).length >= 3);
  assert.ok(names.filter((n) => n.startsWith('mixed-')).length >= 2);
  const codes = new Set(corpus.flatMap((c) => c.expected.map((line) => line.split(' ')[2])));
  for (const code of [
    'invalid-json',
    'root-not-object',
    'agent-missing',
    'agent-invalid',
    'remote-tools-not-list',
    'tool-not-object',
    'unknown-field',
    'missing-field',
    'not-a-string',
    'blank-field',
    'duplicate-name',
    'parameters-not-object',
    'parameters-type-not-object',
    'properties-not-object',
    'required-not-string-list',
    'node-not-found',
    'node-not-tool-node',
    'name-conflicts-with-server-tool',
    'duplicate-key',
    'required-not-in-properties',
    'invalid-tool-name',
    'invalid-property-schema',
    'vague-description',
  ]) {
    assert.ok(codes.has(code), `no corpus file expects ${code}`);
  }
});

for (const c of corpus) {
  test(`corpus ${c.name}: the rule set reports exactly the expected problems`, () => {
    const lines = new LineIndex(c.text);
    const actual = auditConfig(c.text, { graph: CORPUS_GRAPH }).map((p) => describeProblem(lines, p));
    assert.deepEqual(actual, c.expected);
  });
}

test('valid corpus files parse to the same value JSON.parse gives', async () => {
  const { analyzeConfig } = await import('../../runtime/src/rules/index');
  for (const c of corpus.filter((x) => x.expected.length === 0)) {
    const analysis = analyzeConfig(c.text, { graph: CORPUS_GRAPH });
    assert.deepEqual(analysis.config?.raw, JSON.parse(c.text), c.name);
  }
});

test('without a graph the graph rules are skipped, not guessed', () => {
  for (const c of corpus) {
    const codes = auditConfig(c.text).map((p) => p.code);
    for (const graphCode of ['node-not-found', 'node-not-tool-node', 'name-conflicts-with-server-tool', 'tool-not-attached']) {
      assert.ok(!codes.includes(graphCode as never), `${c.name} reports ${graphCode} without a graph`);
    }
  }
});
