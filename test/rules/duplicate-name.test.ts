// duplicate-name: each remote tool name is used once; the later use is the error, with
// related information at the first and a fix to the first free name_2, name_3, …
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditConfig } from '../../runtime/src/rules';
import { checkFix, config, expectClean, expectNone, expectProblems, textAt, tool } from './helpers';

const CODE = 'duplicate-name';

describe('duplicate-name', () => {
  test('a name used twice: the later value is the error, pointing at the first', () => {
    const { text, problems } = expectProblems(config(tool(), tool({ name: '⟦"read_clipboard"⟧' })), CODE, {
      only: true,
      messages: ["'read_clipboard'", 'remote_tools[1]', 'read_clipboard_2'],
    });
    const [p] = problems;
    assert.equal(p.related?.length, 1);
    assert.equal(p.related![0].offset, text.indexOf('"read_clipboard"'));
    assert.equal(textAt(text, p.related![0]), '"read_clipboard"');
    assert.equal(p.fixes![0].isPreferred, true);
    const fixed = checkFix(text, p);
    assert.equal(fixed, config(tool(), tool({ name: '"read_clipboard_2"' })));
    expectClean(fixed);
  });

  test('a name used three times: two problems, both pointing at the first, with distinct new names', () => {
    const { text, problems } = expectProblems(config(tool({ name: '"a"' }), tool({ name: '⟦"a"⟧' }), tool({ name: '⟦"a"⟧' })), CODE, { only: true });
    const first = text.indexOf('"a"');
    assert.deepEqual(
      problems.map((p) => p.related![0].offset),
      [first, first],
    );
    assert.deepEqual(
      problems.map((p) => p.fixes![0].edits[0].newText),
      ['"a_2"', '"a_3"'],
    );
    for (const p of problems) checkFix(text, p);
    // Applied one after the other, as a person would, the names end up distinct.
    let current = text;
    for (;;) {
      const next = auditConfig(current).find((p) => p.code === CODE);
      if (!next) break;
      current = checkFix(current, next);
    }
    expectClean(current);
    assert.deepEqual(
      JSON.parse(current).remote_tools.map((t: { name: string }) => t.name),
      ['a', 'a_2', 'a_3'],
    );
  });

  test('the suggested name skips names already taken', () => {
    const { problems } = expectProblems(config(tool({ name: '"a"' }), tool({ name: '"a_2"' }), tool({ name: '⟦"a"⟧' })), CODE);
    assert.equal(problems[0].fixes![0].edits[0].newText, '"a_3"');
  });

  test('names are compared trimmed, as the server trims them: " get_location " repeats "get_location"', () => {
    const { problems } = expectProblems(config(tool({ name: '"get_location"' }), tool({ name: '⟦" get_location "⟧' })), CODE, { messages: ["'get_location'", 'get_location_2'] });
    assert.equal(problems[0].fixes![0].edits[0].newText, '"get_location_2"');
    expectProblems(config(tool({ name: '"\\u0085get_location"' }), tool({ name: '⟦"get_location\\t"⟧' })), CODE);
  });

  test('U+FEFF is not trimmed: a name with it is another name', () => {
    expectNone(config(tool({ name: '"get_location"' }), tool({ name: '"\\ufeffget_location"' })), CODE);
  });

  test('names differing in case, or otherwise, are distinct', () => {
    expectNone(config(tool({ name: '"a"' }), tool({ name: '"A"' }), tool({ name: '"a_"' })), CODE);
  });

  test('names that fail not-a-string or blank-field are not compared', () => {
    expectNone(config(tool({ name: '5' }), tool({ name: '5' })), CODE);
    expectNone(config(tool({ name: '""' }), tool({ name: '""' })), CODE);
  });

  test('a repeated name key is judged by its last value', () => {
    expectNone(config(tool({ name: '"a"' }), tool({ name: '"a", "name": "b"' })), CODE);
    expectProblems(config(tool({ name: '"a"' }), tool({ name: '"b", "name": ⟦"a"⟧' })), CODE);
  });

  test('an escaped name is compared by its value', () => {
    expectProblems(config(tool({ name: '"ab"' }), tool({ name: '⟦"\\u0061b"⟧' })), CODE);
  });
});
