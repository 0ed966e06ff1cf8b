// handler-undeclared: information on a registerToolHandler name no config of the project declares, with the closest names as fixes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEdits, auditProjectSource, type ProjectFacts } from '../../runtime/src/rules';
import { analyzeSource } from '../../runtime/src/workspace/sourceAnalysis';
import { unmark } from './helpers';

const CODE = 'handler-undeclared';

function project(declared: string[], extra: Partial<ProjectFacts> = {}): ProjectFacts {
  return { complete: true, handled: new Set(), computedHandlers: 0, declared: new Set(declared), ...extra };
}

function undeclared(marked: string, facts: ProjectFacts) {
  const { text, ranges } = unmark(marked);
  const problems = auditProjectSource({ handlers: analyzeSource(text).handlers, project: facts }).filter((p) => p.code === CODE);
  return { text, ranges, problems };
}

describe('handler-undeclared', () => {
  test('a handler for a name no config declares is information on the name, with the closest declared names as fixes', () => {
    const { text, ranges, problems } = undeclared(
      "client.registerToolHandler('read_clipboard', h);\nclient.registerToolHandler(⟦'read_clipbord'⟧, h);\n",
      project(['read_clipboard', 'search_notes']),
    );
    assert.deepEqual(
      problems.map((p) => ({ offset: p.offset, length: p.length })),
      ranges,
    );
    assert.equal(problems[0].severity, 'information');
    assert.match(problems[0].message, /declares a remote tool named 'read_clipbord'.*did you mean 'read_clipboard'\?/);
    const fix = problems[0].fixes![0];
    assert.equal(fix.title, "Change to 'read_clipboard'");
    assert.equal(fix.isPreferred, true);
    assert.equal(applyEdits(text, fix.edits).split('\n')[1], "client.registerToolHandler('read_clipboard', h);");
  });

  test('a name written with escapes gets no fix, and a computed name is not judged', () => {
    const { problems } = undeclared("c.registerToolHandler('a\\u0062', h);\nc.registerToolHandler(name, h);", project(['read_clipboard']));
    assert.equal(problems.length, 1);
    assert.equal(problems[0].fixes, undefined);
    assert.match(problems[0].message, /named 'ab', so the server never hands this handler a call\.$/);
  });

  test('nothing is judged until every config was read, or when the project declares no tool', () => {
    const text = "c.registerToolHandler('x', h);";
    assert.deepEqual(undeclared(text, project(['y'], { complete: false })).problems, []);
    assert.deepEqual(undeclared(text, project([])).problems, []);
  });
});
