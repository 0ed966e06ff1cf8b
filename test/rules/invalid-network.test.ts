// invalid-network: each item of rate_limit.trusted_proxies is what Python's
// ipaddress.ip_network(item.strip(), strict=False) accepts; the problem covers the item.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configWith, expectNone, expectProblems } from './helpers';

const CODE = 'invalid-network';

describe('invalid-network', () => {
  test('addresses and networks the server accepts, and the ones it refuses, each on its own item', () => {
    const { problems } = expectProblems(
      configWith('"rate_limit": {"trusted_proxies": ["10.0.0.0/8", "::1", "10.0.0.1/255.0.0.0", "fe80::1%eth0", ⟦"010.0.0.1"⟧, ⟦"300.0.0.1"⟧, ⟦5⟧]}'),
      CODE,
      { messages: ['"rate_limit.trusted_proxies"', 'not an IP address or network', 'does not start'] },
    );
    assert.ok(problems[0].message.includes('"010.0.0.1"'));
    assert.ok(problems[2].message.startsWith('5 '));
    assert.equal(problems[0].fixes, undefined);
  });

  for (const value of ['"192.168.1.10"', '" 10.0.0.0/8 "', '"10.0.0.1/24"', '"10.0.0.0/0.0.0.255"', '"2001:db8::/32"', '"::ffff:10.0.0.1"', '"::"']) {
    test(`${value} is accepted`, () => {
      expectNone(configWith(`"rate_limit": {"trusted_proxies": [${value}]}`), CODE);
    });
  }

  for (const value of ['"10.0.0.0/33"', '"10.0.0.0/255.0.255.0"', '"10.0.0"', '"localhost"', '"::1/129"', '"1:2:3:4:5:6:7:8:9"', '""', 'null', '["10.0.0.1"]']) {
    test(`${value} is refused`, () => {
      expectProblems(configWith(`"rate_limit": {"trusted_proxies": [⟦${value}⟧]}`), CODE);
    });
  }

  test('judged even with "enabled": false', () => {
    expectProblems(configWith('"rate_limit": {"enabled": false, "trusted_proxies": [⟦"300.0.0.1"⟧]}'), CODE);
  });

  test('a value that is not a list is setting-wrong-type only', () => {
    expectNone(configWith('"rate_limit": {"trusted_proxies": "300.0.0.1"}'), CODE);
  });
});
