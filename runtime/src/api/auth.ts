/**
 * Who is calling `10xgraph api` (docs/spec.md §4, "Authentication"): the `auth` setting of
 * 10xgraph.json read as the real 10xGraph server reads it, and the authenticators that apply it.
 *
 * - `"auth": "jwt"` (any string containing `jwt`): a Bearer token verified with `jose` against
 *   `JWT_SECRET_KEY` and `JWT_ALGORITHM`, `exp` required, `iss`/`aud` when `JWT_ISSUER` /
 *   `JWT_AUDIENCE` are set, a `user_id` claim required; the claims are the user.
 * - `"auth": {"method": "custom", "path": "module:export"}`: a TypeScript or JavaScript module
 *   beside the config whose export authenticates a request; what it returns is the user.
 * - no `auth`: nobody is identified. `TENXGRAPH_TOKEN`, when set, is one shared token in front of
 *   every route (the simple mode for local use); the caller is still nobody in particular.
 *
 * The credential is read as the real server reads it: `Authorization: Bearer <token>`, then the
 * WebSocket subprotocol pair `10xgraph-bearer, <token>`, then (WebSocket handshakes only) the query
 * parameter `token`. Cookies are never read.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { KeyObject } from 'node:crypto';
import { ApiError } from './errors';
import { loadCrypto } from './lazy';
import { readWebSocketProtocols } from './origin';

/** What an authenticator returns: the user's claims (`user_id`, `roles`, `scopes`, …); `{}` is nobody. */
export type AuthUser = Readonly<Record<string, unknown>>;

/** The request an authenticator judges. */
export interface AuthRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  /** Whether this is a WebSocket handshake (the query parameter `token` is read only then). */
  websocket: boolean;
  /** The credential found in the request, as `credentialOf` reads it; undefined when there is none. */
  credential: string | undefined;
}

/** Judges requests: resolves to the user, or throws the `ApiError` (401, 403, 500) to answer with. */
export interface Authenticator {
  /** `token` (`TENXGRAPH_TOKEN`), `jwt` or `custom`. */
  readonly mode: 'token' | 'jwt' | 'custom';
  authenticate(request: AuthRequest): Promise<AuthUser>;
}

/** The `auth` setting, read: none, JWT, or a custom module. */
export type AuthSetting = { method: 'none' } | { method: 'jwt' } | { method: 'custom'; path: string };

/** The `auth` setting cannot be used; the message names the value and what to write. */
export class AuthSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthSettingError';
  }
}

/**
 * Reads `auth` as the real server does: a falsy value (absent, `null`, `""`, `{}`, `false`) is
 * none; a string containing `jwt` is JWT; an object needs `method` `"custom"` and a `path`;
 * anything else is refused.
 */
export function readAuthSetting(value: unknown): AuthSetting {
  if (value === undefined || value === null || value === '' || value === false || value === 0) return { method: 'none' };
  if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) return { method: 'none' };
  if (typeof value === 'string') {
    if (value.includes('jwt')) return { method: 'jwt' };
    throw new AuthSettingError(
      `"auth" is ${JSON.stringify(value.slice(0, 100))}, which no server supports: write "jwt", or {"method": "custom", "path": "module:export"}, or leave it out.`,
    );
  }
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { method, path } = value as Record<string, unknown>;
    if (!method || !path) throw new AuthSettingError('"auth" as an object needs both "method" and "path": {"method": "custom", "path": "module:export"}.');
    if (method === 'custom' && typeof path === 'string') return { method: 'custom', path };
    throw new AuthSettingError(`"auth" has the method ${JSON.stringify(method)}: an object is {"method": "custom", "path": "module:export"}; for JWT write "auth": "jwt".`);
  }
  throw new AuthSettingError(`"auth" is ${Array.isArray(value) ? 'a list' : typeof value}: write "jwt", or {"method": "custom", "path": "module:export"}, or leave it out.`);
}

