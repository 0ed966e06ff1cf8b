// setting-out-of-range: a number the server reads at start-up is outside what it accepts, after
// Python's int() has read it (0.5 is 0, false is 0, "-5" is -5). The problem covers the value.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { codesIn, configWith, expectNone, expectProblems } from './helpers';

const CODE = 'setting-out-of-range';

describe('setting-out-of-range', () => {
  test('requests 0 is an error on the value, naming the field and the bound', () => {
    const { problems } = expectProblems(configWith('"rate_limit": {"requests": ⟦0⟧}'), CODE, { messages: ['"rate_limit.requests"', 'at least 1', 'not 0', 'does not start'] });
    assert.ok(!problems[0].message.includes('read as'), 'a value read as itself says nothing of a reading');
    assert.equal(problems[0].fixes, undefined);
  });

  test('0.5 is refused as the 0 Python int() makes of it, and the message says so', () => {
    expectProblems(configWith('"rate_limit": {"requests": ⟦0.5⟧}'), CODE, { messages: ['not 0.5', 'read as 0'] });
  });

  test('false is int() 0 and refused; true is 1 and accepted', () => {
    expectProblems(configWith('"rate_limit": {"requests": ⟦false⟧}'), CODE, { messages: ['read as 0'] });
    expectNone(configWith('"rate_limit": {"requests": true}'), CODE);
  });

  test('a negative numeric string is refused by its number', () => {
    expectProblems(configWith('"rate_limit": {"window": ⟦"-5"⟧}'), CODE, { messages: ['"rate_limit.window"', 'read as -5'] });
  });

  test('window and trusted_proxy_hops are at least 1, judged even with "enabled": false', () => {
    expectProblems(configWith('"rate_limit": {"enabled": false, "window": ⟦-5⟧, "trusted_proxy_hops": ⟦0⟧}'), CODE, { messages: ['at least 1'] });
  });

  test('the smallest accepted values, and large ones, are fine', () => {
    expectNone(configWith('"rate_limit": {"requests": 1, "window": "1", "trusted_proxy_hops": 1.9, "requests": 1000000}'), CODE);
    expectNone(configWith(`"rate_limit": {"requests": "${'9'.repeat(400)}"}`), CODE);
  });

  test('a value of the wrong type is setting-wrong-type only', () => {
    assert.ok(!codesIn(configWith('"rate_limit": {"requests": "-5.5"}')).includes(CODE));
    assert.ok(codesIn(configWith('"rate_limit": {"requests": "-5.5"}')).includes('setting-wrong-type'));
  });

  test('a websocket limit read on each handshake is setting-invalid, not this error', () => {
    const codes = codesIn(configWith('"websocket": {"max_connections": -1}'));
    assert.deepEqual(codes, ['setting-invalid']);
  });

  test('a repeated number is judged by its last value', () => {
    expectNone(configWith('"rate_limit": {"requests": 0, "requests": 5}'), CODE);
  });
});
