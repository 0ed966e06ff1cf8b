// rate-limit-per-process: limits are on with the memory backend (the default), which counts per
// server process. The warning covers the backend value, or the rate_limit key when none is given.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configWith, expectNone, expectProblems } from './helpers';

const CODE = 'rate-limit-per-process';

describe('rate-limit-per-process', () => {
  test('"backend": "memory" is a warning on the value, saying what N workers do and what to use', () => {
    const { problems } = expectProblems(configWith('"rate_limit": {"backend": ⟦"memory"⟧}'), CODE, {
      only: true,
      messages: ['"memory"', 'per process', 'N workers', '"backend": "redis"'],
    });
    assert.equal(problems[0].fixes, undefined);
  });

  test('without a backend the default is memory: the warning covers the rate_limit key', () => {
    expectProblems(configWith('⟦"rate_limit"⟧: {}'), CODE, { only: true });
    expectProblems(configWith('⟦"rate_limit"⟧: {"requests": "100", "enabled": "YES"}'), CODE, { only: true });
  });

  test('limits that are off are not counted at all', () => {
    for (const enabled of ['false', '" off "', '"0"', '"No"']) expectNone(configWith(`"rate_limit": {"enabled": ${enabled}}`), CODE);
    expectNone(configWith('"rate_limit": null'), CODE);
  });

  test('an "enabled" the server refuses is setting-wrong-type only', () => {
    expectNone(configWith('"rate_limit": {"enabled": "maybe"}'), CODE);
  });

  test('the redis and custom backends share their counts', () => {
    expectNone(configWith('"rate_limit": {"backend": "redis", "redis": "redis://localhost:6379/0"}'), CODE);
    expectNone(configWith('"injectq": "graph.deps:container", "rate_limit": {"backend": "custom"}'), CODE);
  });
});
