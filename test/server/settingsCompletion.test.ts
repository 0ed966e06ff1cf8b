/**
 * Completion of the settings of `10xgraph.json` over stdio, at cursor positions marked with `|`:
 * the keys of the file and of each settings object, from the rule set's table of fields, with
 * value snippets, never a key already present; and the allowed values of a setting.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { type CompletionItem, CompletionRequest, InsertTextFormat, type MarkupContent, type TextEdit } from 'vscode-languageserver-protocol/node';
import { FILE_FIELDS } from '../../runtime/src/rules/index';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';

/** Splits a fixture at its `|` marker. */
function marked(source: string): { text: string; position: { line: number; character: number } } {
  const offset = source.indexOf('|');
  assert.ok(offset >= 0, 'the fixture has a | marker');
  const text = source.slice(0, offset) + source.slice(offset + 1);
  const before = text.slice(0, offset).split('\n');
  return { text, position: { line: before.length - 1, character: before[before.length - 1].length } };
}

function apply(text: string, item: CompletionItem): string {
  return TextDocument.applyEdits(TextDocument.create('x', 'json', 1, text), [item.textEdit as TextEdit]);
}

function labels(items: CompletionItem[]): string[] {
  return items.map((i) => i.label);
}

const OFFLINE = { settings: { server: { enabled: false } } };
let counter = 0;

