/**
 * `.gitignore` matched with git's own semantics (each expected verdict below is what
 * `git check-ignore` answers for the same line and path): negation, folder-only and anchored
 * patterns, `**`, escapes, trailing spaces, character classes, bytes. A line git accepts but a
 * backtracking translation could not compile (`[z-a]`) keeps the other lines working, and a line
 * that cannot be used is logged with its number while the others apply.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitIgnore } from '../../runtime/src/workspace/gitignore';
import { ProjectIndex } from '../../server/src/projectIndex';
import { tempFolder } from '../support/lspClient';

/** `[path, isFolder, verdict]`: true ignored, false re-included by a `!` line, undefined when no line speaks of it. */
type Case = [string, boolean, boolean | undefined];

function check(text: string, cases: Case[]): void {
  const ignore = new GitIgnore(text);
  for (const [path, isFolder, expected] of cases) {
    assert.equal(ignore.verdict(path, isFolder), expected, `${JSON.stringify(text)} on ${JSON.stringify(path)}${isFolder ? ' (folder)' : ''}`);
  }
  assert.deepEqual(ignore.problems, []);
}

describe('.gitignore with git semantics', () => {
  test('negation: the last matching line decides', () => {
    check('*.log\n!keep.log\n', [
      ['debug.log', false, true],
      ['a/b/debug.log', false, true],
      ['keep.log', false, false],
      ['a/keep.log', false, false],
      ['notes.txt', false, undefined],
    ]);
    check('*.log\n!keep.log\nkeep.log\n', [['keep.log', false, true]]);
  });

  test('a trailing / matches folders only', () => {
    check('build/\n', [
      ['build', true, true],
      ['src/build', true, true],
      ['build', false, undefined],
    ]);
    check('doc/out/\n', [
      ['doc/out', true, true],
      ['doc/out', false, undefined],
      ['a/doc/out', true, undefined],
    ]);
  });

  test('a / at the start or in the middle anchors the pattern to the folder of the file', () => {
    check('/top.ts\ndoc/frotz\n', [
      ['top.ts', false, true],
      ['sub/top.ts', false, undefined],
      ['doc/frotz', false, true],
      ['a/doc/frotz', false, undefined],
    ]);
    check('a/*.ts\n', [
      ['a/b.ts', false, true],
      ['a/b/c.ts', false, undefined],
    ]);
    check('/*.ts\n', [
      ['a.ts', false, true],
      ['src/a.ts', false, undefined],
    ]);
  });

  test('** before a /, at the end, and between two', () => {
    check('**/foo\n', [
      ['foo', false, true],
      ['a/foo', false, true],
      ['a/b/foo', true, true],
    ]);
    check('abc/**\n', [
      ['abc/x', false, true],
      ['abc/x/y', false, true],
      ['abc', true, undefined],
    ]);
    check('a/**/b\n', [
      ['a/b', false, true],
      ['a/x/b', false, true],
      ['a/x/y/b', false, true],
      ['x/a/b', false, undefined],
    ]);
    // Not a whole segment: an ordinary `*`, which does not cross a /.
    check('a/**b\n', [
      ['a/xb', false, true],
      ['a/x/b', false, undefined],
    ]);
  });

  test('comments, escapes and trailing spaces', () => {
    check('#comment\n\\#hash.ts\n\\!bang.ts\n\\*\n', [
      ['#comment', false, undefined],
      ['#hash.ts', false, true],
      ['!bang.ts', false, true],
      ['*', false, true],
      ['x', false, undefined],
    ]);
    check('trail.ts   \nspace\\ \ntab\t\ncrlf.ts\r\n', [
      ['trail.ts', false, true],
      ['trail.ts ', false, undefined],
      ['space ', false, true],
      ['space', false, undefined],
      // Only spaces are trimmed.
      ['tab\t', false, true],
      ['tab', false, undefined],
      ['crlf.ts', false, true],
    ]);
    // A trailing \ escapes nothing: git matches no name with it.
    check('end\\\n', [['end', false, undefined]]);
  });

  test('character classes: sets, negation, ranges, named classes; never a /', () => {
    check('[abc].ts\n', [
      ['a.ts', false, true],
      ['d.ts', false, undefined],
    ]);
    check('[!abc].ts\n[^xyz].js\n', [
      ['d.ts', false, true],
      ['a.ts', false, undefined],
      ['a.js', false, true],
      ['x.js', false, undefined],
    ]);
    check('[a-c]x\n[]]\n[a-]y\n', [
      ['bx', false, true],
      ['dx', false, undefined],
      [']', false, true],
      ['-y', false, true],
    ]);
    check('[[:digit:]]*.log\n[[:upper:]][[:alpha:]]\n', [
      ['1.log', false, true],
      ['x.log', false, undefined],
      ['Ab', false, true],
      ['ab', false, undefined],
    ]);
    check('x[!a]y\n', [['x/y', false, undefined]]);
    // A range that ends before it starts holds its first byte alone; an unclosed class or an unknown name matches nothing.
    check('[z-a]\nx[\n[[:nope:]]q\n', [
      ['z', false, true],
      ['a', false, undefined],
      ['m', false, undefined],
      ['x[', false, undefined],
      ['q', false, undefined],
    ]);
  });

  test('names are matched as UTF-8 bytes, as git matches them', () => {
    check('?.md\né*.txt\n', [
      ['e.md', false, true],
      // Two bytes: one ? is not enough.
      ['é.md', false, undefined],
      ['été.txt', false, true],
    ]);
  });

  test('a line that cannot be used is reported with its number; the others apply', () => {
    const ignore = new GitIgnore(`dist/\n${'x'.repeat(1001)}\n*.gen.ts\n`);
    assert.deepEqual(ignore.problems, [{ line: 2, reason: 'the pattern is longer than 1000 characters' }]);
    assert.equal(ignore.verdict('dist', true), true);
    assert.equal(ignore.verdict('a.gen.ts', false), true);
  });
});

describe('the project index with a .gitignore git accepts', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  function write(root: string, path: string, text: string): void {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }

  test('[z-a] and an unusable line cost only their own line: the other lines keep ignoring', async () => {
    const dir = tempFolder('10xgraph-gitignore-');
    dirs.push(dir);
    write(dir, '.gitignore', `[z-a]\ngenerated/\n${'y'.repeat(1001)}\n*.gen.ts\n`);
    write(dir, 'generated/handlers.ts', "client.registerToolHandler('generated', () => 1);\n");
    write(dir, 'x.gen.ts', "client.registerToolHandler('gen', () => 1);\n");
    write(dir, 'keep.ts', "client.registerToolHandler('kept', () => 1);\n");
    const logs: string[] = [];
    const index = new ProjectIndex({ log: (m) => logs.push(m), changed: () => undefined });
    await index.setRoots([{ path: dir, files: [], exclude: [] }]);
    const names = [...index.all()].flatMap((f) => f.source?.handlers.map((h) => h.name) ?? []);
    assert.deepEqual(names, ['kept']);
    assert.ok(logs.includes(`10xgraph: line 3 of ${join(dir, '.gitignore')} is not used: the pattern is longer than 1000 characters.`), logs.join('\n'));
  });
});
