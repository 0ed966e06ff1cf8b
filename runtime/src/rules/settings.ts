/**
 * The settings rules' common ground: a walk over the fields of the file that the table in
 * `fields.ts` knows, and the judgements of one value as the 10xGraph server makes them
 * (`python.ts`). Each settings rule reports one kind of these judgements (docs/rules.md).
 */
import type { Fix } from './types';
import { FILE_FIELDS, RBAC_FIELDS, type SettingSpec, settingName } from './fields';
import { isImportPath, isIpNetwork, pythonBool, pythonInt } from './python';
import { byCloseness, isLikelyTypo } from './similarity';
import { Kind, NONE, type Tree } from './tree';
import { describeType, shown } from './context';

/** One field present in the file, with its spec. */
export interface SettingPlace {
  spec: SettingSpec;
  /** Keys from the root. */
  path: string[];
  /** The property node. */
  property: number;
  /** The value node. */
  value: number;
}

/** The fields of an object value, when the spec's value is read as one (sections, `auth` and RBAC objects). */
export function fieldsOf(spec: SettingSpec, tree: Tree, value: number): Readonly<Record<string, SettingSpec>> | undefined {
  if (tree.kind[value] !== Kind.Object) return undefined;
  if (spec.type === 'section' || spec.type === 'redis' || spec.type === 'auth') return spec.fields;
  if (spec.type === 'authorization') return RBAC_FIELDS;
  return undefined;
}

/**
 * Calls `visit` for every field of the table present in the file (the last of a repeated key, as
 * the server reads it), parents before their fields. Unknown keys are not visited.
 */
export function forEachSetting(tree: Tree, visit: (place: SettingPlace) => void): void {
  const walk = (object: number, fields: Readonly<Record<string, SettingSpec>>, path: string[], parentStage: SettingSpec['stage'] | undefined) => {
    const seen = new Map<string, number>();
    for (let p = tree.first[object]; p !== NONE; p = tree.next[p]) {
      const key = tree.string(tree.keyOf(p));
      if (Object.prototype.hasOwnProperty.call(fields, key)) seen.set(key, p);
    }
    for (const [key, property] of seen) {
      const own = fields[key];
      // A field of a section judged later is judged later too.
      const spec = parentStage === 'later' && own.stage === 'start' ? { ...own, stage: 'later' as const } : own;
      const value = tree.valueOfProperty(property);
      const place = { spec, path: [...path, key], property, value };
      visit(place);
      const inner = fieldsOf(spec, tree, value);
      if (inner) walk(value, inner, place.path, spec.stage);
    }
  };
  if (tree.kind[tree.root] === Kind.Object) walk(tree.root, FILE_FIELDS, [], undefined);
}

/** Whether a value is empty to Python's truth test (`null`, `false`, `0`, `""`, `[]`, `{}`). */
export function isFalsy(tree: Tree, node: number): boolean {
  switch (tree.kind[node]) {
    case Kind.Null:
    case Kind.False:
      return true;
    case Kind.Number:
      return Number(tree.text.slice(tree.start[node], tree.end[node])) === 0;
    case Kind.String:
      return tree.end[node] - tree.start[node] === 2;
    case Kind.Object:
    case Kind.Array:
      return tree.first[node] === NONE;
    default:
      return false;
  }
}

/** A scalar's value (objects and arrays are never built: they may be large). */
export function scalarOf(tree: Tree, node: number): unknown {
  const kind = tree.kind[node];
  if (kind === Kind.Object || kind === Kind.Array) return undefined;
  return tree.value(node);
}

/** Whether the value means "not set" for this spec. */
export function isUnset(spec: SettingSpec, tree: Tree, node: number): boolean {
  if (tree.kind[node] === Kind.Null && spec.nullable) return true;
  return spec.emptyIsUnset === true && isFalsy(tree, node);
}

/** A JSON number written as an integer (Python's `json` reads `5.0` and `1e2` as floats). */
function isIntegerLiteral(tree: Tree, node: number): boolean {
  return tree.kind[node] === Kind.Number && !/[.eE]/.test(tree.text.slice(tree.start[node], tree.end[node]));
}

