// The catalog: every code has its severity in docs/spec.md, a docs anchor, a rule that reports it and a
// test file of its own in this folder.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { RULES, ruleDocsAnchor } from '../../runtime/src/rules';
import type { ProblemCode, Severity } from '../../runtime/src/rules';
import { ALL_RULES, PROJECT_RULES } from '../../runtime/src/rules/rules/index';

const SEVERITIES: Record<ProblemCode, Severity> = {
  'invalid-json': 'error',
  'root-not-object': 'error',
  'agent-missing': 'error',
  'agent-invalid': 'error',
  'agent-not-found': 'error',
  'remote-tools-not-list': 'error',
  'tool-not-object': 'error',
  'unknown-field': 'error',
  'missing-field': 'error',
  'not-a-string': 'error',
  'blank-field': 'error',
  'duplicate-name': 'error',
  'parameters-not-object': 'error',
  'parameters-type-not-object': 'error',
  'properties-not-object': 'error',
  'required-not-string-list': 'error',
  'node-not-found': 'error',
  'node-not-tool-node': 'error',
  'name-conflicts-with-server-tool': 'error',
  'duplicate-key': 'warning',
  'required-not-in-properties': 'warning',
  'invalid-tool-name': 'warning',
  'invalid-property-schema': 'warning',
  'vague-description': 'information',
  'tool-not-attached': 'information',
  // The settings read at start-up stop the server when it refuses them: errors.
  'setting-wrong-type': 'error',
  'setting-out-of-range': 'error',
  'setting-unknown-value': 'error',
  'invalid-import-path': 'error',
  'invalid-network': 'error',
  'auth-invalid': 'error',
  // An import the server makes at start-up that fails stops it.
  'module-attribute-missing': 'error',
  // Read after start-up or by a CLI command, or depending on where the server runs: warnings.
  'setting-invalid': 'warning',
  'unknown-key': 'warning',
  'env-var-not-set': 'warning',
  'env-file-missing': 'warning',
  'module-not-found': 'warning',
  'setting-not-applied': 'warning',
  'rate-limit-per-process': 'warning',
  'rate-limit-backend-unbound': 'warning',
  'rbac-no-roles': 'warning',
  'nothing-traced': 'warning',
  // The Python server's view of an agent 10xgraph api loads, and a name it trims: editor only.
  'agent-not-importable': 'information',
  'untrimmed-field': 'information',
  'raw-typescript-keyword': 'warning',
  // What the config and the project's sources say together: editor and `audit --project` notes.
  'handler-missing': 'information',
  'handler-undeclared': 'information',
  'graph-not-read': 'information',
  'internal-error': 'error',
};

describe('the rule catalog', () => {
  test('every code has the severity docs/spec.md §2 gives it', () => {
    assert.deepEqual(Object.fromEntries(Object.entries(RULES).map(([code, info]) => [code, info.severity])), SEVERITIES);
  });

  test('every code has a title and a docs anchor named after it', () => {
    for (const code of Object.keys(RULES) as ProblemCode[]) {
      assert.ok(RULES[code].title.length > 10, code);
      assert.equal(ruleDocsAnchor(code), code);
    }
  });

  test('every code but invalid-json and internal-error has exactly one rule (on the config, or on the project)', () => {
    const codes = [...ALL_RULES, ...PROJECT_RULES].map((r) => r.code);
    assert.equal(new Set(codes).size, codes.length);
    assert.deepEqual([...codes, 'invalid-json', 'internal-error'].sort(), Object.keys(RULES).sort());
  });

  test('every code has a test file of its own here', () => {
    for (const code of Object.keys(RULES)) {
      assert.ok(existsSync(new URL(`./${code}.test.ts`, import.meta.url)), `test/rules/${code}.test.ts`);
    }
  });
});

test('the version the server reports and the rule set names is the runtime package version', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { VERSION } = await import('../../runtime/src/version');
  const { RULESET_VERSION } = await import('../../runtime/src/rules/index');
  const runtime = JSON.parse(readFileSync(join(__dirname, '..', '..', 'runtime', 'package.json'), 'utf8')) as { version: string };
  assert.equal(VERSION, runtime.version);
  assert.equal(RULESET_VERSION, VERSION);
});
