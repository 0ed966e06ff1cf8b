// The dotenv reader `10xgraph api` loads its env file with, and whose names the editor and audit
// judge by: one parser, read as python-dotenv reads a file, in one linear pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dotenvValues, envNamesOf } from '../../runtime/src/workspace/dotenv';

test('bare, single- and double-quoted values, comments, export, and a later binding winning', () => {
  const text = [
    '# a comment',
    'A=plain # cut here',
    'B=no#cut',
    "export C='lit ${A} \\' kept'",
    'D="two\\nlines \\"quoted\\" ${A}"',
    'E="over',
    'lines" # comment',
    'EMPTY=',
    'A=again',
    'F=${A}-${UNSET}-${FROM_ENV}',
  ].join('\n');
  const values = dotenvValues(text, { FROM_ENV: 'env' });
  assert.deepEqual(Object.fromEntries(values), {
    A: 'again',
    B: 'no#cut',
    C: "lit ${A} ' kept",
    D: 'two\nlines "quoted" plain',
    E: 'over\nlines',
    EMPTY: '',
    F: 'again--env',
  });
  assert.deepEqual([...envNamesOf(text)].sort(), ['A', 'B', 'C', 'D', 'E', 'F']);
});

test('an unclosed quote, or text after a closing quote, skips that binding to the end of the line it reached', () => {
  const values = dotenvValues('A="never closed\nB=2\n');
  assert.deepEqual(Object.fromEntries(values), { B: '2' });
  const after = dotenvValues('C="x" y\nD=4\n');
  assert.deepEqual(Object.fromEntries(after), { D: '4' });
});

test('hostile text is read in linear time', () => {
  const text = 'A="' + 'x\n'.repeat(100_000) + '\n' + 'B=' + ' #'.repeat(100_000);
  const started = process.hrtime.bigint();
  const names = envNamesOf(text);
  assert.deepEqual([...names], ['B']);
  // Linear: a quadratic reader of this text takes minutes; this bound only catches that.
  assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 5_000);
});
