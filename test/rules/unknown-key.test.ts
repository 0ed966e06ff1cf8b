// unknown-key: a key the server does not read, at the top level or in one of its settings objects.
// The problem covers the key; a key close to a known one that is not set gets a safe rename, and
// every unknown key can be removed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFix, config, configWith, expectClean, expectNone, expectProblems, tool } from './helpers';

const CODE = 'unknown-key';

describe('unknown-key', () => {
  test('a top-level key 10xGraph does not read is a warning on the key; without a close key only the removal is offered', () => {
    const { text, problems } = expectProblems(configWith('⟦"port"⟧: 8000'), CODE, { only: true, messages: ['"port"', 'not read by 10xGraph'] });
    const fixes = problems[0].fixes!;
    assert.equal(fixes.length, 1);
    assert.equal(fixes[0].title, 'Remove "port"');
    assert.equal(fixes[0].isPreferred, true);
    assert.notEqual(fixes[0].safe, true);
    assert.equal(checkFix(text, problems[0]), '{"agent": "graph:app"}');
  });

  test('"remote_tool" means "remote_tools": a safe rename, preferred, with the removal after it', () => {
    const { text, problems } = expectProblems(`{"agent": "graph:app", ⟦"remote_tool"⟧: [${tool()}]}`, CODE, { only: true, messages: ['Did you mean "remote_tools"?'] });
    const [rename, remove] = problems[0].fixes!;
    assert.equal(rename.title, 'Rename "remote_tool" to "remote_tools"');
    assert.equal(rename.safe, true);
    assert.equal(rename.isPreferred, true);
    assert.notEqual(remove.isPreferred, true);
    const fixed = checkFix(text, problems[0]);
    assert.equal(fixed, config(tool()));
    expectClean(fixed);
  });

  test('no rename when the key it means is already set: only the removal, and the message says so', () => {
    const { problems } = expectProblems(`{"agent": "graph:app", ⟦"remote_tool"⟧: [], "remote_tools": [${tool()}]}`, CODE, { messages: ['"remote_tools" is already set'] });
    assert.deepEqual(
      problems[0].fixes!.map((f) => f.title),
      ['Remove "remote_tool"'],
    );
  });

  for (const [members, key, where, meant] of [
    ['"rate_limit": {"enabled": false, ⟦"reqests"⟧: 5}', 'reqests', 'rate_limit', 'requests'],
    ['"websocket": {⟦"max_conections"⟧: 5}', 'max_conections', 'websocket', 'max_connections'],
    ['"ag_ui": {⟦"enable"⟧: true}', 'enable', 'ag_ui', 'enabled'],
    ['"auth": {"method": "custom", "path": "auth.custom:MyAuth", ⟦"pathh"⟧: 1}', 'pathh', 'auth', undefined],
    ['"auth": {"method": "custom", ⟦"paths"⟧: "auth.custom:MyAuth"}', 'paths', 'auth', 'path'],
    ['"observability": {⟦"levl"⟧: "full", "logfire": {"enabled": true}}', 'levl', 'observability', 'level'],
    ['"observability": {"logfire": {"enabled": true, ⟦"servce_name"⟧: "x"}}', 'servce_name', 'observability.logfire', 'service_name'],
    ['"observability": {"langsmith": {"enabled": true, ⟦"projct"⟧: "x"}}', 'projct', 'observability.langsmith', 'project'],
    ['"test": {⟦"coverag"⟧: true}', 'coverag', 'test', 'coverage'],
    ['"evaluation": {⟦"threshhold"⟧: 0.5}', 'threshhold', 'evaluation', 'threshold'],
    ['"rate_limit": {"enabled": false, "redis": {"url": "redis://localhost", ⟦"prefx"⟧: "x"}}', 'prefx', 'rate_limit.redis', 'prefix'],
    ['"authorization": {"backend": "rbac", "roles": {"admin": ["*"]}, ⟦"isolaton"⟧: "none"}', 'isolaton', 'authorization', 'isolation'],
  ] as const) {
    test(`"${key}" in "${where}"${meant ? ` is renamed to "${meant}"` : ''}`, () => {
      const { text, problems } = expectProblems(configWith(members), CODE, { messages: [`"${key}"`, `in "${where}"`] });
      const fixes = problems[0].fixes!;
      if (meant === undefined) {
        // "path" is set already: the close key is not offered.
        assert.deepEqual(
          fixes.map((f) => f.title),
          [`Remove "${key}"`],
        );
        return;
      }
      assert.equal(fixes[0].title, `Rename "${key}" to "${meant}"`);
      assert.equal(fixes[0].safe, true);
      const fixed = checkFix(text, problems[0]);
      assert.ok(fixed.includes(`"${meant}"`));
      checkFix(text, problems[0], 1);
    });
  }

  test('every known field of each section is read, and so are the RBAC fields', () => {
    expectNone(
      configWith(
        '"env": ".env", "rate_limit": {"enabled": true, "requests": 1, "window": 1, "by": "ip", "backend": "memory", "redis": {"url": "", "prefix": "p"}, "exclude_paths": [], "trusted_proxy_headers": false, "trusted_proxy_hops": 1, "trusted_proxies": [], "fail_open": true}, ' +
          '"websocket": {"max_connections": 1, "max_connections_per_user": 1, "realtime_models": []}, "ag_ui": {"enabled": true, "allow_client_tools": true}, ' +
          '"observability": {"level": "full", "logfire": {"enabled": true, "service_name": "s", "send_to_logfire": true, "console": false}, "langsmith": {"enabled": true, "project": "p", "endpoint": "e"}}, ' +
          '"authorization": {"backend": "rbac", "type": "rbac", "roles": {}, "role_scopes": {}, "default_scopes": [], "isolation": "owner"}, "injectq": "", "store": "", "checkpointer": "", "thread_name_generator": "", "redis": "", "remote_tools": [], ' +
          '"test": {"path": "t", "coverage": false, "coverage_threshold": 1}, "evaluation": {"directory": "d", "output_dir": "o", "threshold": 1, "parallel": false, "max_concurrency": 1, "timestamp_files": true}',
      ),
      CODE,
    );
  });

  test('keys inside values the server does not read as settings objects are not judged', () => {
    expectNone(configWith('"authorization": {"backend": "rbac", "roles": {"anything": ["*"]}}'), CODE);
    expectNone(config(tool({ parameters: '{"type": "object", "properties": {"port": {"type": "number"}}}' })), CODE);
    // A section that is not an object has no keys to judge.
    expectNone(configWith('"auth": "jwt", "authorization": "ownership"'), CODE);
  });

  test('"$schema" at the top level is read by editors and harms nothing; anywhere else it is unknown', () => {
    expectNone(`{"$schema": "./node_modules/10xgraph/schemas/10xgraph.schema.json", "agent": "graph:app"}`, CODE);
    expectProblems(configWith('"rate_limit": {"enabled": false, ⟦"$schema"⟧: "x"}'), CODE);
  });

  test('the fields of a remote tool are unknown-field, not this warning', () => {
    expectNone(config(tool({ colour: '"red"' })), CODE);
  });

  test('a repeated unknown key: each occurrence is reported', () => {
    expectProblems(configWith('⟦"port"⟧: 1, ⟦"port"⟧: 2'), CODE);
  });
});
