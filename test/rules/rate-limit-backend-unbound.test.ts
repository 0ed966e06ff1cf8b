// rate-limit-backend-unbound: the redis backend has no URL, or the custom backend no InjectQ
// container to come from. A warning on the backend value: the graph may bind one itself.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configWith, expectNone, expectProblems } from './helpers';

const CODE = 'rate-limit-backend-unbound';

describe('rate-limit-backend-unbound', () => {
  test('"backend": "redis" without redis is a warning on the backend, saying what to set', () => {
    const { problems } = expectProblems(configWith('"rate_limit": {"backend": ⟦"redis"⟧}'), CODE, {
      only: true,
      messages: ['"redis" backend has no URL', '"rate_limit.redis"', 'injectq'],
    });
    assert.equal(problems[0].fixes, undefined);
  });

  test('an empty or null redis, or a redis object without a url, is no URL', () => {
    for (const redis of ['""', 'null', '{}', '{"url": "", "prefix": "p"}']) {
      expectProblems(configWith(`"rate_limit": {"backend": ⟦"redis"⟧, "redis": ${redis}}`), CODE, { only: true });
    }
  });

  test('a URL, written out or from a variable, binds it', () => {
    expectNone(configWith('"rate_limit": {"backend": "redis", "redis": "redis://localhost:6379/0"}'), CODE);
    expectNone(configWith('"rate_limit": {"backend": "redis", "redis": {"url": "redis://localhost:6379/0"}}'), CODE);
    expectNone(configWith('"rate_limit": {"backend": "redis", "redis": "${REDIS_URL}"}'), CODE);
  });

  test('"backend": "custom" needs an injectq container', () => {
    expectProblems(configWith('"rate_limit": {"backend": ⟦"custom"⟧}'), CODE, { only: true, messages: ['"custom"', 'InjectQ', '"injectq"'] });
    expectNone(configWith('"injectq": "graph.deps:container", "rate_limit": {"backend": "custom"}'), CODE);
    expectProblems(configWith('"injectq": "", "rate_limit": {"backend": ⟦"custom"⟧}'), CODE);
  });

  test('the memory backend and an unknown backend are not judged here', () => {
    expectNone(configWith('"rate_limit": {"backend": "memory"}'), CODE);
    expectNone(configWith('"rate_limit": {"backend": "Redis"}'), CODE);
    expectNone(configWith('"rate_limit": {}'), CODE);
  });
});
