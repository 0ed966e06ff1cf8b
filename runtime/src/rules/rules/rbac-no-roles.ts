import { type Rule, Kind, NONE, openBrace } from '../context';
import { isFalsy } from '../settings';

/** `rbac-no-roles`: an RBAC `authorization` defines no roles, so only its default scopes apply. */
export const rbacNoRoles: Rule = {
  code: 'rbac-no-roles',
  check({ tree, root, report }) {
    const authorization = tree.get(root, 'authorization');
    if (authorization === NONE || tree.kind[authorization] !== Kind.Object || tree.first[authorization] === NONE) return;
    const roles = tree.get(authorization, 'roles');
    const other = tree.get(authorization, 'role_scopes');
    if ((roles !== NONE && !isFalsy(tree, roles)) || (other !== NONE && !isFalsy(tree, other))) return;
    report({
      code: 'rbac-no-roles',
      message: 'This RBAC "authorization" defines no "roles": every user gets only "default_scopes". Map role names to scopes, e.g. "roles": {"admin": ["*"]}.',
      node: openBrace(tree, authorization),
    });
  },
};