/** The realm every 401 of an authenticated server names, as the real server's does. */
export const AUTH_REALM_HEADER = { 'www-authenticate': 'Bearer realm="auth_required"' } as const;

/** A 401 with the real server's code (`REVOKED_TOKEN`, `EXPIRED_TOKEN`, `INVALID_TOKEN`) and `WWW-Authenticate`. */
export function authError(code: 'REVOKED_TOKEN' | 'EXPIRED_TOKEN' | 'INVALID_TOKEN', message: string): ApiError {
  return new ApiError(401, code, message, [], AUTH_REALM_HEADER);
}

/** The most characters a credential may have: a token longer than any real one is refused unread. */
const MAX_CREDENTIAL_LENGTH = 16 * 1024;

/**
 * The credential of a request, first found: `Authorization: Bearer <token>` (the scheme in any
 * case, a non-empty token), the subprotocol pair `10xgraph-bearer, <token>` (or `agentflow-bearer`),
 * then, on a WebSocket handshake only, the query parameter `token`.
 */
export function credentialOf(headers: IncomingHttpHeaders, url: URL, websocket: boolean): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && authorization.length <= MAX_CREDENTIAL_LENGTH) {
    const space = authorization.indexOf(' ');
    if (space > 0 && authorization.slice(0, space).toLowerCase() === 'bearer') {
      const token = authorization.slice(space + 1).trim();
      if (token !== '') return token;
    }
  }
  const offered = headers['sec-websocket-protocol'];
  if (typeof offered === 'string' && offered.length <= MAX_CREDENTIAL_LENGTH) {
    const token = readWebSocketProtocols(offered).token;
    if (token) return token;
  }
  if (websocket) {
    const token = url.searchParams.get('token');
    if (token && token.length <= MAX_CREDENTIAL_LENGTH) return token;
  }
  return undefined;
}

/** The id a user is known by (`user_id`, a string or a number), or undefined for nobody. */
export function userIdOf(user: AuthUser | undefined): string | undefined {
  const id = user?.user_id;
  if (typeof id === 'string') return id === '' ? undefined : id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return undefined;
}

/** `TENXGRAPH_TOKEN`: one shared token, compared in constant time; the caller is nobody in particular. */
export function tokenAuthenticator(token: string): Authenticator {
  const expected = digest(token);
  return {
    mode: 'token',
    async authenticate({ credential }) {
      if (credential === undefined || !loadCrypto().timingSafeEqual(digest(credential), expected)) throw tokenRefusal();
      return {};
    },
  };
}

/** The 401 of a request without `TENXGRAPH_TOKEN` (or with a wrong one). */
export function tokenRefusal(): ApiError {
  return new ApiError(401, 'INVALID_TOKEN', 'This server needs a token: send the header Authorization: Bearer <TENXGRAPH_TOKEN>.', [], {
    'www-authenticate': 'Bearer realm="10xgraph"',
  });
}

function digest(text: string): Buffer {
  return loadCrypto().createHash('sha256').update(text).digest();
}

/** The signing algorithms `JWT_ALGORITHM` may name (never `none`). */
export const JWT_ALGORITHMS: readonly string[] = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The shortest HMAC secret the real server accepts in production (and warns about otherwise). */
export const MIN_HMAC_SECRET_BYTES = 32;

/** The JWT settings, from the environment. */
export interface JwtSettings {
  secret: string;
  algorithm: string;
  issuer?: string;
  audience?: string;
}

/** The JWT settings cannot be used; the message names the variable and what to set. */
export class JwtSettingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JwtSettingError';
  }
}

/**
 * Reads `JWT_SECRET_KEY`, `JWT_ALGORITHM`, `JWT_ISSUER` and `JWT_AUDIENCE`. Both of the first two
 * must be set (as the real server requires); the algorithm must be one of `JWT_ALGORITHMS`.
 * `warning` is the sentence about a short HMAC secret, which `production` (`MODE=production`)
 * turns into a refusal.
 */
