/**
 * JWTs for the tests of `"auth": "jwt"`: a random HMAC secret and tokens signed with it through
 * `jose`, as an identity provider signs them (an `exp` one hour ahead unless the test says).
 */
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';

/** A random HMAC secret of 48 bytes (base64url text), past the 32 bytes production asks for. */
export function makeJwtSecret(): string {
  return randomBytes(36).toString('base64url');
}

/** Signs `claims` with `secret` (HS256 unless `algorithm` says), expiring in `expiresIn` (default one hour). */
export function signJwt(secret: string, claims: Record<string, unknown>, options: { algorithm?: string; expiresIn?: string | number } = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: options.algorithm ?? 'HS256' })
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '1h')
    .sign(new TextEncoder().encode(secret));
}

/** The `Authorization` header carrying `token`, or no header for no token. */
export function bearerHeader(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}
