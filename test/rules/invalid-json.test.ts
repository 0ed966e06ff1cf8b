// invalid-json: the server parses 10xgraph.json strictly, so every comment, trailing comma,
// BOM or other syntax error is an error of its own, and nothing else is judged.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeConfig, applySafeFixes, auditConfig } from '../../runtime/src/rules';
import { checkFix, config, expectProblems, problemsAt, textAt, tool, unmark } from './helpers';

const CODE = 'invalid-json';

describe('invalid-json: comments', () => {
  test('a line comment is an error covering the comment, with a safe fix that removes it', () => {
    const { text, problems } = expectProblems('{"agent": "graph:app" ⟦// the graph⟧\n}', CODE, { only: true, messages: ['Comments are not allowed', 'strict JSON'] });
    const [fix] = problems[0].fixes!;
    assert.equal(fix.safe, true);
    assert.equal(fix.isPreferred, true);
    assert.equal(checkFix(text, problems[0]), '{"agent": "graph:app" \n}');
  });

  test('a block comment is an error covering the whole comment, even across lines', () => {
    const { text, problems } = expectProblems('{⟦/* the\n graph */⟧"agent": "graph:app"}', CODE, { only: true });
    assert.equal(checkFix(text, problems[0]), '{"agent": "graph:app"}');
  });

  test('comments before and after the root value are each reported', () => {
    const { text, problems } = expectProblems('⟦/* head */⟧ {"agent": "graph:app"} ⟦// tail⟧', CODE, { only: true });
    assert.equal(problems.length, 2);
    const once = checkFix(text, problems[0], 0, { strict: false });
    assert.equal(auditConfig(once).length, 1);
  });

  test('a comment inside remote_tools covers the comment only, and a line comment stops at a CR line break', () => {
    expectProblems(config(`${tool()} ⟦// first tool⟧\r`), CODE, { only: true });
  });

  test('an unterminated block comment covers the rest of the text', () => {
    const { text, problems } = problemsAt('{"agent": "graph:app"} /* open');
    assert.deepEqual(
      problems.map((p) => [p.code, textAt(text, p)]),
      [[CODE, '/* open']],
    );
  });
});

describe('invalid-json: trailing commas', () => {
  test('a trailing comma in an object covers the comma, with a safe fix that removes it', () => {
    const { text, problems } = expectProblems('{"agent": "graph:app"⟦,⟧\n}', CODE, { only: true, messages: ['Trailing comma'] });
    assert.equal(problems[0].fixes![0].safe, true);
    assert.equal(checkFix(text, problems[0]), '{"agent": "graph:app"\n}');
  });

  test('a trailing comma in an array covers the comma', () => {
    const { text, problems } = expectProblems(`{"agent": "graph:app", "remote_tools": [${tool()}⟦,⟧ ]}`, CODE, { only: true });
    checkFix(text, problems[0]);
  });

  test('a trailing comma in a root array is reported as invalid-json only (the root is not judged)', () => {
    expectProblems('[1, 2⟦,⟧]', CODE, { only: true });
  });

  test('a trailing comma followed by comments is reported, and so is each comment', () => {
    expectProblems('{"agent": "graph:app"⟦,⟧\n  ⟦// c1⟧\n  ⟦/* c2 */⟧\n}', CODE, { only: true });
  });

  test('a doubled comma is one error at the second comma, not a trailing comma', () => {
    const { problems } = expectProblems('{"agent": "graph:app",⟦,⟧ "remote_tools": []}', CODE, { only: true });
    assert.equal(problems[0].fixes, undefined);
  });
});

describe('invalid-json: a text that ends early', () => {
  for (const [name, marked] of [
    ['an object left open', '{"agent": "graph:app"⟦⟧'],
    ['a property without its value', '{"agent": ⟦⟧'],
    ['an array left open', '{"agent": "graph:app", "remote_tools": [1, 2⟦⟧'],
    ['an empty text', '⟦⟧'],
    ['a text of white space only', '  \n\t ⟦⟧'],
  ] as const) {
    test(`${name}: the problem stands at the end of the text`, () => {
      expectProblems(marked, CODE, { only: true });
    });
  }

  for (const text of ['{"agent": "graph:app" /*', '/*', '{"agent": "graph:app", "x": [1 //']) {
    test(`an unterminated comment at the end (${JSON.stringify(text)}): every range stays within the text`, () => {
      const problems = auditConfig(text);
      assert.ok(problems.length >= 1 && problems.every((p) => p.code === CODE));
      for (const p of problems) assert.ok(p.offset + p.length <= text.length, `[${p.offset}, ${p.offset + p.length}) runs past the end (${text.length}): ${p.message}`);
    });
  }

  test('an unterminated string: the last problem reaches the end of the text', () => {
    const { text, problems } = problemsAt('{"agent": "gra');
    assert.ok(problems.length >= 1 && problems.every((p) => p.code === CODE));
    const last = problems[problems.length - 1];
    assert.equal(last.offset + last.length, text.length);
    assert.ok(
      problems.some((p) => textAt(text, p) === '"gra'),
      'the unterminated string is covered',
    );
  });
});

