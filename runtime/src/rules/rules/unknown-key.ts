import { type Rule, Kind, NONE, shown } from '../context';
import { FILE_FIELDS, type SettingSpec } from '../fields';
import { removePropertyEdit } from '../fixHelpers';
import { fieldsOf, forEachSetting } from '../settings';
import { byCloseness, isLikelyTypo } from '../similarity';
import type { Fix } from '../types';

/** `unknown-key`: a key the server does not read, at the top level or in one of its settings objects. */
export const unknownKey: Rule = {
  code: 'unknown-key',
  check({ tree, root, report }) {
    const judge = (object: number, fields: Readonly<Record<string, SettingSpec>>, where: string) => {
      const known = Object.keys(fields);
      for (let p = tree.first[object]; p !== NONE; p = tree.next[p]) {
        const key = tree.keyOf(p);
        const name = tree.string(key);
        if (Object.prototype.hasOwnProperty.call(fields, name)) continue;
        // `$schema` is read by editors, not by the server, and harms nothing there.
        if (name === '$schema' && object === root) continue;
        // A key far longer than every known one is no typo of one: not compared (a 1 MB key stays cheap).
        const [best] = name.length <= 40 ? byCloseness(name, known) : [];
        const typo = best !== undefined && isLikelyTypo(name, best);
        const free = typo && tree.property(object, best) === NONE;
        const fixes: Fix[] = [];
        if (free) {
          fixes.push({ title: `Rename "${shown(name)}" to "${best}"`, edits: [{ ...tree.span(key), newText: JSON.stringify(best) }], isPreferred: true, safe: true });
        }
        fixes.push({ title: `Remove "${shown(name)}"`, edits: [removePropertyEdit(tree, p)], isPreferred: fixes.length === 0 });
        const hint = typo ? (free ? ` Did you mean "${best}"?` : ` ("${best}" is already set.)`) : '';
        report({
          code: 'unknown-key',
          message: `"${shown(name)}" is not read by 10xGraph${where ? ` in "${where}"` : ''}: the server ignores it.${hint}`,
          node: key,
          fixes,
        });
      }
    };
    if (tree.kind[root] === Kind.Object) judge(root, FILE_FIELDS, '');
    forEachSetting(tree, (place) => {
      const fields = fieldsOf(place.spec, tree, place.value);
      if (fields) judge(place.value, fields, place.path.join('.'));
    });
  },
};