describe('completion of settings', () => {
  let client: TestClient;
  let plain: TestClient;
  const dir = tempFolder();

  before(async () => {
    [client, plain] = await Promise.all([TestClient.start({ initializationOptions: OFFLINE }), TestClient.start({ initializationOptions: OFFLINE, snippetSupport: false })]);
  });
  after(() => Promise.all([client.stop(), plain.stop()]));

  async function complete(source: string, c = client): Promise<{ items: CompletionItem[]; text: string }> {
    const { text, position } = marked(source);
    const uri = fileUri(join(dir, `case-${counter++}`, '10xgraph.json'));
    await c.open(uri, text);
    await c.pushed(uri, 1);
    const result = await c.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position });
    await c.close(uri);
    return { items: Array.isArray(result) ? result : (result?.items ?? []), text };
  }

  test('top level: every field of the file, in the order of the table, without the keys present', async () => {
    const { items } = await complete('{ "agent": "graph:app", "rate_limit": {}, | }');
    const offered = labels(items);
    assert.deepEqual(
      offered,
      Object.keys(FILE_FIELDS).filter((k) => k !== 'agent' && k !== 'rate_limit'),
    );
    for (const key of ['websocket', 'ag_ui', 'auth', 'authorization', 'observability', 'env', 'remote_tools', 'test', 'evaluation']) assert.ok(offered.includes(key), key);
    const websocket = items.find((i) => i.label === 'websocket')!;
    assert.match(websocket.detail!, /^WebSocket: an object/);
    assert.match((websocket.documentation as MarkupContent).value, /^\*\*websocket\*\* — WebSocket[\s\S]*every WebSocket handshake/);
  });

  test('inside rate_limit: its fields with their value snippets', async () => {
    const { items, text } = await complete('{ "agent": "graph:app", "rate_limit": { "enabled": true, | } }');
    assert.deepEqual(labels(items), [
      'requests',
      'window',
      'by',
      'backend',
      'redis',
      'exclude_paths',
      'trusted_proxy_headers',
      'trusted_proxy_hops',
      'trusted_proxies',
      'fail_open',
    ]);
    const snippet = (label: string) =>
      apply(
        text,
        items.find((i) => i.label === label)!,
      );
    assert.equal(snippet('requests'), '{ "agent": "graph:app", "rate_limit": { "enabled": true, "requests": ${1:100} } }');
    assert.equal(snippet('by'), '{ "agent": "graph:app", "rate_limit": { "enabled": true, "by": "${1|ip,user,global|}" } }');
    assert.equal(snippet('backend'), '{ "agent": "graph:app", "rate_limit": { "enabled": true, "backend": "${1|memory,redis,custom|}" } }');
    assert.equal(snippet('trusted_proxies'), '{ "agent": "graph:app", "rate_limit": { "enabled": true, "trusted_proxies": [$1] } }');
    assert.equal(snippet('fail_open'), '{ "agent": "graph:app", "rate_limit": { "enabled": true, "fail_open": ${1|true,false|} } }');
    assert.equal(snippet('redis'), '{ "agent": "graph:app", "rate_limit": { "enabled": true, "redis": "${1:\\${REDIS_URL\\}}" } }');
    assert.ok(items.every((i) => i.insertTextFormat === InsertTextFormat.Snippet));
  });

  test('a section of the file gets the snippet of its usual fields', async () => {
    const { items, text } = await complete('{ "agent": "graph:app", | }');
    assert.equal(
      apply(
        text,
        items.find((i) => i.label === 'websocket')!,
      ),
      '{ "agent": "graph:app", "websocket": {\n\t"max_connections": ${1:1000},\n\t"max_connections_per_user": ${2:10}\n} }',
    );
    assert.equal(
      apply(
        text,
        items.find((i) => i.label === 'test')!,
      ),
      '{ "agent": "graph:app", "test": {$1} }',
    );
    assert.equal(
      apply(
        text,
        items.find((i) => i.label === 'injectq')!,
      ),
      '{ "agent": "graph:app", "injectq": "${1:module:attribute}" }',
    );
  });

  test('inside each settings object, at any depth', async () => {
    const keysIn = async (source: string) => labels((await complete(source)).items);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "websocket": { | } }'), ['max_connections', 'max_connections_per_user', 'realtime_models']);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "ag_ui": { "enabled": true, | } }'), ['allow_client_tools']);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "auth": { | } }'), ['method', 'path']);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "observability": { | } }'), ['level', 'logfire', 'langsmith']);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "observability": { "logfire": { | } } }'), ['enabled', 'service_name', 'send_to_logfire', 'console']);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "observability": { "langsmith": { "enabled": true, | } } }'), ['project', 'endpoint']);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "test": { | } }'), ['path', 'coverage', 'coverage_threshold']);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "evaluation": { | } }'), ['directory', 'output_dir', 'threshold', 'parallel', 'max_concurrency', 'timestamp_files']);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "rate_limit": { "redis": { | } } }'), ['url', 'prefix']);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "rate_limit": { "redis": "redis://x", "by": "ip", | } }'), [
      'enabled',
      'requests',
      'window',
      'backend',
      'exclude_paths',
      'trusted_proxy_headers',
      'trusted_proxy_hops',
      'trusted_proxies',
      'fail_open',
    ]);
  });

  test('an RBAC authorization offers one name of each field, none once one of its names is present', async () => {
    const keysIn = async (source: string) => labels((await complete(source)).items);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "authorization": { | } }'), ['backend', 'roles', 'default_scopes', 'isolation']);
    assert.deepEqual(await keysIn('{ "agent": "g:a", "authorization": { "type": "rbac", "role_scopes": {}, | } }'), ['default_scopes', 'isolation']);
  });

  test('a tool offers node, never its other name node_name, and neither once node_name is present', async () => {
    const fresh = await complete('{ "agent": "g:a", "remote_tools": [{ | }] }');
    assert.deepEqual(labels(fresh.items), ['node', 'name', 'description', 'parameters']);
    const named = await complete('{ "agent": "g:a", "remote_tools": [{ "node_name": "TOOL", | }] }');
    assert.deepEqual(labels(named.items), ['name', 'description', 'parameters']);
  });

  test('values: the allowed values of an enum, the default preselected', async () => {
    const by = await complete('{ "agent": "g:a", "rate_limit": { "by": "|" } }');
    assert.deepEqual(labels(by.items), ['ip', 'user', 'global']);
    assert.equal(by.items[0].preselect, true);
    assert.equal(apply(by.text, by.items[1]), '{ "agent": "g:a", "rate_limit": { "by": "user" } }');
    const half = await complete('{ "agent": "g:a", "rate_limit": { "backend": "re|" } }');
    assert.deepEqual(labels(half.items), ['memory', 'redis', 'custom']);
    assert.equal(apply(half.text, half.items[1]), '{ "agent": "g:a", "rate_limit": { "backend": "redis" } }');
    const level = await complete('{ "agent": "g:a", "observability": { "level": | } }');
    assert.deepEqual(labels(level.items), ['spans', 'standard', 'full']);
    assert.equal(level.items.find((i) => i.preselect)?.label, 'standard');
    const isolation = await complete('{ "agent": "g:a", "authorization": { "backend": "rbac", "isolation": "|" } }');
    assert.deepEqual(labels(isolation.items), ['owner', 'none']);
    const backend = await complete('{ "agent": "g:a", "authorization": { "backend": "|" } }');
    assert.deepEqual(labels(backend.items), ['rbac', 'role_based', 'roles']);
  });

  test('values: "jwt" for auth, the built-in backends for authorization, the usual object for a section', async () => {
    const auth = await complete('{ "agent": "g:a", "auth": "|" }');
    assert.deepEqual(labels(auth.items), ['jwt']);
    assert.equal(apply(auth.text, auth.items[0]), '{ "agent": "g:a", "auth": "jwt" }');
    const authorization = await complete('{ "agent": "g:a", "authorization": "|" }');
    assert.deepEqual(labels(authorization.items), ['ownership', 'allow_all', 'default', 'none']);
    const section = await complete('{ "agent": "g:a", "rate_limit": | }');
    assert.deepEqual(labels(section.items), ['Rate limiting object']);
    assert.match(apply(section.text, section.items[0]), /"rate_limit": \{\n\t"enabled": true,\n\t"requests": \$\{1:100\}/);
  });

  test('values: true and false for a boolean, the default preselected', async () => {
    const enabled = await complete('{ "agent": "g:a", "ag_ui": { "enabled": | } }');
    assert.deepEqual(labels(enabled.items), ['true', 'false']);
    assert.equal(enabled.items.find((i) => i.preselect)?.label, 'false');
    assert.equal(apply(enabled.text, enabled.items[0]), '{ "agent": "g:a", "ag_ui": { "enabled": true } }');
    const coverage = await complete('{ "agent": "g:a", "test": { "coverage": | } }');
    assert.deepEqual(labels(coverage.items), ['true', 'false']);
    const none = await complete('{ "agent": "g:a", "websocket": { "max_connections": | } }');
    assert.deepEqual(none.items, [], 'a number has no values to offer');
  });

  test('a key the file does not know offers nothing inside it', async () => {
    const { items } = await complete('{ "agent": "g:a", "extra": { | } }');
    assert.deepEqual(items, []);
    const roles = await complete('{ "agent": "g:a", "authorization": { "roles": { | } } }');
    assert.deepEqual(roles.items, []);
  });

  test('without snippet support, the first choice and placeholders are inserted as text', async () => {
    const { items, text } = await complete('{ "agent": "g:a", "rate_limit": { | } }', plain);
    const plainText = (label: string) =>
      apply(
        text,
        items.find((i) => i.label === label)!,
      );
    assert.equal(plainText('by'), '{ "agent": "g:a", "rate_limit": { "by": "ip" } }');
    assert.equal(plainText('window'), '{ "agent": "g:a", "rate_limit": { "window": 60 } }');
    assert.equal(plainText('redis'), '{ "agent": "g:a", "rate_limit": { "redis": "${REDIS_URL}" } }');
    assert.ok(items.every((i) => i.insertTextFormat === InsertTextFormat.PlainText));
  });
});
