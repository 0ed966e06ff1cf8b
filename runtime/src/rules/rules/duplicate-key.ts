import { type Rule, shown } from '../context';
import { removePropertyEdit } from '../fixHelpers';

/** `duplicate-key`: a key appears once in an object (a strict parser silently keeps the last). */
export const duplicateKey: Rule = {
  code: 'duplicate-key',
  check({ tree, report }) {
    for (const group of tree.repeatedKeys) {
      const last = tree.keyOf(group[group.length - 1]);
      const key = shown(tree.string(last));
      for (const property of group.slice(0, -1)) {
        report({
          code: 'duplicate-key',
          message: `The key "${key}" appears again later in this object: this value is ignored (the last one counts). Remove one of them.`,
          node: tree.keyOf(property),
          related: [{ ...tree.span(last), message: `The "${key}" that counts.` }],
          fixes: [{ title: `Remove this ignored "${key}"`, edits: [removePropertyEdit(tree, property)], isPreferred: true }],
        });
      }
    }
  },
};