export function readJwtSettings(env: NodeJS.ProcessEnv, production: boolean): { settings: JwtSettings; warning?: string } {
  const secret = env.JWT_SECRET_KEY ?? '';
  const algorithm = (env.JWT_ALGORITHM ?? '').trim();
  if (secret === '' || algorithm === '') {
    const missing = [secret === '' ? 'JWT_SECRET_KEY' : '', algorithm === '' ? 'JWT_ALGORITHM' : ''].filter(Boolean).join(' and ');
    throw new JwtSettingError(
      `"auth": "jwt" needs JWT_SECRET_KEY and JWT_ALGORITHM in the environment (or the "env" file); ${missing} ${missing.includes(' and ') ? 'are' : 'is'} not set.`,
    );
  }
  const known = JWT_ALGORITHMS.find((name) => name.toUpperCase() === algorithm.toUpperCase());
  if (!known) {
    throw new JwtSettingError(
      `JWT_ALGORITHM is ${JSON.stringify(algorithm.slice(0, 40))}, which is no signing algorithm this server verifies: use one of ${JWT_ALGORITHMS.join(', ')}.`,
    );
  }
  const settings: JwtSettings = { secret, algorithm: known };
  if (env.JWT_ISSUER) settings.issuer = env.JWT_ISSUER;
  if (env.JWT_AUDIENCE) settings.audience = env.JWT_AUDIENCE;
  if (known.startsWith('HS') && Buffer.byteLength(secret) < MIN_HMAC_SECRET_BYTES) {
    const sentence = `JWT_SECRET_KEY is shorter than ${MIN_HMAC_SECRET_BYTES} bytes, too weak for ${known}: make a random one, e.g. node -e "console.log(require('node:crypto').randomBytes(48).toString('base64url'))".`;
    if (production) throw new JwtSettingError(`${sentence} (MODE=production refuses it.)`);
    return { settings, warning: sentence };
  }
  return { settings };
}

/** How many verified tokens the JWT authenticator remembers (the oldest is forgotten first). */
const VERIFIED_TOKENS = 1024;

/** The jose functions the verifier uses, loaded on first use (a server without JWT never loads them). */
type Jose = typeof import('jose');
let jose: Jose | undefined;
function loadJose(): Jose {
  return (jose ??= require('jose') as Jose);
}

/**
 * The verifier of `"auth": "jwt"`. An HMAC algorithm takes the secret's bytes; the others take a
 * PEM key (a public key, or a private one whose public half is used). A key that is not one is
 * refused here, at start-up.
 */
export function jwtAuthenticator(settings: JwtSettings): Authenticator {
  const key = verificationKey(settings);
  const { algorithm, issuer, audience } = settings;
  const required = ['exp', ...(issuer ? ['iss'] : []), ...(audience ? ['aud'] : [])];
  // Tokens verified lately, by their text: a client sends one token on each of its requests, and a
  // token verified once is valid, with the same claims, until its `exp`, which is checked on each use.
  const verified = new Map<string, { user: AuthUser; expiresAt: number }>();
  return {
    mode: 'jwt',
    async authenticate({ credential }) {
      if (credential === undefined) throw authError('REVOKED_TOKEN', 'Invalid token, please login again');
      const known = verified.get(credential);
      if (known) {
        if (Date.now() < known.expiresAt) return known.user;
        verified.delete(credential);
      }
      let payload: Record<string, unknown>;
      try {
        const verified = await loadJose().jwtVerify(credential, key, {
          algorithms: [algorithm],
          requiredClaims: required,
          ...(issuer ? { issuer } : {}),
          ...(audience ? { audience } : {}),
        });
        payload = verified.payload as Record<string, unknown>;
      } catch (error) {
        const failure = error as { code?: unknown; reason?: unknown; payload?: { exp?: unknown } };
        if (failure?.code === 'ERR_JWT_EXPIRED') throw authError('EXPIRED_TOKEN', 'Token has expired, please login again');
        // A signed token whose issuer or audience is wrong (not missing) and which has expired is expired: `exp` is judged first, as PyJWT judges it.
        const exp = failure?.code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && failure.reason === 'check_failed' ? failure.payload?.exp : undefined;
        if (typeof exp === 'number' && exp * 1000 <= Date.now()) throw authError('EXPIRED_TOKEN', 'Token has expired, please login again');
        throw authError('INVALID_TOKEN', 'Invalid token, please login again');
      }
      // A token meant for some audience is not for a server that names none; an empty one names none (as PyJWT judges it).
      const aud = payload.aud;
      if (!audience && aud !== undefined && aud !== null && aud !== '' && !(Array.isArray(aud) && aud.length === 0)) {
        throw authError('INVALID_TOKEN', 'Invalid token, please login again');
      }
      // Issued in the future: not yet valid.
      if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000) throw authError('INVALID_TOKEN', 'Invalid token, please login again');
      if (!Object.prototype.hasOwnProperty.call(payload, 'user_id')) throw authError('INVALID_TOKEN', 'Invalid token, user_id missing');
      if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
      verified.set(credential, { user: payload, expiresAt: (payload.exp as number) * 1000 });
      return payload;
    },
  };
}

