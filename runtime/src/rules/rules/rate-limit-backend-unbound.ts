import { type Rule, Kind, NONE } from '../context';
import { isFalsy } from '../settings';

/** `rate-limit-backend-unbound`: the `redis` backend has no URL, or the `custom` backend has no InjectQ container to come from. */
export const rateLimitBackendUnbound: Rule = {
  code: 'rate-limit-backend-unbound',
  check({ tree, root, report }) {
    const rateLimit = tree.get(root, 'rate_limit');
    if (rateLimit === NONE || tree.kind[rateLimit] !== Kind.Object) return;
    const backend = tree.get(rateLimit, 'backend');
    if (backend === NONE || tree.kind[backend] !== Kind.String) return;
    const injectq = tree.get(root, 'injectq');
    const hasContainer = injectq !== NONE && !isFalsy(tree, injectq);
    if (tree.stringEquals(backend, 'redis')) {
      const redis = tree.get(rateLimit, 'redis');
      const url = redis === NONE ? NONE : tree.kind[redis] === Kind.Object ? tree.get(redis, 'url') : redis;
      if (url !== NONE && !isFalsy(tree, url)) return;
      report({
        code: 'rate-limit-backend-unbound',
        message: `The "redis" backend has no URL: set "rate_limit.redis" (e.g. "\${REDIS_URL}"), or bind a Redis client in the InjectQ container${hasContainer ? '' : ' (this file names no "injectq")'}; otherwise the server refuses to start.`,
        node: backend,
      });
    } else if (tree.stringEquals(backend, 'custom') && !hasContainer) {
      report({
        code: 'rate-limit-backend-unbound',
        message:
          'The "custom" backend is a BaseRateLimitBackend bound in the InjectQ container, and this file names no "injectq": unless the graph binds one itself, the server refuses to start.',
        node: backend,
      });
    }
  },
};
