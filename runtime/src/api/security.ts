/**
 * The settings of 10xgraph.json that keep strangers out, read for `10xgraph api` at start-up
 * (docs/spec.md §4, "What the server applies"): `auth`, `authorization`, `rate_limit` and
 * `websocket`, each applied, or refused with a sentence naming it. Nothing here listens: the
 * result is the options of `createApiServer` and the lines start-up logs.
 */
import { loadSettingExport } from '../agent/loadAgent';
import { MissingPeerError } from '../peers';
import { errorMessageOf } from '../graph/errors';
import { moduleBackend, ownershipBackend, allowAllBackend, rbacBackend, readAuthorizationSetting, type AuthorizationBackend } from './access';
import { customAuthenticator, jwtAuthenticator, readAuthSetting, readJwtSettings, type Authenticator } from './auth';
import { createRateLimiter, readRateLimitSettings, type RateLimiter, type RateLimitSettings } from './rateLimit';
import type { ApiLogger } from './log';
import { DEFAULT_WEBSOCKET_CAPS, type WebSocketCaps } from './server';

/** The top-level keys `10xgraph api` applies; every other known key is a setting of the Python 10xGraph server or its tools. */
export const APPLIED_KEYS: ReadonlySet<string> = new Set(['agent', 'remote_tools', 'env', 'auth', 'authorization', 'rate_limit', 'websocket']);

/** Whether the server runs in production mode: `MODE=production` (any case), as the real server reads it. */
export function isProduction(env: NodeJS.ProcessEnv): boolean {
  return (env.MODE ?? '').trim().toLowerCase() === 'production';
}

/** A security setting cannot be applied: start-up refuses with this sentence. */
export class SecuritySettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecuritySettingError';
  }
}

/** What start-up applies of the security settings. */
export interface SecurityOptions {
  auth?: Authenticator;
  authorization?: AuthorizationBackend;
  rateLimit?: { settings: RateLimitSettings; limiter: RateLimiter };
  webSocketCaps: WebSocketCaps;
  /** Lines to log: what is applied (`info`) and what deserves a look (`warn`). */
  lines: Array<{ level: 'info' | 'warn'; text: string }>;
}

/**
 * Reads and applies `auth`, `authorization`, `rate_limit` and `websocket` of the config's root
 * object `raw` (`token`: `TENXGRAPH_TOKEN`; `log`: where a failing auth module is reported). Throws `SecuritySettingError` for a value that cannot
 * be applied; loads the modules the settings name (a custom authenticator or authorization backend).
 */
