import { type Rule, Kind, NONE } from '../context';
import { isFalsy } from '../settings';

/** `setting-not-applied`: a setting the server reads differently from what the file suggests (`checkpointer`, a `$VAR` in the top-level `redis`). */
export const settingNotApplied: Rule = {
  code: 'setting-not-applied',
  check({ tree, root, report }) {
    if (tree.kind[root] !== Kind.Object) return;
    const checkpointer = tree.get(root, 'checkpointer');
    if (checkpointer !== NONE && !isFalsy(tree, checkpointer)) {
      report({
        code: 'setting-not-applied',
        message: '"checkpointer" is not applied by the server: pass the checkpointer to graph.compile() instead.',
        node: tree.keyOf(tree.property(root, 'checkpointer')),
      });
    }
    const redis = tree.get(root, 'redis');
    if (redis !== NONE && tree.kind[redis] === Kind.String && tree.string(redis).includes('$')) {
      report({
        code: 'setting-not-applied',
        message: 'The top-level "redis" is used as written: the server does not expand $VAR here (only in "rate_limit.redis"). Leave it out to use REDIS_URL from the environment.',
        node: redis,
      });
    }
  },
};
