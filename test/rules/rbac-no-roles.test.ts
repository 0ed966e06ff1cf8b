// rbac-no-roles: an RBAC authorization defines no roles (nor role_scopes), so every user gets only
// the default scopes. A warning on the object's `{`.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configWith, expectNone, expectProblems } from './helpers';

const CODE = 'rbac-no-roles';

describe('rbac-no-roles', () => {
  test('an RBAC object without roles is a warning on its `{`, saying what to add', () => {
    const { problems } = expectProblems(configWith('"authorization": ⟦{⟧"backend": "rbac", "default_scopes": ["graph:read"]}'), CODE, {
      only: true,
      messages: ['"roles"', '"default_scopes"', '"admin"'],
    });
    assert.equal(problems[0].fixes, undefined);
  });

  test('empty roles are no roles', () => {
    expectProblems(configWith('"authorization": ⟦{⟧"backend": "rbac", "roles": {}}'), CODE, { only: true });
    expectProblems(configWith('"authorization": ⟦{⟧"backend": "rbac", "roles": null, "role_scopes": {}}'), CODE, { only: true });
  });

  test('roles, or role_scopes, define them', () => {
    expectNone(configWith('"authorization": {"backend": "rbac", "roles": {"admin": ["*"]}}'), CODE);
    expectNone(configWith('"authorization": {"type": "RBAC", "role_scopes": {"admin": ["*"]}}'), CODE);
  });

  test('an empty authorization {} is unset, and a string is not RBAC', () => {
    expectNone(configWith('"authorization": {}'), CODE);
    expectNone(configWith('"authorization": "ownership"'), CODE);
    expectNone(configWith('"authorization": "auth.authz:Backend"'), CODE);
  });

  test('a misspelt "roles" key is also unknown-key, with a safe rename that defines them', () => {
    expectProblems(configWith('"authorization": ⟦{⟧"backend": "rbac", "rols": {"admin": ["*"]}}'), CODE);
  });
});
