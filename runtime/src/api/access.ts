/**
 * What an authenticated caller may do (docs/spec.md §4, "Authorization"): the `authorization`
 * setting of 10xgraph.json read as the real 10xGraph server reads it, and the checks every route
 * makes. Each route needs one scope, `<resource>:<action>` (`graph:invoke`,
 * `checkpointer:read`, …, `SCOPES`); a caller whose token carries `scopes` (or whose RBAC roles
 * grant some) needs that one among them; then the backend judges the caller against the thread
 * the request names:
 *
 * - `ownership`: a thread belongs to the user whose run created it; only they may read, run or
 *   change it. Threads with no recorded user (made before authentication was on) are everyone's.
 * - `allow_all` (also `default`, `none`): any caller with a `user_id`.
 * - RBAC `{"backend": "rbac", "roles": {role: [scopes]}, "default_scopes": [...]}`: the scopes of
 *   the caller's `roles` (or `role`) claim, `"*"` all of them, and the ownership rule besides.
 * - `"module:export"`: a TypeScript or JavaScript module beside the config whose export decides.
 *
 * Without authentication (`auth` absent) nothing is checked here, as the real server checks nothing.
 */
import { ApiError } from './errors';
import { userIdOf, type AuthUser } from './auth';

/** Every scope a route can need, as the real server names them. */
export const SCOPES = [
  'graph:invoke',
  'graph:stream',
  'graph:stop',
  'graph:fix',
  'graph:setup',
  'graph:read',
  'checkpointer:read',
  'checkpointer:write',
  'checkpointer:delete',
  'store:read',
  'store:write',
  'store:delete',
  'files:read',
  'files:upload',
  'config:read',
] as const;

/** A route's scope: `<resource>:<action>`. */
export type Scope = (typeof SCOPES)[number];

/** The resources whose ids are threads, which the ownership rule guards. */
const THREAD_RESOURCES = new Set(['graph', 'checkpointer']);

/** What a backend is told besides the request's resource: the owner of the thread it names, when known. */
export interface AccessContext {
  /** The user recorded as the thread's creator; undefined for a new thread or one made without a user. */
  owner?: string;
}

/** An authorization backend, built-in or from a module. */
export interface AuthorizationBackend {
  /** Whether `user` may do `action` on `resource` (`resourceId`: the thread, when the request names one). */
  authorize(user: AuthUser, resource: string, action: string, resourceId: string | undefined, context: AccessContext): boolean | Promise<boolean>;
  /** The scopes the user has; undefined for no limit (then only the token's own `scopes` claim limits). */
  scopesFor(user: AuthUser): readonly string[] | undefined;
  /** `owner`: listings show the caller's own threads only; `none`: every thread. */
  readonly isolation: 'owner' | 'none';
}

/** The `authorization` setting, read. */
export type AuthorizationSetting =
  | { kind: 'allow_all' }
  | { kind: 'ownership' }
  | { kind: 'rbac'; roles: Readonly<Record<string, readonly string[]>>; defaultScopes: readonly string[]; isolation: 'owner' | 'none' }
  | { kind: 'module'; path: string };

/** The `authorization` setting cannot be used; the message names the value and what to write. */
export class AuthorizationSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthorizationSettingError';
  }
}

/**
 * Reads `authorization` as the real server does: an RBAC object (`backend` or `type` `rbac`,
 * `role_based` or `roles`), a `module:export` string, a built-in name (trimmed, any case), or
 * absent (`null`, `""`): ownership when `production` (`MODE=production`), else allow all.
 */