function verificationKey(settings: JwtSettings): Uint8Array | KeyObject {
  const { algorithm } = settings;
  if (algorithm.startsWith('HS')) return new TextEncoder().encode(settings.secret);
  let key: KeyObject;
  try {
    key = loadCrypto().createPublicKey(settings.secret.replace(/\\n/g, '\n'));
  } catch {
    throw new JwtSettingError(`JWT_SECRET_KEY must hold a PEM key (-----BEGIN PUBLIC KEY----- …) for ${algorithm}; it does not parse as one.`);
  }
  // A key of another kind would refuse every token: refused here, at start-up, instead.
  const kind = key.asymmetricKeyType ?? '';
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const expected = KEY_KINDS[algorithm]!;
  if (!expected.types.includes(kind) || (expected.curve !== undefined && curve !== expected.curve)) {
    throw new JwtSettingError(
      `JWT_SECRET_KEY holds ${curve ? `an ${kind} key on ${curve}` : `a key of type ${kind || 'unknown'}`}, which cannot verify ${algorithm} tokens: ${algorithm} needs ${expected.shown}.`,
    );
  }
  return key;
}

/** The kind of key each asymmetric algorithm verifies with. */
const KEY_KINDS: Readonly<Record<string, { types: readonly string[]; curve?: string; shown: string }>> = {
  RS256: { types: ['rsa'], shown: 'an RSA key' },
  RS384: { types: ['rsa'], shown: 'an RSA key' },
  RS512: { types: ['rsa'], shown: 'an RSA key' },
  PS256: { types: ['rsa', 'rsa-pss'], shown: 'an RSA key' },
  PS384: { types: ['rsa', 'rsa-pss'], shown: 'an RSA key' },
  PS512: { types: ['rsa', 'rsa-pss'], shown: 'an RSA key' },
  ES256: { types: ['ec'], curve: 'prime256v1', shown: 'an EC key on P-256' },
  ES384: { types: ['ec'], curve: 'secp384r1', shown: 'an EC key on P-384' },
  ES512: { types: ['ec'], curve: 'secp521r1', shown: 'an EC key on P-521' },
  EdDSA: { types: ['ed25519', 'ed448'], shown: 'an Ed25519 or Ed448 key' },
};

/** How long a custom `auth` module may take to answer before the request is refused (503). */
export const CUSTOM_AUTH_TIMEOUT_MS = 30_000;

class CustomAuthTimeout extends Error {}

/** What a custom `auth` module's export may be: a function, or an object (or class) with `authenticate`. */
type CustomAuthFunction = (request: CustomAuthRequest) => unknown;

