// setting-invalid: a setting the server reads after start-up (websocket on each handshake, the
// tracing set-up, authorization.isolation, the top-level redis) or that only a CLI command reads
// (test, evaluation) holds a value that use refuses or misreads. The server starts, so it is a
// warning, never an error; the problem covers the value.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFix, codesIn, configWith, expectClean, expectNone, expectProblems } from './helpers';

const CODE = 'setting-invalid';
const TRACED = '"logfire": {"enabled": true}';

describe('setting-invalid', () => {
  test('a negative websocket limit is a warning on the value: the server starts, the handshakes refuse it', () => {
    const { problems } = expectProblems(configWith('"websocket": {"max_connections": ⟦-1⟧}'), CODE, {
      only: true,
      messages: ['"websocket.max_connections"', '0 or more', 'not -1', 'server starts', 'every WebSocket handshake'],
    });
    assert.equal(problems[0].fixes, undefined);
  });

  test('websocket limits: 0, null and false are no limit; numbers and numeric strings are read by int()', () => {
    for (const value of ['0', 'null', 'false', '1000', '"20"', '1.5', 'true'])
      expectNone(configWith(`"websocket": {"max_connections": ${value}, "max_connections_per_user": ${value}}`), CODE);
    expectProblems(configWith('"websocket": {"max_connections_per_user": ⟦"-3"⟧}'), CODE, { messages: ['read as -3'] });
    expectProblems(configWith('"websocket": {"max_connections": ⟦"x"⟧}'), CODE, { messages: ['a non-negative integer', 'a string'] });
  });

  test('websocket itself, and its realtime_models, have their types', () => {
    expectProblems(configWith('"websocket": ⟦"x"⟧'), CODE, { only: true, messages: ['"websocket"', 'an object'] });
    expectProblems(configWith('"websocket": {"realtime_models": ⟦["gpt-realtime", 1]⟧}'), CODE, { messages: ['a list of strings'] });
    expectNone(configWith('"websocket": null'), CODE);
    expectNone(configWith('"websocket": {"realtime_models": null}'), CODE);
  });

  test('an observability level is compared lower-cased: "FULL" is accepted, "loud" falls back to "standard"', () => {
    expectNone(configWith(`"observability": {"level": "FULL", ${TRACED}}`), CODE);
    const { problems } = expectProblems(configWith(`"observability": {"level": ⟦"loud"⟧, ${TRACED}}`), CODE, {
      only: true,
      messages: ['"observability.level"', '"spans", "standard", "full"', 'the tracing set-up falls back to "standard"'],
    });
    assert.equal(problems[0].fixes, undefined);
    for (const value of ['5', 'null']) expectProblems(configWith(`"observability": {"level": ⟦${value}⟧, ${TRACED}}`), CODE);
  });

  test('a level close to a known one gets a safe fix', () => {
    const { text, problems } = expectProblems(configWith(`"observability": {"level": ⟦"ful"⟧, ${TRACED}}`), CODE, { messages: ['Did you mean "full"?'] });
    assert.equal(problems[0].fixes![0].safe, true);
    expectClean(checkFix(text, problems[0]));
  });

  test('logfire "enabled": "false" turns tracing on (Python bool() of a non-empty string): a safe fix writes false', () => {
    const { text, problems } = expectProblems(configWith('"observability": {"logfire": {"enabled": ⟦"false"⟧}}'), CODE, {
      only: true,
      messages: ['"observability.logfire.enabled"', 'the string "false"', 'reads as on', 'write false'],
    });
    const [fix] = problems[0].fixes!;
    assert.equal(fix.title, 'Change to false');
    assert.equal(fix.safe, true);
    assert.equal(fix.isPreferred, true);
    const fixed = checkFix(text, problems[0]);
    assert.equal(fixed, configWith('"observability": {"logfire": {"enabled": false}}'));
    // Now nothing is traced, which is what the file meant.
    assert.deepEqual(codesIn(fixed), ['nothing-traced']);
  });

  test('every false word is misread the same way, in langsmith too; true words and real booleans are fine', () => {
    expectProblems(configWith('"observability": {"logfire": {"enabled": ⟦"no"⟧}, "langsmith": {"enabled": ⟦" OFF "⟧}}'), CODE);
    expectNone(configWith('"observability": {"logfire": {"enabled": "yes"}, "langsmith": {"enabled": 1}}'), CODE);
  });

  test('a tracing field of the wrong type is a warning: the tracing set-up reads it after start-up', () => {
    expectProblems(configWith('"observability": {"logfire": {"enabled": true, "service_name": ⟦5⟧}}'), CODE, { messages: ['"observability.logfire.service_name"', 'a string'] });
  });

  test('test and evaluation faults are warnings, never errors: only `10xgraph test` and `10xgraph eval` read them', () => {
    const marked = configWith(
      '"test": {"coverage": ⟦"yes"⟧, "path": ⟦5⟧, "coverage_threshold": ⟦150⟧}, "evaluation": {"threshold": ⟦1.5⟧, "max_concurrency": ⟦0⟧, "parallel": ⟦1⟧, "directory": ⟦5⟧}',
    );
    const { problems } = expectProblems(marked, CODE, { only: true });
    assert.ok(problems.slice(0, 3).every((p) => p.message.includes('`10xgraph test`')));
    assert.ok(problems.slice(3).every((p) => p.message.includes('`10xgraph eval`')));
    expectProblems(configWith('"test": ⟦"x"⟧'), CODE, { only: true });
  });

  test('coverage_threshold 5.0 is refused: Python json reads it as a float, not a whole number', () => {
    expectProblems(configWith('"test": {"coverage_threshold": ⟦5.0⟧}'), CODE, { messages: ['"test.coverage_threshold"', 'a whole number'] });
    expectProblems(configWith('"test": {"coverage_threshold": ⟦"50"⟧}'), CODE);
    expectProblems(configWith('"evaluation": {"max_concurrency": ⟦2.0⟧}'), CODE);
    expectNone(configWith('"test": {"coverage": true, "coverage_threshold": 50}, "evaluation": {"threshold": 0.5, "max_concurrency": 4, "parallel": true}'), CODE);
    expectNone(configWith('"test": {"coverage_threshold": null}, "evaluation": {"threshold": null, "max_concurrency": null}'), CODE);
  });

  test('an RBAC isolation other than owner or none is a warning (the server reads it as "owner")', () => {
    expectProblems(configWith('"authorization": {"backend": "rbac", "roles": {"admin": ["*"]}, "isolation": ⟦"team"⟧}'), CODE, {
      only: true,
      messages: ['"authorization.isolation"', '"owner", "none"', 'reads it as "owner"'],
    });
  });

  test('a top-level redis that is not a string is a warning; empty or null means unset', () => {
    expectProblems(configWith('"redis": ⟦5⟧'), CODE, { only: true, messages: ['"redis"', 'a string', 'falls back to its in-process cache'] });
    for (const value of ['""', 'null', '"redis://localhost:6379/0"']) expectNone(configWith(`"redis": ${value}`), CODE);
  });

  test('a checkpointer that is no import path is not judged: the server never reads it (setting-not-applied says so)', () => {
    expectNone(configWith('"checkpointer": "graph/cp:saver"'), CODE);
  });

  test('start-up settings are errors of their own, never this warning', () => {
    assert.ok(!codesIn(configWith('"rate_limit": {"requests": "x", "by": "IP"}, "ag_ui": {"enabled": "maybe"}')).includes(CODE));
  });
});
