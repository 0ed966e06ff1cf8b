/**
 * `10xgraph.files` globs may come from a workspace's settings, so they are matched in linear
 * time (RE2), whatever the pattern: `*a` sixteen times and `*b` against a long name answers at
 * once instead of freezing the server. An invalid glob (`[z-a]`, an unclosed `{`) is reported
 * once, with what is wrong, and ignored; the other globs keep working. The hang guards are the
 * tests' own time-outs; nothing here times the matcher.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { HoverRequest } from 'vscode-languageserver-protocol/node';
import { globProblem, matchAny, matchGlob } from '../../runtime/src/workspace/glob';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';

const HOSTILE = `${'*a'.repeat(16)}*b`;
const LONG_NAME = `${'a'.repeat(5000)}.json`;
const BROKEN = '{"agent": "graph:app", "remote_tools": [{"node": "TOOL", "name": "a", "description": "Read the clipboard text.", "desc": 1}]}';

describe('glob matching', () => {
  test('a hostile glob against a long name answers at once', { timeout: 10_000 }, () => {
    assert.equal(matchGlob(HOSTILE, 'a'.repeat(100_000)), false);
    assert.equal(matchGlob(HOSTILE, `dir/${'a'.repeat(100_000)}b`), true);
    assert.equal(matchGlob(`**/${'{a,aa,aaa}*'.repeat(8)}x`, `${'a'.repeat(50_000)}`), false);
  });

  test('classes: ranges, negation, escapes, and never a /', () => {
    assert.ok(matchGlob('[a-c]x.json', 'bx.json'));
    assert.ok(!matchGlob('[!a-c]x.json', 'bx.json'));
    assert.ok(matchGlob('[!a-c]x.json', 'dx.json'));
    assert.ok(matchGlob('[]]x', ']x'), 'a ] first is literal');
    assert.ok(matchGlob('a[-.]b', 'a-b'));
    assert.ok(!matchGlob('a[!x]b', 'a/b'), 'a negated class does not match /');
    assert.ok(!matchGlob('a[+-0]b', 'a/b'), 'a range across / does not match it');
    assert.ok(matchGlob('a[+-0]b', 'a.b'));
    assert.ok(matchGlob('a[b', 'a[b'), 'an unclosed [ is literal');
    assert.ok(matchGlob('{x,{y,z}}.json', 'z.json'), 'nested braces');
    assert.ok(matchGlob('a b$^(x).json', 'a b$^(x).json'), 'regex characters are literal');
    assert.ok(matchGlob('conf/**', 'conf/a/b.json'));
    assert.ok(matchGlob('é*.json', 'été.json'), 'non-ASCII');
  });

  test('an invalid glob says what is wrong and matches nothing', () => {
    assert.match(globProblem('[z-a]')!, /the range z-a in its \[\.\.\.\] is out of order/);
    assert.match(globProblem('{a,b.json')!, /a \{ is not closed by a \}/);
    assert.match(globProblem('x[/]y')!, /\[\/\] matches no character/);
    assert.match(globProblem('*'.repeat(1001))!, /longer than 1000 characters/);
    assert.match(globProblem(`${'{'.repeat(11)}a${'}'.repeat(11)}`)!, /nest deeper than 10 levels/);
    assert.equal(globProblem('**/10xgraph.json'), undefined);
    assert.equal(matchGlob('[z-a]', 'z'), false);
  });

  test('matchAny skips an invalid glob, reports it, and the others keep working', () => {
    const reported: string[] = [];
    assert.equal(
      matchAny(['[z-a]', '**/10xgraph.json'], ['p/10xgraph.json'], (glob) => reported.push(glob)),
      true,
    );
    assert.deepEqual(reported, ['[z-a]']);
    assert.equal(matchAny(['[z-a]'], ['z']), false);
  });

  test('at most 100 globs are matched; the first one past the bound is reported once', () => {
    const globs = Array.from({ length: 150 }, (_, i) => `g${i}.json`);
    const reported: Array<[string, string]> = [];
    assert.equal(
      matchAny(globs, ['g99.json'], (glob, reason) => reported.push([glob, reason])),
      true,
    );
    assert.equal(matchAny(globs, ['g100.json']), false);
    assert.deepEqual(reported, [['g100.json', 'only the first 100 of the 150 globs are used']]);
  });
});

describe('over the protocol', () => {
  let root: string;
  let client: TestClient;

  before(async () => {
    root = tempFolder('10xgraph-ls-globs-');
    mkdirSync(join(root, 'ws'));
    client = await TestClient.start({
      workspaceFolders: [{ uri: fileUri(join(root, 'ws')), name: 'ws' }],
      initializationOptions: { storagePath: join(root, 'storage') },
      configuration: () => ({ server: { enabled: false }, files: ['[z-a]', HOSTILE, '**/10xgraph.json', '{unclosed'] }),
    });
  });
  after(async () => {
    await client.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test('a long name against the hostile glob: not served, and the server keeps answering', { timeout: 20_000 }, async () => {
    const uri = fileUri(join(root, 'ws', LONG_NAME));
    await client.open(uri, BROKEN);
    const hover = await client.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 2 } });
    assert.equal(hover, null, 'not a served file');
    const served = fileUri(join(root, 'ws', '10xgraph.json'));
    await client.open(served, BROKEN);
    const diagnostics = await client.pushed(served, 1);
    assert.ok(
      diagnostics.some((d) => d.code === 'unknown-field'),
      'the valid glob still serves its files',
    );
    assert.ok(client.alive);
  });

  test('each invalid glob is shown once, with the reason, however many files are opened', async () => {
    for (let i = 0; i < 5; i++) {
      const uri = fileUri(join(root, 'ws', `sub${i}`, '10xgraph.json'));
      await client.open(uri, BROKEN);
      await client.pushed(uri, 1);
    }
    const shown = client.messages.map((m) => m.message);
    assert.equal(shown.length, 2, shown.join('\n'));
    assert.match(shown[0], /^10xgraph\.files: the glob "\[z-a\]" is ignored: the range z-a in its \[\.\.\.\] is out of order\. The other globs still apply/);
    assert.match(shown[1], /^10xgraph\.files: the glob "\{unclosed" is ignored: a \{ is not closed by a \}\./);
    assert.ok(
      client.messages.every((m) => m.type === 2),
      'warnings',
    );
    assert.ok(!client.logs.some((l) => /unhandled/.test(l)), client.logs.join('\n'));
  });
});
