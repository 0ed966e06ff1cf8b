// setting-not-applied: a setting the server does not apply as written: checkpointer (never read;
// the warning covers the key) and a $VAR in the top-level redis (used as written; covers the value).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configWith, expectNone, expectProblems } from './helpers';

const CODE = 'setting-not-applied';

describe('setting-not-applied', () => {
  test('a checkpointer is a warning on its key saying where the checkpointer goes', () => {
    const { problems } = expectProblems(configWith('⟦"checkpointer"⟧: "graph.cp:saver"'), CODE, { only: true, messages: ['"checkpointer"', 'not applied', 'graph.compile()'] });
    assert.equal(problems[0].fixes, undefined);
  });

  test('an empty checkpointer is unset', () => {
    for (const value of ['""', 'null', 'false']) expectNone(configWith(`"checkpointer": ${value}`), CODE);
  });

  test('a $VAR in the top-level redis is a warning on the value: it is not expanded there', () => {
    expectProblems(configWith('"redis": ⟦"${REDIS_URL}"⟧'), CODE, { only: true, messages: ['"redis"', 'as written', '"rate_limit.redis"', 'REDIS_URL'] });
    expectProblems(configWith('"redis": ⟦"redis://$HOST:6379/0"⟧'), CODE);
  });

  test('a plain top-level redis URL, an empty one, or a $VAR in rate_limit.redis is fine', () => {
    for (const value of ['"redis://localhost:6379/0"', '""', 'null']) expectNone(configWith(`"redis": ${value}`), CODE);
    expectNone(configWith('"rate_limit": {"backend": "redis", "redis": "${REDIS_URL}"}'), CODE);
  });
});
