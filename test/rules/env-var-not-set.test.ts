// env-var-not-set: the server needs an environment variable that neither the env file nor (when
// known) the environment sets: a $VAR in rate_limit.redis, or JWT_SECRET_KEY and JWT_ALGORITHM for
// "auth": "jwt". A warning: the environment the server runs in may set it.
import { describe, test } from 'node:test';
import { configFiles, configWith, expectNone, expectProblems } from './helpers';

const CODE = 'env-var-not-set';
const REDIS = (url: string) => `"env": ".env", "rate_limit": {"backend": "redis", "redis": ${url}}`;

describe('env-var-not-set', () => {
  test('"${REDIS_URL}" that the env file does not set is a warning on the URL, naming the variable and the file', () => {
    const files = configFiles({ env: { '.env': ['OTHER'] } });
    expectProblems(configWith(REDIS('⟦"${REDIS_URL}"⟧')), CODE, { only: true, files, messages: ['$REDIS_URL', 'the env file ".env"', 'does not start'] });
  });

  test('set by the env file, or by the environment, it is fine', () => {
    expectNone(configWith(REDIS('"${REDIS_URL}"')), CODE, { files: configFiles({ env: { '.env': ['REDIS_URL'] } }) });
    expectNone(configWith(REDIS('"${REDIS_URL}"')), CODE, { files: configFiles({ env: { '.env': [] }, environment: ['REDIS_URL'] }) });
  });

  test('without any files, an unresolved reference is still reported (no file can set it)', () => {
    expectProblems(configWith('"rate_limit": {"backend": "redis", "redis": ⟦"$REDIS_URL"⟧}'), CODE, { messages: ['$REDIS_URL', '"env" file'] });
  });

  test('the environment, when known, is named in the message', () => {
    const files = configFiles({ env: { '.env': [] }, environment: ['HOME'] });
    expectProblems(configWith(REDIS('⟦"${REDIS_URL}"⟧')), CODE, { files, messages: ['the environment', 'the env file ".env"'] });
  });

  test('the url of a redis object is judged the same way', () => {
    expectProblems(configWith('"rate_limit": {"backend": "redis", "redis": {"url": ⟦"${REDIS_URL}"⟧, "prefix": "p"}}'), CODE);
  });

  test('a URL that neither starts with $ nor holds ${ is used as written: "redis://$HOST/0" is accepted', () => {
    expectNone(configWith('"rate_limit": {"backend": "redis", "redis": "redis://$HOST/0"}'), CODE);
    expectNone(configWith('"rate_limit": {"backend": "redis", "redis": "redis://localhost:6379/0"}'), CODE);
  });

  test('one set reference is enough: the server refuses only a value that stays as written', () => {
    expectNone(configWith(REDIS('"${REDIS_HOST}${REDIS_DB}"')), CODE, { files: configFiles({ env: { '.env': ['REDIS_DB'] } }) });
    expectProblems(configWith(REDIS('⟦"${REDIS_HOST}${REDIS_DB}"⟧')), CODE, { files: configFiles({ env: { '.env': [] } }), messages: ['$REDIS_HOST, $REDIS_DB'] });
  });

  test('"auth": "jwt" needs JWT_SECRET_KEY and JWT_ALGORITHM: a warning on the value naming what is missing', () => {
    expectProblems(configWith('"auth": ⟦"jwt"⟧'), CODE, { only: true, messages: ['JWT_SECRET_KEY and JWT_ALGORITHM'] });
    expectProblems(configWith('"auth": ⟦"jwt"⟧'), CODE, { files: configFiles({ environment: ['JWT_SECRET_KEY'] }), messages: ['needs JWT_ALGORITHM'] });
    expectProblems(configWith('"env": ".env", "auth": ⟦"nojwt"⟧'), CODE, { files: configFiles({ env: { '.env': ['JWT_ALGORITHM'] } }), messages: ['needs JWT_SECRET_KEY'] });
  });

  test('set in the env file, or in the environment, the JWT settings are fine', () => {
    expectNone(configWith('"env": ".env", "auth": "jwt"'), CODE, { files: configFiles({ env: { '.env': ['JWT_SECRET_KEY', 'JWT_ALGORITHM'] } }) });
    expectNone(configWith('"auth": "jwt"'), CODE, { files: configFiles({ environment: ['JWT_SECRET_KEY', 'JWT_ALGORITHM'] }) });
    expectNone(configWith('"env": ".env", "auth": "jwt"'), CODE, { files: configFiles({ env: { '.env': ['JWT_SECRET_KEY'] }, environment: ['JWT_ALGORITHM'] }) });
  });

  test('an env file that cannot be read sets nothing, and the message says so', () => {
    expectProblems(configWith('"env": "missing.env", "auth": ⟦"jwt"⟧'), CODE, { files: configFiles({ env: {} }), messages: ['could not be read'] });
  });

  test('auth without "jwt", and the top-level redis, need no variable', () => {
    expectNone(configWith('"auth": {"method": "custom", "path": "auth.custom:MyAuth"}'), CODE);
    expectNone(configWith('"auth": "JWT"'), CODE);
    expectNone(configWith('"redis": "${REDIS_URL}"'), CODE);
  });
});