/** What the type of a value must be, for a message, by setting type. */
const EXPECTED: Partial<Record<SettingSpec['type'], string>> = {
  section: 'an object',
  bool: 'a boolean (true, false, or one of "1", "true", "yes", "on", "0", "false", "no", "off")',
  'strict-bool': 'true or false',
  int: 'an integer',
  limit: 'a non-negative integer, or 0 or null for no limit',
  'strict-int': 'a whole number',
  number: 'a number',
  string: 'a string',
  'string-list': 'a list of strings',
  list: 'a list',
  'import-path': 'a string "module:attribute"',
  networks: 'a list of IP addresses or networks',
  redis: 'a Redis URL string or an object {"url", "prefix"}',
  authorization: 'a string or an RBAC object',
};

/** Why the server refuses the type of the value at `place`, or undefined when it takes it. */
export function judgeType(place: SettingPlace, tree: Tree): string | undefined {
  const { spec, value } = place;
  if (isUnset(spec, tree, value)) return undefined;
  const kind = tree.kind[value];
  let ok: boolean;
  switch (spec.type) {
    case 'section':
      ok = kind === Kind.Object;
      break;
    case 'bool':
      ok = pythonBool(scalarOf(tree, value)) !== undefined;
      break;
    case 'strict-bool':
      ok = kind === Kind.True || kind === Kind.False;
      break;
    case 'int':
      ok = pythonInt(scalarOf(tree, value)) !== undefined;
      break;
    case 'limit':
      ok = kind === Kind.Null || isFalsy(tree, value) || pythonInt(scalarOf(tree, value)) !== undefined;
      break;
    case 'strict-int':
      ok = isIntegerLiteral(tree, value);
      break;
    case 'number':
      ok = kind === Kind.Number;
      break;
    case 'string':
    case 'import-path':
      ok = kind === Kind.String;
      break;
    case 'string-list':
      ok = kind === Kind.Array && tree.children(value).every((item) => tree.kind[item] === Kind.String);
      break;
    case 'list':
    case 'networks':
      ok = kind === Kind.Array;
      break;
    case 'redis':
      ok = isFalsy(tree, value) || kind === Kind.String || kind === Kind.Object;
      break;
    case 'authorization':
      ok = isFalsy(tree, value) || kind === Kind.String || kind === Kind.Object;
      break;
    default:
      ok = true;
  }
  if (ok) return undefined;
  const what = spec.type === 'string-list' && kind === Kind.Array ? 'a list with an item that is not a string' : describeType(tree, value);
  return `"${settingName(place.path)}" must be ${EXPECTED[spec.type]}, not ${what}`;
}

/** The number the server reads from a value of a numeric setting, when it reads one. */
function numberOf(spec: SettingSpec, tree: Tree, value: number): number | undefined {
  if (spec.type === 'int' || spec.type === 'limit') return pythonInt(scalarOf(tree, value));
  if (spec.type === 'strict-int' || spec.type === 'number') return tree.kind[value] === Kind.Number ? (tree.value(value) as number) : undefined;
  return undefined;
}

/** Why the server refuses the number at `place` (its type being right), or undefined. */
export function judgeRange(place: SettingPlace, tree: Tree): string | undefined {
  const { spec, value } = place;
  if (spec.min === undefined && spec.max === undefined) return undefined;
  if (isUnset(spec, tree, value) || judgeType(place, tree) !== undefined) return undefined;
  // `0`, `false` and `null` mean "no limit" to a limit; any other value is read as an integer.
  if (spec.type === 'limit' && (tree.kind[value] === Kind.Null || isFalsy(tree, value))) return undefined;
  const n = numberOf(spec, tree, value);
  if (n === undefined) return undefined;
  const low = spec.min !== undefined && n < spec.min;
  const high = spec.max !== undefined && n > spec.max;
  if (!low && !high) return undefined;
  const raw = shown(tree.text.slice(tree.start[value], tree.end[value]), 40);
  const read = String(n) === raw ? '' : ` (read as ${n})`;
  const bounds =
    spec.min !== undefined && spec.max !== undefined
      ? `from ${spec.min} to ${spec.max}`
      : spec.min !== undefined
        ? spec.min === 0
          ? '0 or more'
          : `at least ${spec.min}`
        : `at most ${spec.max}`;
  return `"${settingName(place.path)}" must be ${bounds}, not ${raw}${read}`;
}

