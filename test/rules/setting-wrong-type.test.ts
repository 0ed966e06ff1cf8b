// setting-wrong-type: a setting the server reads at start-up holds a value of a type it refuses
// (as Python reads it: `int()` takes "100", the boolean words take "YES" and " off "). The
// problem covers the value; a setting read later is setting-invalid instead.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { codesIn, configWith, expectNone, expectProblems } from './helpers';

const CODE = 'setting-wrong-type';

describe('setting-wrong-type', () => {
  test('a rate limit of requests that Python int() refuses is an error on the value, naming the field and what it must be', () => {
    const { problems } = expectProblems(configWith('"rate_limit": {"requests": ⟦"5.5"⟧}'), CODE, {
      messages: ['"rate_limit.requests"', 'an integer', 'a string', 'does not start'],
    });
    assert.equal(problems[0].fixes, undefined);
  });

  for (const [what, value] of [
    ['a numeric string', '"100"'],
    ['a numeric string with underscores', '"1_000"'],
    ['a numeric string with white space and a sign', '" +100 "'],
    ['true (int(True) is 1)', 'true'],
    ['a float Python truncates', '100.7'],
    ['an exponent (a float to Python)', '1e2'],
  ] as const) {
    test(`requests given as ${what} is accepted`, () => {
      expectNone(configWith(`"rate_limit": {"requests": ${value}}`), CODE);
    });
  }

  for (const value of ['"1__000"', '"0x10"', '"ten"', 'null', '[100]', '{}']) {
    test(`requests ${value} is refused`, () => {
      expectProblems(configWith(`"rate_limit": {"requests": ⟦${value}⟧}`), CODE, { messages: ['"rate_limit.requests"'] });
    });
  }

  test('the boolean words are accepted in any case and with white space; other strings, numbers and null are refused', () => {
    for (const value of ['true', 'false', '"YES"', '" off "', '"1"', '"On"', '"no"']) expectNone(configWith(`"rate_limit": {"enabled": ${value}}`), CODE);
    for (const value of ['"maybe"', '"y"', '1', 'null', '""']) {
      expectProblems(configWith(`"rate_limit": {"enabled": ⟦${value}⟧}`), CODE, { messages: ['"rate_limit.enabled"', 'a boolean', '"yes"'] });
    }
  });

  test('every field of rate_limit is judged, even with "enabled": false', () => {
    expectProblems(
      configWith('"rate_limit": {"enabled": false, "window": ⟦"a minute"⟧, "exclude_paths": ⟦"/ping"⟧, "trusted_proxies": ⟦"10.0.0.0/8"⟧, "fail_open": ⟦"sometimes"⟧}'),
      CODE,
    );
  });

  test('rate_limit absent or null is off; {} is on with the defaults; any other value is refused', () => {
    expectNone(configWith('"rate_limit": null'), CODE);
    expectNone(configWith('"rate_limit": {}'), CODE);
    for (const value of ['"on"', 'true', '[]', '5']) expectProblems(configWith(`"rate_limit": ⟦${value}⟧`), CODE, { messages: ['"rate_limit"', 'an object'] });
  });

  test('rate_limit.redis is a URL string or an object; empty or null means none', () => {
    for (const value of ['""', 'null', '"redis://localhost:6379/0"', '{"url": "redis://h", "prefix": "p"}']) expectNone(configWith(`"rate_limit": {"redis": ${value}}`), CODE);
    expectProblems(configWith('"rate_limit": {"redis": ⟦5⟧}'), CODE, { messages: ['"rate_limit.redis"', 'a Redis URL'] });
    expectProblems(configWith('"rate_limit": {"redis": {"url": ⟦5⟧}}'), CODE, { messages: ['"rate_limit.redis.url"', 'a string'] });
  });

  test('ag_ui switches take the boolean words only', () => {
    expectNone(configWith('"ag_ui": {"enabled": "ON", "allow_client_tools": "false"}'), CODE);
    expectProblems(configWith('"ag_ui": {"enabled": true, "allow_client_tools": ⟦1⟧}'), CODE, { messages: ['"ag_ui.allow_client_tools"', 'a number'] });
    expectProblems(configWith('"ag_ui": ⟦5⟧'), CODE, { messages: ['"ag_ui"'] });
  });

  test('observability that is not an object, or a logfire or langsmith block that is not one, stops the server', () => {
    expectProblems(configWith('"observability": ⟦"x"⟧'), CODE, { only: true, messages: ['"observability"', 'an object', 'a string'] });
    expectProblems(configWith('"observability": {"logfire": ⟦"x"⟧, "langsmith": ⟦[1]⟧}'), CODE, { messages: ['must be an object'] });
    expectNone(configWith('"observability": {"logfire": null, "langsmith": {"enabled": true}}'), CODE);
  });

  test('env, the import paths and default_scopes must be strings (or a list of them); empty means unset', () => {
    expectProblems(configWith('"env": ⟦5⟧, "injectq": ⟦5⟧, "store": ⟦true⟧, "thread_name_generator": ⟦["a:b"]⟧'), CODE);
    expectNone(configWith('"env": null, "injectq": "", "store": null, "thread_name_generator": false'), CODE);
    expectProblems(configWith('"authorization": {"backend": "rbac", "roles": {"admin": ["*"]}, "default_scopes": ⟦"graph:read"⟧}'), CODE, {
      messages: ['"authorization.default_scopes"', 'a list of strings'],
    });
    expectProblems(configWith('"authorization": {"backend": "rbac", "roles": {"admin": ["*"]}, "default_scopes": ⟦["a", 1]⟧}'), CODE, {
      messages: ['an item that is not a string'],
    });
  });

  test('authorization is a string or an RBAC object; a number is refused, an empty value is unset', () => {
    expectProblems(configWith('"authorization": ⟦5⟧'), CODE, { only: true, messages: ['"authorization"'] });
    for (const value of ['""', 'null', '[]', '{}', 'false']) expectNone(configWith(`"authorization": ${value}`), CODE);
  });

  test('settings read after start-up are never this error: websocket, test and evaluation are setting-invalid', () => {
    const text = configWith('"websocket": {"max_connections": "x"}, "test": {"coverage": "yes"}, "evaluation": {"parallel": 1}, "redis": 5');
    assert.deepEqual(codesIn(text), ['setting-invalid', 'setting-invalid', 'setting-invalid', 'setting-invalid']);
  });

  test('a repeated setting is judged by its last value', () => {
    expectNone(configWith('"rate_limit": {"requests": "x", "requests": 5}'), CODE);
    expectProblems(configWith('"rate_limit": {"requests": 5, "requests": ⟦"x"⟧}'), CODE);
    expectNone(configWith('"rate_limit": "on", "rate_limit": null'), CODE);
  });

  test('a key the server does not read is unknown-key, not judged here', () => {
    expectNone(configWith('"rate_limit": {"reqests": "x"}'), CODE);
  });
});