/** What a custom `auth` module's `authenticate` is given. */
export interface CustomAuthRequest {
  method: string;
  /** The path and query, e.g. `/v1/graph/invoke`. */
  url: string;
  headers: IncomingHttpHeaders;
  /** Whether the request opens a WebSocket. */
  websocket: boolean;
  /** The Bearer token found in the request (header, subprotocol or, on a WebSocket, `?token=`), if any. */
  credential: string | undefined;
}

/**
 * The authenticator of `"auth": {"method": "custom", "path": "module:export"}`. `exported` is what
 * the module exports under that name: a function of the request, an object with an
 * `authenticate(request)` method, or a class with one (made with no arguments). It may be async.
 * It returns the user (an object with `user_id`), or nothing for nobody (then authorization
 * refuses with 403, as the real server does); an error it throws with a `status` (or
 * `statusCode`) from 400 to 499 is the answer (its `code`, else `HTTPException`, and its message);
 * any other error is a 500 and is logged.
 */
export function customAuthenticator(exported: unknown, where: string, log: (message: string) => void, timeoutMs = CUSTOM_AUTH_TIMEOUT_MS): Authenticator {
  const authenticate = customFunction(exported, where);
  return {
    mode: 'custom',
    async authenticate(request) {
      let result: unknown;
      let timer: NodeJS.Timeout | undefined;
      try {
        const answer = Promise.resolve(
          authenticate({
            method: request.method,
            url: request.url.pathname + request.url.search,
            headers: request.headers,
            websocket: request.websocket,
            credential: request.credential,
          }),
        );
        // A module that never answers must not hold the request (or the handshake) for ever.
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new CustomAuthTimeout()), timeoutMs);
        });
        result = await Promise.race([answer, late]);
      } catch (error) {
        if (error instanceof CustomAuthTimeout) {
          log(`The auth module ${where} did not answer within ${timeoutMs} ms; the request was refused.`);
          throw new ApiError(503, 'AUTH_MODULE_TIMEOUT', `The server's auth module (${where}) did not answer in time; try again.`);
        }
        const status = statusOf(error);
        if (status !== undefined) {
          const code = (error as { code?: unknown }).code;
          const message = error instanceof Error ? error.message : String((error as { message?: unknown }).message ?? 'Not authenticated');
          throw new ApiError(status, typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : 'HTTPException', message, [], status === 401 ? AUTH_REALM_HEADER : {});
        }
        log(`The auth module ${where} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        throw new ApiError(500, 'AUTH_MODULE_FAILED', `The server's auth module (${where}) failed on this request; see the server's log.`);
      } finally {
        clearTimeout(timer);
      }
      if (result === undefined || result === null) return {};
      if (typeof result !== 'object' || Array.isArray(result)) {
        log(`The auth module ${where} returned ${Array.isArray(result) ? 'a list' : typeof result}, not a user object; the caller is treated as nobody.`);
        return {};
      }
      if (!('user_id' in result)) log(`The auth module ${where} returned a user without 'user_id'; authorization refuses such a caller.`);
      return result as AuthUser;
    },
  };
}

function customFunction(exported: unknown, where: string): CustomAuthFunction {
  if (typeof exported === 'function') {
    const prototype = (exported as { prototype?: { authenticate?: unknown } }).prototype;
    // A class with an `authenticate` method is made once, with no arguments, as the real server makes its BaseAuth.
    if (prototype && typeof prototype.authenticate === 'function') {
      const instance = new (exported as new () => { authenticate: CustomAuthFunction })();
      return (request) => instance.authenticate(request);
    }
    return exported as CustomAuthFunction;
  }
  if (exported && typeof exported === 'object' && typeof (exported as { authenticate?: unknown }).authenticate === 'function') {
    const object = exported as { authenticate: CustomAuthFunction };
    return (request) => object.authenticate(request);
  }
  throw new AuthSettingError(
    `The auth export ${where} is ${exported === null ? 'null' : typeof exported}: export a function (request) => user, or an object or class with authenticate(request).`,
  );
}

function statusOf(error: unknown): number | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 499 ? status : undefined;
}
