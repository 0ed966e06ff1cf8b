import { type Rule, Kind, NONE, shown } from '../context';
import { unresolvedEnvReferences } from '../python';
import { envNameCheck } from '../environment';

/**
 * `env-var-not-set`: the server needs an environment variable that neither the `env` file nor
 * (when known) the environment sets: a `$VAR` in `rate_limit.redis`, or the JWT settings of
 * `"auth": "jwt"`. It depends on where the server runs, so it is a warning.
 */
export const envVarNotSet: Rule = {
  code: 'env-var-not-set',
  check({ tree, root, options, report }) {
    if (tree.kind[root] !== Kind.Object) return;
    const env = envNameCheck(tree, root, options);
    const rateLimit = tree.get(root, 'rate_limit');
    const redis = rateLimit !== NONE && tree.kind[rateLimit] === Kind.Object ? tree.get(rateLimit, 'redis') : NONE;
    const url = redis === NONE ? NONE : tree.kind[redis] === Kind.Object ? tree.get(redis, 'url') : redis;
    if (url !== NONE && tree.kind[url] === Kind.String) {
      const text = tree.string(url);
      const missing = unresolvedEnvReferences(text, env.defined);
      if (missing.length) {
        report({
          code: 'env-var-not-set',
          message: `"${shown(text)}" names ${missing.map((n) => `$${n}`).join(', ')}, ${env.notSet}: unless the environment the server runs in sets it, the server refuses the value and does not start.`,
          node: url,
        });
      }
    }
    const auth = tree.get(root, 'auth');
    if (auth !== NONE && tree.kind[auth] === Kind.String && tree.string(auth).includes('jwt')) {
      const missing = ['JWT_SECRET_KEY', 'JWT_ALGORITHM'].filter((name) => !env.defined(name));
      if (missing.length) {
        report({
          code: 'env-var-not-set',
          message: `"auth": "jwt" needs ${missing.join(' and ')}, ${env.notSet}: unless the environment the server runs in sets ${missing.length > 1 ? 'them' : 'it'}, the server refuses to start.`,
          node: auth,
        });
      }
    }
  },
};