describe('invalid-json: other syntax errors', () => {
  for (const [name, marked] of [
    ['a missing colon', '{"agent" ⟦"graph:app"⟧}'],
    ['a missing comma between members', '{"agent": "graph:app" ⟦"remote_tools"⟧: []}'],
    ['a missing comma between items', '{"agent": "graph:app", "x": [1 ⟦2⟧]}'],
    ['a second root value', '{"agent": "graph:app"} ⟦{⟧"x": 1}'],
    ['a stray closing brace', '{"agent": "graph:app"}⟦}⟧'],
    ['a bad \\u escape', '{"agent": "graph:app", "x": ⟦"\\u12"⟧}'],
    ['an invalid escape', '{"agent": "graph:app", "x": ⟦"a\\qb"⟧}'],
    ['a raw control character in a string', '{"agent": "graph:app", "x": ⟦"a\u0001b"⟧}'],
    ['a number with a trailing dot', '{"agent": "graph:app", "x": ⟦1.⟧}'],
  ] as const) {
    test(`${name} is one error covering the offending token`, () => {
      expectProblems(marked, CODE, { only: true, messages: ['Invalid JSON'] });
    });
  }

  test('a byte order mark is an error covering the mark', () => {
    expectProblems('⟦\uFEFF⟧{"agent": "graph:app"}', CODE, { only: true });
  });

  test('a byte order mark is named as such and has a safe fix that removes it', () => {
    const { text, problems } = expectProblems('⟦\uFEFF⟧{"agent": "graph:app"}', CODE, { only: true });
    assert.match(problems[0].message, /byte order mark/i);
    const fix = problems[0].fixes?.find((f) => f.safe);
    assert.ok(fix, 'a safe fix removes the byte order mark');
    assert.equal(checkFix(text, problems[0], problems[0].fixes!.indexOf(fix)), '{"agent": "graph:app"}');
  });

  test('single quotes are errors, the first covering the single-quoted key', () => {
    const { text, problems } = problemsAt("{'agent': 'graph:app'}");
    assert.ok(problems.every((p) => p.code === CODE));
    assert.equal(textAt(text, problems[0]), "'agent'");
  });

  for (const [name, marked] of [
    ['NaN', '{"agent": "graph:app", "x": ⟦NaN⟧}'],
    ['Infinity', '{"agent": "graph:app", "x": ⟦Infinity⟧}'],
    ['a misspelt literal', '{"agent": "graph:app", "x": ⟦tru⟧}'],
    ['a lone minus sign', '{"agent": "graph:app", "x": ⟦-⟧}'],
  ] as const) {
    test(`${name} as a value is one error covering it, with no follow-on error at the next token`, () => {
      expectProblems(marked, CODE, { only: true });
    });
  }
});

describe('invalid-json: several errors', () => {
  test('one diagnostic per error, each with its own fix', () => {
    const marked = `{⟦// one⟧\n"agent": "graph:app", "remote_tools": [{"node": "TOOL"⟦,⟧}⟦,⟧]⟦,⟧}`;
    const { text, problems } = expectProblems(marked, CODE, { only: true });
    assert.equal(problems.length, 4);
    for (const problem of problems) {
      assert.equal(problem.fixes?.length, 1);
      checkFix(text, problem, 0, { strict: false });
    }
    const fixed = applySafeFixes(text);
    assert.equal(fixed.applied, 4);
    assert.doesNotThrow(() => JSON.parse(fixed.text));
  });

  test('at most 100 are reported by default, and maxSyntaxErrors lowers the bound', () => {
    const text = `[${Array.from({ length: 150 }, () => '[1,]').join(', ')}]`;
    const problems = auditConfig(text);
    assert.equal(problems.length, 100);
    assert.ok(problems.every((p) => p.code === CODE && text[p.offset] === ','));
    assert.equal(auditConfig(text, { maxSyntaxErrors: 5 }).length, 5);
  });
});

describe('invalid-json: nothing else is judged', () => {
  test('a text with a syntax error yields only invalid-json, whatever else is wrong in it', () => {
    const marked = `{"remote_tools": [{"node": "", "name": "a b", "desc": 1, "parameters": []}, {"name": "a b"}⟦,⟧]}`;
    expectProblems(marked, CODE, { only: true });
  });

  test('analyzeConfig gives neither tree nor config for such a text', () => {
    const analysis = analyzeConfig('{"agent": "graph:app",}');
    assert.equal(analysis.tree, undefined);
    assert.equal(analysis.config, undefined);
    assert.deepEqual(
      analysis.problems.map((p) => p.code),
      [CODE],
    );
  });

  test('strict JSON has no invalid-json problem', () => {
    const { text } = unmark(config(tool()));
    assert.deepEqual(
      auditConfig(text).filter((p) => p.code === CODE),
      [],
    );
    assert.deepEqual(
      auditConfig('{"agent": "graph:app", "x": [1.5e3, -0, true, false, null, "\\u00e9\\n"]}').filter((p) => p.code === CODE),
      [],
    );
  });
});

describe('invalid-json: hostile inputs', () => {
  test('100,000 unclosed brackets give problems, never a stack overflow', () => {
    const problems = auditConfig('['.repeat(100_000));
    assert.ok(problems.length >= 1 && problems.every((p) => p.code === CODE));
  });

  test('nesting deeper than the parser allows is one error at the first bracket past the limit', () => {
    const text = `{"agent": "graph:app", "x": ${'['.repeat(1500)}${']'.repeat(1500)}}`;
    const problems = auditConfig(text);
    assert.equal(problems.length, 1);
    assert.equal(problems[0].code, CODE);
    assert.equal(text[problems[0].offset], '[');
  });
});
