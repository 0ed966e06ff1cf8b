/**
 * The command line as every command reads it (runtime/src/cli/args.ts, node:util's parseArgs
 * underneath), and the sentence of a missing optional peer (runtime/src/peers.ts).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readArgs, UsageError, type OptionSpecs } from '../../runtime/src/cli/args';
import { installCommand, isMissingPeer, loadPeer, MissingPeerError } from '../../runtime/src/peers';

const OPTIONS: OptionSpecs = {
  help: { type: 'boolean', short: 'h' },
  fix: { type: 'boolean' },
  out: { type: 'string' },
  project: { type: 'boolean', optionalValue: true },
};

/** Each word read, as `[flag, value]`. */
function read(argv: string[]): Array<[string, string]> {
  return [...readArgs(argv, OPTIONS)].map((arg) => [arg.flag, arg.value()]);
}

describe('readArgs', () => {
  test('options and positionals in order; a value given with = or as the next word, whatever it is', () => {
    assert.deepEqual(read(['-h', 'a.json', '--out=x.ts', '--fix', '--out', '-1', '-', '--', '--fix']), [
      ['-h', ''],
      ['a.json', ''],
      ['--out', 'x.ts'],
      ['--fix', ''],
      ['--out', '-1'],
      ['-', ''],
      ['--fix', ''],
    ]);
    assert.deepEqual(read(['--project', 'dir', '--project=there']), [
      ['--project', ''],
      ['dir', ''],
      ['--project', 'there'],
    ]);
  });

  test("the CLI's sentences for a bad word, where it stands: nothing after it is read", () => {
    const cases: Array<[string[], string]> = [
      [['--frobnicate'], "unknown option '--frobnicate'."],
      [['-x'], "unknown option '-x'."],
      [['--h'], "unknown option '--h'."],
      [['--constructor'], "unknown option '--constructor'."],
      [['--out'], '--out needs a value.'],
      [['--fix=yes'], '--fix takes no value.'],
    ];
    for (const [argv, message] of cases)
      assert.throws(
        () => read(argv),
        (error: unknown) => error instanceof UsageError && error.message === message,
        argv.join(' '),
      );
    const seen: string[] = [];
    for (const arg of readArgs(['--help', '--frobnicate'], OPTIONS)) {
      seen.push(arg.flag);
      break;
    }
    assert.deepEqual(seen, ['--help']);
  });
});

describe('optional peers', () => {
  test('a missing peer says what needs it and the command that installs it', () => {
    assert.equal(installCommand(['pg']), 'npm install pg');
    assert.equal(installCommand(['json-schema-to-typescript', 'esbuild']), 'npm install --save-dev json-schema-to-typescript esbuild');
    assert.throws(
      () => loadPeer('pg', 'threads in PostgreSQL need the package pg', () => require('10xgraph-no-such-package/pg')),
      (error: unknown) => !(error instanceof MissingPeerError),
      "another package's absence keeps its own error",
    );
    const missing = Object.assign(new Error("Cannot find module 'pg'\nRequire stack:\n- /x.js"), { code: 'MODULE_NOT_FOUND' });
    assert.throws(
      () =>
        loadPeer('pg', 'threads in PostgreSQL need the package pg', () => {
          throw missing;
        }),
      { name: 'MissingPeerError', message: 'threads in PostgreSQL need the package pg: npm install pg' },
    );
    assert.equal(isMissingPeer(Object.assign(new Error("Cannot find module 'pg-protocol'"), { code: 'MODULE_NOT_FOUND' }), 'pg'), false);
    assert.equal(isMissingPeer(Object.assign(new Error("Cannot find package 'esbuild' imported from /x.mjs"), { code: 'ERR_MODULE_NOT_FOUND' }), 'esbuild'), true);
    assert.equal(isMissingPeer(Object.assign(new Error("Cannot find module 'esbuild/package.json'"), { code: 'MODULE_NOT_FOUND' }), 'esbuild'), true);
  });
});
