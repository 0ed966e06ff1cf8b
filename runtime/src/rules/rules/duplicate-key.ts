import type { Rule } from '../context';
import { removePropertyEdit } from '../fixHelpers';

/** `duplicate-key`: a key appears once in an object (a strict parser silently keeps the last). */
export const duplicateKey: Rule = {
  code: 'duplicate-key',
  check({ repeatedKeys, report }) {
    for (const { key, occurrences } of repeatedKeys) {
      const last = occurrences[occurrences.length - 1];
      for (const earlier of occurrences.slice(0, -1)) {
        report({
          code: 'duplicate-key',
          message: `The key "${key}" appears again later in this object: this value is ignored (the last one counts). Remove one of them.`,
          node: earlier,
          related: [{ offset: last.offset, length: last.length, message: `The "${key}" that counts.` }],
          fixes: [{ title: `Remove this ignored "${key}"`, edits: [removePropertyEdit(earlier.parent!)], isPreferred: true }],
        });
      }
    }
  },
};
