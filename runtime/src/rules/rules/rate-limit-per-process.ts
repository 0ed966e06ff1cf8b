import { type Rule, Kind, NONE } from '../context';
import { pythonBool } from '../python';
import { scalarOf } from '../settings';

/** `rate-limit-per-process`: limits are on with the `memory` backend, which counts per server process. */
export const rateLimitPerProcess: Rule = {
  code: 'rate-limit-per-process',
  check({ tree, root, report }) {
    const rateLimit = tree.get(root, 'rate_limit');
    if (rateLimit === NONE || tree.kind[rateLimit] !== Kind.Object) return;
    const enabled = tree.get(rateLimit, 'enabled');
    if (enabled !== NONE && pythonBool(scalarOf(tree, enabled)) !== true) return;
    const backend = tree.get(rateLimit, 'backend');
    if (backend !== NONE && !(tree.kind[backend] === Kind.String && tree.stringEquals(backend, 'memory'))) return;
    report({
      code: 'rate-limit-per-process',
      message:
        'Rate limits use the "memory" backend, which counts per process: with N workers the real limit is N × "requests", reset on every restart (the server logs this warning). Use "backend": "redis" when the server runs more than one worker.',
      node: backend !== NONE ? backend : tree.keyOf(tree.property(root, 'rate_limit')),
    });
  },
};