export function readAuthorizationSetting(value: unknown, production: boolean): AuthorizationSetting {
  if (value === undefined || value === null || value === '') return production ? { kind: 'ownership' } : { kind: 'allow_all' };
  if (typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    const backend = String(object.backend ?? object.type ?? '').toLowerCase();
    if (!['rbac', 'role_based', 'roles'].includes(backend)) {
      throw new AuthorizationSettingError('"authorization" as an object is RBAC: {"backend": "rbac", "roles": {"admin": ["*"], "viewer": ["graph:read"]}}.');
    }
    const roles: Record<string, readonly string[]> = {};
    const table = object.roles ?? object.role_scopes ?? {};
    if (typeof table !== 'object' || table === null || Array.isArray(table)) throw new AuthorizationSettingError('"authorization.roles" must map each role to a list of scopes.');
    for (const [role, scopes] of Object.entries(table as Record<string, unknown>)) {
      if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) {
        throw new AuthorizationSettingError(`"authorization.roles.${role}" must be a list of scopes such as ["graph:invoke", "checkpointer:read"] or ["*"].`);
      }
      roles[role] = scopes as string[];
    }
    const defaults = object.default_scopes ?? [];
    if (!Array.isArray(defaults) || !defaults.every((scope) => typeof scope === 'string')) {
      throw new AuthorizationSettingError('"authorization.default_scopes" must be a list of scopes.');
    }
    return { kind: 'rbac', roles, defaultScopes: defaults as string[], isolation: object.isolation === 'none' ? 'none' : 'owner' };
  }
  if (typeof value !== 'string')
    throw new AuthorizationSettingError(`"authorization" is ${Array.isArray(value) ? 'a list' : typeof value}: write "ownership", "allow_all", "module:export" or an RBAC object.`);
  if (value.includes(':')) return { kind: 'module', path: value };
  const name = value.trim().toLowerCase();
  if (name === 'ownership') return { kind: 'ownership' };
  if (name === 'allow_all' || name === 'default' || name === 'none') return { kind: 'allow_all' };
  throw new AuthorizationSettingError(`"authorization" is ${JSON.stringify(value.slice(0, 100))}: use a "module:export" path or one of allow_all, default, none, ownership.`);
}

/** The scopes a token's own `scopes` claim grants (a list, or a string of names), or undefined for no claim. */
function claimedScopes(user: AuthUser): readonly string[] | undefined {
  const scopes = user.scopes;
  if (Array.isArray(scopes)) return scopes.map(String);
  if (typeof scopes === 'string') return scopes.split(/[\s,]+/).filter(Boolean);
  return undefined;
}

/** Any caller with a `user_id` may do anything. */
export function allowAllBackend(): AuthorizationBackend {
  return { authorize: (user) => userIdOf(user) !== undefined, scopesFor: claimedScopes, isolation: 'none' };
}

/** A thread is its creator's: a caller reads, runs and changes only their own (and threads nobody owns). */
export function ownershipBackend(isolation: 'owner' | 'none' = 'owner', scopesFor: (user: AuthUser) => readonly string[] | undefined = claimedScopes): AuthorizationBackend {
  return {
    authorize(user, resource, _action, resourceId, { owner }) {
      const id = userIdOf(user);
      if (id === undefined) return false;
      if (!THREAD_RESOURCES.has(resource) || resourceId === undefined || owner === undefined) return true;
      return owner === id;
    },
    scopesFor,
    isolation,
  };
}

/** The roles a user's claims give: `roles` (a list, or one name), else `role`. */
function rolesOf(user: AuthUser): string[] {
  const roles = user.roles ?? user.role;
  if (Array.isArray(roles)) return roles.map(String);
  if (roles === undefined || roles === null) return [];
  return [String(roles)];
}

/** Roles grant scopes (`"*"`: all); the ownership rule holds besides. */
export function rbacBackend(setting: Extract<AuthorizationSetting, { kind: 'rbac' }>): AuthorizationBackend {
  const scopesFor = (user: AuthUser): readonly string[] => {
    const granted = new Set<string>(setting.defaultScopes);
    for (const role of rolesOf(user)) for (const scope of Object.prototype.hasOwnProperty.call(setting.roles, role) ? setting.roles[role]! : []) granted.add(scope);
    return granted.has('*') ? SCOPES : [...granted];
  };
  return ownershipBackend(setting.isolation, scopesFor);
}

/**
 * The backend a module exports (`"authorization": "module:export"`): an object, or a class made
 * with no arguments, with `authorize(user, resource, action, resourceId, context)` (may be async;
 * `context.owner` is the thread's recorded creator), and optionally `scopesFor(user)` and
 * `isolation` (`"owner"` or `"none"`, default `"none"`).
 */