export async function loadSecurity(
  configPath: string,
  raw: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv,
  token: string,
  log: Pick<ApiLogger, 'error'>,
): Promise<SecurityOptions> {
  const production = isProduction(env);
  const lines: SecurityOptions['lines'] = [];
  const result: SecurityOptions = { webSocketCaps: DEFAULT_WEBSOCKET_CAPS, lines };
  try {
    result.webSocketCaps = readWebSocketCaps(raw.websocket);
  } catch (error) {
    // Read on each handshake by the real server: it starts, and every WebSocket is refused (the
    // rule set's `setting-invalid` warning, logged with the others, says so).
    result.webSocketCaps = { ...DEFAULT_WEBSOCKET_CAPS, refusal: errorMessageOf(error) };
  }
  const auth = guarded(() => readAuthSetting(raw.auth));
  if (auth.method !== 'none' && token) {
    throw new SecuritySettingError(
      `TENXGRAPH_TOKEN is set and the config sets "auth": a server has one way to authenticate; unset TENXGRAPH_TOKEN (callers send the tokens "auth" verifies) or remove "auth".`,
    );
  }
  if (auth.method === 'jwt') {
    const { settings, warning } = guarded(() => readJwtSettings(env, production));
    if (warning) lines.push({ level: 'warn', text: warning });
    result.auth = guarded(() => jwtAuthenticator(settings));
    lines.push({
      level: 'info',
      text: `Authentication: JWT (${settings.algorithm}${settings.issuer ? `, issuer ${settings.issuer}` : ''}${settings.audience ? `, audience ${settings.audience}` : ''})`,
    });
  } else if (auth.method === 'custom') {
    const exported = await loadExport(configPath, 'auth.path', auth.path);
    result.auth = guarded(() => customAuthenticator(exported, `'${auth.path}'`, (text) => log.error(text, { event: 'auth_module_failed' })));
    lines.push({ level: 'info', text: `Authentication: the module ${auth.path}` });
  }
  if (result.auth) {
    const setting = guarded(() => readAuthorizationSetting(raw.authorization, production));
    if (setting.kind === 'module') {
      const exported = await loadExport(configPath, 'authorization', setting.path);
      result.authorization = guarded(() => moduleBackend(exported, `'${setting.path}'`));
    } else if (setting.kind === 'ownership') result.authorization = ownershipBackend();
    else if (setting.kind === 'rbac') result.authorization = rbacBackend(setting);
    else result.authorization = allowAllBackend();
    const absent = raw.authorization === undefined || raw.authorization === null || raw.authorization === '';
    const name = setting.kind === 'module' ? `the module ${setting.path}` : setting.kind === 'rbac' ? 'roles (RBAC)' : setting.kind === 'ownership' ? 'ownership' : 'allow all';
    lines.push({
      level: 'info',
      text: `Authorization: ${name}${absent ? ` (the default${production ? ' of MODE=production' : ' outside MODE=production'}; set "authorization" to choose)` : ''}`,
    });
  } else if (!(raw.authorization === undefined || raw.authorization === null || raw.authorization === '')) {
    lines.push({
      level: 'warn',
      text: '"authorization" has no effect without "auth": every caller is anonymous and nothing is checked, as the Python server does; set "auth", or remove "authorization".',
    });
  }
  const rate = guarded(() => readRateLimitSettings(raw.rate_limit, env));
  if (rate) {
    const limiter = await createRateLimiter(rate).catch((error: unknown) => {
      // A package that is not installed is not the file's fault: it keeps its own message (and start-up its own exit).
      throw error instanceof MissingPeerError ? error : new SecuritySettingError(`"rate_limit": ${errorMessageOf(error)}`);
    });
    result.rateLimit = { settings: rate, limiter };
    lines.push({
      level: 'info',
      text: `Rate limits: ${rate.requests} requests per ${rate.windowSeconds} s by ${rate.by}, in ${rate.backend === 'redis' ? 'Redis' : 'this process (memory)'}${rate.excludePaths.length ? `, except ${rate.excludePaths.join(', ')}` : ''}`,
    });
  }
  return result;
}

/** Runs a reading step, turning its error into the refusal of start-up. */
function guarded<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    throw error instanceof SecuritySettingError ? error : new SecuritySettingError(errorMessageOf(error));
  }
}

async function loadExport(configPath: string, setting: string, spec: string): Promise<unknown> {
  try {
    return await loadSettingExport(configPath, setting, spec);
  } catch (error) {
    throw new SecuritySettingError(errorMessageOf(error));
  }
}

/**
 * Reads `websocket` as the real server does: `max_connections` and `max_connections_per_user`
 * (whole numbers, not negative; absent the defaults 1000 and 10; `0`, `null` or `false` no cap),
 * `realtime_models` (a list of strings, accepted: this server serves no realtime audio).
 */
export function readWebSocketCaps(section: unknown): WebSocketCaps {
  if (section === undefined || section === null) return DEFAULT_WEBSOCKET_CAPS;
  if (typeof section !== 'object' || Array.isArray(section))
    throw new SecuritySettingError('"websocket" must be an object such as {"max_connections": 1000, "max_connections_per_user": 10}.');
  const object = section as Record<string, unknown>;
  const cap = (key: 'max_connections' | 'max_connections_per_user', fallback: number | null): number | null => {
    if (!Object.prototype.hasOwnProperty.call(object, key)) return fallback;
    const value = object[key];
    if (value === null || value === 0 || value === false) return null;
    const number = value === true ? 1 : typeof value === 'number' ? Math.trunc(value) : typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(number) || number < 0)
      throw new SecuritySettingError(`"websocket.${key}" must be a whole number, not negative (0 or null: no limit); got ${JSON.stringify(value)}.`);
    return number === 0 ? null : number;
  };
  const models = object.realtime_models;
  if (models !== undefined && models !== null && (!Array.isArray(models) || !models.every((model) => typeof model === 'string'))) {
    throw new SecuritySettingError('"websocket.realtime_models" must be a list of strings.');
  }
  return {
    maxConnections: cap('max_connections', DEFAULT_WEBSOCKET_CAPS.maxConnections),
    maxConnectionsPerUser: cap('max_connections_per_user', DEFAULT_WEBSOCKET_CAPS.maxConnectionsPerUser),
  };
}
