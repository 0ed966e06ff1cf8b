import { type Rule, Kind, NONE } from '../context';
import { isFalsy } from '../settings';

/** `nothing-traced`: `observability` is set but neither Logfire nor LangSmith is enabled. */
export const nothingTraced: Rule = {
  code: 'nothing-traced',
  check({ tree, root, report }) {
    const observability = tree.get(root, 'observability');
    if (observability === NONE || tree.kind[observability] !== Kind.Object) return;
    for (const backend of ['logfire', 'langsmith']) {
      const block = tree.get(observability, backend);
      if (block === NONE || tree.kind[block] !== Kind.Object) continue;
      const enabled = tree.get(block, 'enabled');
      if (enabled !== NONE && !isFalsy(tree, enabled)) return;
    }
    report({
      code: 'nothing-traced',
      message: '"observability" enables neither "logfire" nor "langsmith": nothing is traced. Set "enabled": true in one of them, or remove "observability".',
      node: tree.keyOf(tree.property(root, 'observability')),
    });
  },
};