export function moduleBackend(exported: unknown, where: string): AuthorizationBackend {
  let object = exported as Record<string, unknown> | undefined;
  if (typeof exported === 'function' && typeof (exported as { prototype?: { authorize?: unknown } }).prototype?.authorize === 'function') {
    object = new (exported as new () => Record<string, unknown>)();
  }
  if (!object || typeof object !== 'object' || typeof object.authorize !== 'function') {
    throw new AuthorizationSettingError(
      `The authorization export ${where} has no authorize method: export an object or class with authorize(user, resource, action, resourceId, context) returning true or false.`,
    );
  }
  const target = object;
  const scopes = typeof target.scopesFor === 'function' ? (target.scopesFor as (user: AuthUser) => unknown) : undefined;
  const isolation = target.isolation === 'owner' ? 'owner' : 'none';
  return {
    authorize: (user, resource, action, resourceId, context) => (target.authorize as AuthorizationBackend['authorize']).call(target, user, resource, action, resourceId, context),
    scopesFor(user) {
      if (!scopes) return claimedScopes(user);
      const granted = scopes.call(target, user);
      return Array.isArray(granted) ? granted.map(String) : undefined;
    },
    isolation,
  };
}

/** The 403 of a caller without the route's scope. */
function missingScope(scope: Scope): ApiError {
  return new ApiError(403, 'HTTPException', `Missing required scope: ${scope}`);
}

/** The 403 of a caller the backend refuses. */
export function notAuthorized(scope: Scope): ApiError {
  const [resource, action] = scope.split(':');
  return new ApiError(403, 'HTTPException', `Not authorized to ${action} ${resource}`);
}

/**
 * The checks of one server: `backend` undefined means authentication is off and every check
 * passes. A backend that throws refuses (the error is logged by whoever calls).
 */
export class AccessControl {
  constructor(readonly backend: AuthorizationBackend | undefined) {}

  /** Whether requests are judged at all. */
  get enabled(): boolean {
    return this.backend !== undefined;
  }

  /** Throws the 403 of a caller whose scopes (the backend's, else the token's `scopes` claim) lack `scope`. */
  checkScope(user: AuthUser, scope: Scope): void {
    if (!this.backend) return;
    const granted = this.backend.scopesFor(user) ?? claimedScopes(user);
    if (granted !== undefined && !granted.includes(scope)) throw missingScope(scope);
  }

  /** Throws the 403 of a caller the backend refuses `scope` on `threadId` (owned by `owner`), or on no thread. */
  async authorize(user: AuthUser, scope: Scope, threadId?: string, owner?: string): Promise<void> {
    if (!(await this.allows(user, scope, threadId, owner))) throw notAuthorized(scope);
  }

  /** Whether the backend lets `user` do `scope` on `threadId` (owned by `owner`). */
  async allows(user: AuthUser, scope: Scope, threadId?: string, owner?: string): Promise<boolean> {
    if (!this.backend) return true;
    const [resource, action] = scope.split(':') as [string, string];
    return (await this.backend.authorize(user, resource, action, threadId, owner === undefined ? {} : { owner })) === true;
  }

  /** The user whose threads a listing shows (isolation `owner`), or undefined for every thread. */
  listOwner(user: AuthUser): string | undefined {
    return this.backend?.isolation === 'owner' ? (userIdOf(user) ?? '') : undefined;
  }

  /** The user a new thread is recorded as made by (none when authentication is off). */
  creator(user: AuthUser): string | undefined {
    return this.backend ? userIdOf(user) : undefined;
  }
}

/** The caller of one request, with the scope of the route it called. */
export class Caller {
  constructor(
    readonly user: AuthUser,
    readonly access: AccessControl,
    /** The route's scope; undefined on a public route, where every check passes. */
    readonly scope: Scope | undefined,
  ) {}

  /** Throws the 403 of a caller the backend refuses this route's scope on `threadId` (owned by `owner`). */
  async authorize(threadId?: string, owner?: string): Promise<void> {
    if (this.scope !== undefined) await this.access.authorize(this.user, this.scope, threadId, owner);
  }

  /** The user a thread this caller creates is recorded as made by. */
  get creator(): string | undefined {
    return this.access.creator(this.user);
  }

  /** The user whose threads this caller's listings show, or undefined for every thread. */
  get listOwner(): string | undefined {
    return this.access.listOwner(this.user);
  }
}

/** The caller of a server without authentication: nobody, and every check passes. */
export function anonymousCaller(scope?: Scope): Caller {
  return new Caller({}, OPEN, scope);
}

const OPEN = new AccessControl(undefined);
