// handler-missing: information on a remote tool's name when no source of the project registers a handler for it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeConfig, auditProjectConfig, configSummaryOf, type ProjectFacts } from '../../runtime/src/rules';
import { config, tool, unmark } from './helpers';

const CODE = 'handler-missing';

function project(handled: string[], extra: Partial<ProjectFacts> = {}): ProjectFacts {
  return { complete: true, handled: new Set(handled), computedHandlers: 0, declared: new Set(), ...extra };
}

function missing(marked: string, facts: ProjectFacts, covered = true) {
  const { text, ranges } = unmark(marked);
  const summary = configSummaryOf(analyzeConfig(text))!;
  const problems = auditProjectConfig({ config: summary, project: facts, covered }).filter((p) => p.code === CODE);
  return { text, ranges, problems };
}

describe('handler-missing', () => {
  test('a tool no source handles is information on its name, naming the call to add', () => {
    const { ranges, problems } = missing(config(tool({ name: '"read_clipboard"' }), tool({ name: '⟦"search_notes"⟧' })), project(['read_clipboard']));
    assert.deepEqual(
      problems.map((p) => ({ offset: p.offset, length: p.length })),
      ranges,
    );
    assert.equal(problems[0].severity, 'information');
    assert.match(
      problems[0].message,
      /registers a handler for 'search_notes' \(with registerToolHandler or registerTool\).*client\.registerToolHandler\('search_notes', …\) or client\.registerTool\(\{ name: 'search_notes', handler \}\)/,
    );
  });

  test('nothing is judged while the project is not fully read, when no source handles anything, or when a handler name is computed', () => {
    const text = config(tool({ name: '"search_notes"' }));
    assert.deepEqual(missing(text, project(['x'], { complete: false })).problems, []);
    assert.deepEqual(missing(text, project([])).problems, []);
    assert.deepEqual(missing(text, project(['x'], { computedHandlers: 1 })).problems, []);
    assert.deepEqual(missing(text, project(['x']), false).problems, []);
  });

  test('a blank name is left to blank-field', () => {
    assert.deepEqual(missing(config(tool({ name: '"  "' })), project(['x'])).problems, []);
  });
});
