/**
 * Hover on the keys of `10xgraph.json` over stdio, at cursor positions marked with `|`: every key
 * the rule set's table of fields knows, at any depth, shows its label, type, default, allowed
 * values and help, and links the rules that judge it.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { type Hover, HoverRequest, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { FILE_FIELDS, RBAC_FIELDS } from '../../runtime/src/rules/index';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';

/** Splits a fixture at its `|` marker. */
function marked(source: string): { text: string; position: { line: number; character: number } } {
  const offset = source.indexOf('|');
  assert.ok(offset >= 0, 'the fixture has a | marker');
  const text = source.slice(0, offset) + source.slice(offset + 1);
  const before = text.slice(0, offset).split('\n');
  return { text, position: { line: before.length - 1, character: before[before.length - 1].length } };
}

/** The rule codes a hover links, in order. */
function linkedRules(markdown: string): string[] {
  return [...markdown.matchAll(/\]\([^)#]*#([a-z-]+)\)/g)].map((m) => m[1]);
}

const OFFLINE = { settings: { server: { enabled: false } } };
let counter = 0;

describe('hover on settings', () => {
  let client: TestClient;
  const dir = tempFolder();

  before(async () => {
    client = await TestClient.start({ initializationOptions: OFFLINE });
  });
  after(() => client.stop());

  async function hover(source: string): Promise<Hover | null> {
    const { text, position } = marked(source);
    const uri = fileUri(join(dir, `case-${counter++}`, '10xgraph.json'));
    await client.open(uri, text);
    await client.pushed(uri, 1);
    const result = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
    await client.close(uri);
    return result;
  }

  async function hoverText(source: string): Promise<string> {
    const result = await hover(source);
    assert.ok(result, `a hover at ${source}`);
    return (result.contents as MarkupContent).value;
  }

  test('max_connections: its label, type, default 1000, "0 or null means no limit", and when the server reads it', async () => {
    const text = await hoverText('{ "agent": "g:a", "websocket": { "max_conn|ections": 5 } }');
    assert.match(text, /^\*\*max_connections\*\* — Max connections: a non-negative integer, `0` or `null` for no limit; default `1000`\./);
    assert.match(text, /`0` or `null` means no limit/);
    assert.match(text, /Not judged at start-up: with a wrong value the server starts, but every WebSocket handshake refuses it \(a warning, not an error\)\./);
    assert.deepEqual(linkedRules(text), ['setting-invalid']);
  });

  test('the hover covers the key', async () => {
    const result = await hover('{ "agent": "g:a", "websocket": { "max_conn|ections": 5 } }');
    assert.deepEqual(result!.range, { start: { line: 0, character: 33 }, end: { line: 0, character: 50 } });
  });

  test('an enum lists its allowed values; a start-up setting links the codes that judge it there', async () => {
    const by = await hoverText('{ "agent": "g:a", "rate_limit": { "b|y": "ip" } }');
    assert.match(by, /^\*\*by\*\* — Limit by: one of `ip`, `user`, `global`; default `"ip"`\./);
    assert.match(by, /Compared exactly: `"IP"` is refused\./);
    assert.match(by, /Judged at start-up: a value the server refuses stops it\./);
    assert.deepEqual(linkedRules(by), ['setting-unknown-value']);
    const requests = await hoverText('{ "agent": "g:a", "rate_limit": { "req|uests": 5 } }');
    assert.match(requests, /Requests per window: an integer of at least 1; default `100`\./);
    assert.deepEqual(linkedRules(requests), ['setting-wrong-type', 'setting-out-of-range']);
    const level = await hoverText('{ "agent": "g:a", "observability": { "le|vel": "full" } }');
    assert.match(level, /Level: one of `spans`, `standard`, `full` \(in any case\); default `"standard"`/);
  });

  test('a section links its own rules, the settings rules and unknown-key', async () => {
    const rateLimit = await hoverText('{ "agent": "g:a", "rate_l|imit": {} }');
    assert.match(rateLimit, /^\*\*rate_limit\*\* — Rate limiting: an object\./);
    assert.match(rateLimit, /`\{\}` turns them on with the defaults/);
    assert.match(rateLimit, /`null` means not set\./);
    assert.deepEqual(linkedRules(rateLimit), ['rate-limit-per-process', 'rate-limit-backend-unbound', 'env-var-not-set', 'setting-wrong-type', 'unknown-key']);
  });

  test('every depth: redis fields, logfire, RBAC fields, auth fields, test and evaluation', async () => {
    const url = await hoverText('{ "agent": "g:a", "rate_limit": { "redis": { "u|rl": "redis://x" } } }');
    assert.match(url, /^\*\*url\*\* — Redis URL: a string\./);
    assert.match(url, /`null` or an empty value means not set\./);
    const logfire = await hoverText('{ "agent": "g:a", "observability": { "logfire": { "ena|bled": true } } }');
    assert.match(logfire, /Logfire: a boolean, read as a truth value; default `false`\./);
    assert.match(logfire, /a non-empty string, even `"false"`, turns it on/);
    assert.match(logfire, /but the tracing set-up refuses it/);
    const isolation = await hoverText('{ "agent": "g:a", "authorization": { "backend": "rbac", "iso|lation": "owner" } }');
    assert.match(isolation, /Isolation: one of `owner`, `none`; default `"owner"`\./);
    const { readBy, onRefusal } = RBAC_FIELDS.isolation;
    assert.ok(isolation.includes(`but ${readBy} ${onRefusal} (a warning, not an error)`), isolation);
    const backend = await hoverText('{ "agent": "g:a", "authorization": { "backe|nd": "rbac" } }');
    assert.match(backend, /Values: `rbac`, `role_based`, `roles`\./);
    const path = await hoverText('{ "agent": "g:a", "auth": { "method": "custom", "pa|th": "a.b:c" } }');
    assert.match(path, /Auth class: an import path `"module:attribute"`\./);
    assert.deepEqual(linkedRules(path), ['setting-wrong-type', 'invalid-import-path', 'module-not-found']);
    const threshold = await hoverText('{ "agent": "g:a", "test": { "coverage_thr|eshold": 80 } }');
    assert.match(threshold, /Coverage threshold \(%\): a whole number from 0 to 100\./);
    assert.match(threshold, /but `10xgraph test` refuses it/);
    const timestamps = await hoverText('{ "agent": "g:a", "evaluation": { "timestamp_f|iles": true } }');
    assert.match(timestamps, /^\*\*timestamp_files\*\* — Timestamp report files; default `true`\.\n\nNamed by the docs/);
  });

  test('top-level fields: auth and authorization show their values; env and agent their rules', async () => {
    const auth = await hoverText('{ "agent": "g:a", "au|th": "jwt" }');
    assert.match(auth, /Authentication: `"jwt"` or `\{"method": "custom", "path"\}`\./);
    assert.match(auth, /Values: `jwt`\./);
    assert.deepEqual(linkedRules(auth), ['auth-invalid', 'env-var-not-set', 'unknown-key']);
    const authorization = await hoverText('{ "agent": "g:a", "authori|zation": "ownership" }');
    assert.match(authorization, /Values: `ownership`, `allow_all`, `default`, `none`\./);
    const env = await hoverText('{ "agent": "g:a", "e|nv": ".env" }');
    assert.match(env, /Env file: a string\./);
    assert.deepEqual(linkedRules(env), ['env-file-missing', 'setting-wrong-type']);
    const agent = await hoverText('{ "ag|ent": "g:a" }');
    assert.match(agent, /^\*\*agent\*\* — Agent graph\./);
    assert.deepEqual(linkedRules(agent), ['agent-missing', 'agent-invalid', 'agent-not-importable']);
    const checkpointer = await hoverText('{ "agent": "g:a", "checkpoi|nter": "a:b" }');
    assert.match(checkpointer, /Not applied by the server/);
    assert.ok(FILE_FIELDS.checkpointer.unread);
    assert.match(checkpointer, /Never read by the server: its value is not judged\./);
    assert.doesNotMatch(checkpointer, /setting-invalid/);
  });

  test('node_name: another name of node, with the rules of node', async () => {
    const text = await hoverText('{ "agent": "g:a", "remote_tools": [{ "node_na|me": "TOOL", "name": "a", "description": "Read the clipboard text." }] }');
    assert.match(text, /^\*\*node_name\*\* — Another name of `node`\./);
    assert.match(text, /Read as `node` when `node` is absent/);
    assert.ok(linkedRules(text).includes('unknown-field') && linkedRules(text).includes('node-not-found'));
  });

  test('keys the table does not know have no hover', async () => {
    assert.equal(await hover('{ "agent": "g:a", "ext|ra": 1 }'), null);
    assert.equal(await hover('{ "agent": "g:a", "rate_limit": { "constr|uctor": 1 } }'), null);
    assert.equal(await hover('{ "agent": "g:a", "authorization": { "roles": { "adm|in": ["*"] } } }'), null);
    assert.equal(await hover('{ "agent": "g:a", "remote_tools": [{ "constr|uctor": 1 }] }'), null);
  });
});
