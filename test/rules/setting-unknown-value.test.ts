// setting-unknown-value: a setting the server reads at start-up names a value it does not know:
// rate_limit.by and rate_limit.backend (compared exactly), authorization (a built-in name,
// trimmed and lower-cased) and an RBAC backend. A close value gets a safe fix.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEdits } from '../../runtime/src/rules';
import { checkFix, codesIn, configWith, expectNone, expectProblems } from './helpers';

const CODE = 'setting-unknown-value';

describe('setting-unknown-value', () => {
  test('"by": "IP" is refused (the server compares exactly), with a safe fix to "ip"', () => {
    const { text, problems } = expectProblems(configWith('"rate_limit": {"by": ⟦"IP"⟧, "backend": "redis", "redis": "redis://localhost:6379/0"}'), CODE, {
      only: true,
      messages: ['"rate_limit.by"', '"ip", "user", "global"', 'not "IP"', 'does not start', 'Did you mean "ip"?'],
    });
    const [fix] = problems[0].fixes!;
    assert.equal(fix.title, 'Change to "ip"');
    assert.equal(fix.safe, true);
    assert.equal(fix.isPreferred, true);
    assert.equal(checkFix(text, problems[0]), configWith('"rate_limit": {"by": "ip", "backend": "redis", "redis": "redis://localhost:6379/0"}'));
  });

  test('a bad "by" is an error even with "enabled": false', () => {
    expectProblems(configWith('"rate_limit": {"enabled": false, "by": ⟦"usr"⟧}'), CODE, { messages: ['Did you mean "user"?'] });
  });

  test('"by" with white space around it is refused, and the fix trims it', () => {
    const { text, problems } = expectProblems(configWith('"rate_limit": {"enabled": false, "by": ⟦" ip "⟧}'), CODE);
    assert.equal(checkFix(text, problems[0]), configWith('"rate_limit": {"enabled": false, "by": "ip"}'));
  });

  test('"by": null is refused (only the whole rate_limit may be null); a value far from any gets no fix', () => {
    const { problems } = expectProblems(configWith('"rate_limit": {"enabled": false, "by": ⟦null⟧}'), CODE, { messages: ['not null'] });
    assert.equal(problems[0].fixes, undefined);
    const far = expectProblems(configWith('"rate_limit": {"enabled": false, "by": ⟦"tenant"⟧}'), CODE).problems;
    assert.equal(far[0].fixes, undefined);
  });

  test('backend "Redis" is refused with a safe fix to "redis"; memory, redis and custom are known', () => {
    const { problems } = expectProblems(configWith('"rate_limit": {"enabled": false, "backend": ⟦"Redis"⟧}'), CODE, {
      messages: ['"rate_limit.backend"', 'Did you mean "redis"?'],
    });
    assert.equal(problems[0].fixes![0].safe, true);
    for (const backend of ['memory', 'redis', 'custom']) expectNone(configWith(`"rate_limit": {"backend": "${backend}"}`), CODE);
  });

  test('authorization names a built-in backend, trimmed and lower-cased', () => {
    for (const value of ['"ownership"', '" Ownership "', '"ALLOW_ALL"', '"default"', '"none"', '"auth.authz:Backend"']) expectNone(configWith(`"authorization": ${value}`), CODE);
  });

  test('authorization "owner" is refused, naming the built-in names and the other forms', () => {
    expectProblems(configWith('"authorization": ⟦"owner"⟧'), CODE, {
      only: true,
      messages: ['"ownership", "allow_all", "default", "none"', 'not "owner"', 'module:attribute', 'RBAC'],
    });
  });

  test('an RBAC object without a backend is refused on its `{`', () => {
    expectProblems(configWith('"authorization": ⟦{⟧"roles": {"admin": ["*"]}}'), CODE, { only: true, messages: ['"backend": "rbac"'] });
  });

  test('the RBAC backend is rbac, role_based or roles in any case, by "backend" or else by "type"', () => {
    for (const members of ['"backend": "rbac"', '"backend": "RBAC"', '"backend": "role_based"', '"type": "roles"', '"backend": "", "type": "rbac"']) {
      expectNone(configWith(`"authorization": {${members}, "roles": {"admin": ["*"]}}`), CODE);
    }
    const { text, problems } = expectProblems(configWith('"authorization": {"backend": ⟦"rbca"⟧, "roles": {"admin": ["*"]}}'), CODE, {
      only: true,
      messages: ['"authorization.backend"', 'Did you mean "rbac"?'],
    });
    assert.equal(checkFix(text, problems[0]), configWith('"authorization": {"backend": "rbac", "roles": {"admin": ["*"]}}'));
    expectProblems(configWith('"authorization": {"backend": ⟦5⟧, "roles": {"admin": ["*"]}}'), CODE, { messages: ['"authorization.backend"', '"rbac"'] });
  });

  test('an empty authorization ({}, "", null) is unset: nothing to judge', () => {
    for (const value of ['{}', '""', 'null']) expectNone(configWith(`"authorization": ${value}`), CODE);
  });

  test('values read after start-up are setting-invalid, not this error', () => {
    assert.deepEqual(codesIn(configWith('"observability": {"level": "loud", "logfire": {"enabled": true}}')), ['setting-invalid']);
    assert.deepEqual(codesIn(configWith('"authorization": {"backend": "rbac", "roles": {"admin": ["*"]}, "isolation": "team"}')), ['setting-invalid']);
  });
});

test('"owner", the start of "ownership", gets the safe change to it', () => {
  const { text, problems } = expectProblems(configWith('"authorization": ⟦"owner"⟧'), 'setting-unknown-value', { messages: ['Did you mean "ownership"?'] });
  const [fix] = problems[0].fixes!;
  assert.equal(fix.safe, true);
  assert.match(applyEdits(text, fix.edits), /"authorization": "ownership"/);
});
