import { type Rule, Kind, NONE, describeType, openBrace } from '../context';
import { BUILTIN_AUTHORIZATION, RBAC_FIELDS } from '../fields';
import { pythonStrip } from '../python';
import { type SettingPlace, type ValueVerdict, forEachSetting, isFalsy, judgeValue, unknownValueVerdict } from '../settings';
import type { Tree } from '../tree';

/** A verdict on a value, with where it stands when that is not the value itself. */
interface Verdict extends ValueVerdict {
  node?: number | { offset: number; length: number };
}

/** `setting-unknown-value`: a setting read at start-up names a value the server does not know. */
export const settingUnknownValue: Rule = {
  code: 'setting-unknown-value',
  check({ tree, report }) {
    forEachSetting(tree, (place) => {
      if (place.spec.stage !== 'start') return;
      const verdict = place.spec.type === 'authorization' ? judgeAuthorization(place, tree) : judgeValue(place, tree);
      if (!verdict) return;
      const { message, hint, fixes, node } = verdict as Verdict;
      report({
        code: 'setting-unknown-value',
        message: `${message}: the server refuses it and does not start.${hint ?? ''}`,
        node: node ?? place.value,
        ...(fixes ? { fixes } : {}),
      });
    });
  },
};

/**
 * `authorization` as the server resolves it: an object names the RBAC backend by `backend` (or
 * `type` when `backend` is empty), lower-cased; a string without ":" names a built-in backend,
 * trimmed and lower-cased (a string with ":" is an import path, judged by `invalid-import-path`).
 */
function judgeAuthorization(place: SettingPlace, tree: Tree): Verdict | undefined {
  const value = place.value;
  if (isFalsy(tree, value)) return undefined;
  if (tree.kind[value] === Kind.String) {
    const text = tree.string(value);
    if (text.includes(':') || BUILTIN_AUTHORIZATION.includes(pythonStrip(text).toLowerCase())) return undefined;
    const verdict = unknownValueVerdict(place, tree, text, BUILTIN_AUTHORIZATION);
    return { ...verdict, message: `${verdict.message} (or a "module:attribute" path, or an RBAC object {"backend": "rbac", "roles": {…}})` };
  }
  if (tree.kind[value] !== Kind.Object) return undefined;
  const backend = tree.get(value, 'backend');
  const named = backend !== NONE && !isFalsy(tree, backend) ? backend : tree.get(value, 'type');
  const allowed = RBAC_FIELDS.backend.values!;
  if (named === NONE || isFalsy(tree, named)) {
    return { message: `"authorization" is an object without "backend": the only backend an object configures is "rbac" (write "backend": "rbac")`, node: openBrace(tree, value) };
  }
  if (tree.kind[named] !== Kind.String) return { message: `"authorization.backend" must be "rbac", not ${describeType(tree, named)}`, node: named };
  const text = tree.string(named);
  if (allowed.includes(text.toLowerCase())) return undefined;
  const verdict = unknownValueVerdict({ ...place, value: named, path: ['authorization', 'backend'] }, tree, text, allowed);
  return { ...verdict, node: named };
}