/** Why the server refuses the value of an enum at `place`, with the fix to the closest allowed value. */
export function judgeValue(place: SettingPlace, tree: Tree): ValueVerdict | undefined {
  const { spec, value } = place;
  if (spec.type !== 'enum' || isUnset(spec, tree, value)) return undefined;
  const allowed = spec.values ?? [];
  const kind = tree.kind[value];
  if (kind === Kind.String) {
    const text = tree.string(value);
    const compared = spec.lowercase ? text.toLowerCase() : text;
    if (allowed.includes(compared)) return undefined;
    return unknownValueVerdict(place, tree, text, allowed);
  }
  return { message: `"${settingName(place.path)}" must be one of ${allowed.map((v) => `"${v}"`).join(', ')}, not ${describeType(tree, value)}` };
}

/** A verdict on a value: what is wrong, a hint to put last ("Did you mean …?") and the fixes. */
export interface ValueVerdict {
  message: string;
  hint?: string;
  fixes?: Fix[];
}

/** The verdict on a string that is none of `allowed`: the message, and a rename to the closest value. */
export function unknownValueVerdict(place: SettingPlace, tree: Tree, text: string, allowed: readonly string[]): ValueVerdict {
  // A value far longer than every allowed one is no typo of one: not compared.
  let [best] = text.length <= 40 ? byCloseness(text, allowed) : [];
  const typed = text.trim().toLowerCase();
  // The start of one allowed word ("owner" for "ownership") means that word; else a typo, or another case.
  const prefixed = typed.length >= 3 ? allowed.filter((v) => v.startsWith(typed)) : [];
  if (prefixed.length === 1) best = prefixed[0];
  const close = best !== undefined && (prefixed.length === 1 || isLikelyTypo(text, best) || best.toLowerCase() === typed);
  const list = allowed.map((v) => `"${v}"`).join(', ');
  const message = `"${settingName(place.path)}" must be one of ${list}, not "${shown(text)}"`;
  if (!close) return { message };
  return {
    message,
    hint: ` Did you mean "${best}"?`,
    fixes: [{ title: `Change to "${best}"`, edits: [{ ...tree.span(place.value), newText: JSON.stringify(best) }], isPreferred: true, safe: true }],
  };
}

/** Why the server cannot load the import path at `place`, or undefined. */
export function judgeImportPath(place: SettingPlace, tree: Tree): string | undefined {
  const { spec, value } = place;
  if (isUnset(spec, tree, value) || tree.kind[value] !== Kind.String) return undefined;
  const text = tree.string(value);
  // An `authorization` string with ":" is a backend to import; without, a built-in name.
  if (spec.type !== 'import-path' && !(spec.type === 'authorization' && text.includes(':'))) return undefined;
  if (isImportPath(text)) return undefined;
  return importPathMessage(settingName(place.path), text);
}

/** What is wrong with an import path `text` of field `name`. */
export function importPathMessage(name: string, text: string): string {
  const colons = text.split(':').length - 1;
  const why =
    colons === 0
      ? 'it has no ":"'
      : colons > 1
        ? 'it has more than one ":"'
        : text !== text.trim()
          ? 'it has white space around it, which the server does not trim'
          : 'each part must start with a letter or "_" and hold only letters, digits, "_" and "."';
  return `"${name}" must be an import path "module.path:attribute" (e.g. "graph.dependencies:container"), not "${shown(text)}": ${why}`;
}

/** The items of a `networks` value that are not IP addresses or networks. */
export function badNetworks(place: SettingPlace, tree: Tree): number[] {
  if (place.spec.type !== 'networks' || tree.kind[place.value] !== Kind.Array) return [];
  return tree.children(place.value).filter((item) => tree.kind[item] !== Kind.String || !isIpNetwork(tree.string(item)));
}

export { Kind, NONE };
