/**
 * What `10xgraph types` hands json-schema-to-typescript for one tool: a copy of its `parameters`
 * that can neither reach outside the tool nor write anything but declarations.
 *
 * - `$ref`: json-schema-to-typescript resolves references with @apidevtools/json-schema-ref-parser,
 *   which reads files and URLs, and resolves `#` against the schema it was given, which holds
 *   every tool. So each `$ref` must be a JSON pointer (`#`, `#/...`) into the tool's own
 *   parameters, reaching a schema; it is then re-rooted at the tool's place in that schema. The
 *   ref parser looks at every `$ref` whatever its place (inside `default` too), so all are checked.
 * - Comments: descriptions become JSDoc comments, patternProperties keys and `minItems`/`maxItems`
 *   are written into comments too, and json-schema-to-typescript escapes a `*` + `/` in only some
 *   of them (and patternProperties keys only once). Here each is escaped before it gets there.
 *
 * "Where a schema can be" follows json-schema-to-typescript: a keyword's value is a schema, except
 * under `enum`, `const`, `default` and `examples` (values, never parsed as schemas) and under the
 * keywords that map names to schemas (`properties`, `definitions`, ...), whose values are schemas.
 */

/** Keys and indexes from `parameters` to a value inside it. */
export type SchemaPath = Array<string | number>;

/** Why the parameters cannot be turned into types, and where. */
export interface SchemaRefusal {
  path: SchemaPath;
  /** What is refused: `"$ref" "../x.json"`. */
  subject: string;
  /** Why, to follow the subject and where it is: `names another file or a URL: ...`. */
  reason: string;
}

/** How a value inside a schema is read: as a schema, as a map of names to schemas, or as plain data. */
type Place = 'schema' | 'map' | 'data';

const MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/** A `*` followed by `/` ends a block comment; `*\/` reads the same to people and ends nothing. */
export function escapeComment(text: string): string {
  return text.replaceAll('*/', '*\\/');
}

/** `name` as one segment of a JSON pointer in a URI fragment (RFC 6901 §3 and §6). */
export function pointerSegment(name: string): string {
  return encodeURIComponent(name.replaceAll('~', '~0').replaceAll('/', '~1'));
}

/**
 * A copy of `parameters` for the schema whose JSON pointer is `base` (`#/properties/<tool>`):
 * each `$ref` re-rooted there, comments escaped, counts that are no numbers (which would be
 * written into a comment as they are) left out. Or the first reason it cannot be.
 */
export function prepareToolSchema(parameters: unknown, base: string): { schema: unknown } | { refusal: SchemaRefusal } {
  const refusal: { found?: SchemaRefusal } = {};
  const schema = copy(parameters, 'schema', [], { root: parameters, base, refusal });
  return refusal.found ? { refusal: refusal.found } : { schema };
}

interface CopyState {
  root: unknown;
  base: string;
  refusal: { found?: SchemaRefusal };
}

function copy(value: unknown, place: Place, path: SchemaPath, state: CopyState): unknown {
  if (state.refusal.found || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item, index) => copy(item, place === 'data' ? 'data' : 'schema', [...path, index], state));
  const object = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const keys = Object.keys(object);
  for (const key of keys) {
    let child = object[key];
    let outKey = key;
    const childPath = [...path, key];
    if (key === '$ref' && typeof child === 'string') {
      const reason = checkRef(child, state.root);
      if (reason) {
        state.refusal.found ??= { path: childPath, subject: `"$ref" ${quote(child)}`, reason };
        return value;
      }
      child = state.base + child.slice(1);
    } else if (place === 'schema' && key === 'description' && typeof child === 'string') {
      child = escapeComment(child);
    } else if (place === 'schema' && (key === 'minItems' || key === 'maxItems') && typeof child !== 'number') {
      continue;
    } else {
      child = copy(child, childPlace(place, key), childPath, state);
    }
    if (place === 'map' && path[path.length - 1] === 'patternProperties') {
      // The pattern is written into a comment only (TypeScript cannot check keys by pattern).
      outKey = escapeComment(key);
      if (outKey !== key && Object.hasOwn(object, outKey)) {
        state.refusal.found ??= {
          path: childPath,
          subject: `the pattern ${quote(key)}`,
          reason: `has a twin ${quote(outKey)} that the comments of the types cannot tell apart from it: merge the two`,
        };
        return value;
      }
    }
    // Defined, not assigned: a key such as "__proto__" stays a key of the copy.
    Object.defineProperty(out, outKey, { value: child, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function childPlace(place: Place, key: string): Place {
  if (place === 'data') return 'data';
  if (place === 'map') return 'schema';
  if (MAP_KEYWORDS.has(key)) return 'map';
  return DATA_KEYWORDS.has(key) ? 'data' : 'schema';
}

/**
 * Why `ref` is not a JSON pointer to a schema inside `root` (the tool's parameters), or
 * undefined when it is. Segments are decoded as the ref parser decodes them.
 */
function checkRef(ref: string, root: unknown): string | undefined {
  const only = '`10xgraph types` resolves only JSON pointers into the same parameters ("#/definitions/name", or "#" for the parameters themselves)';
  if (ref === '') return `is empty: ${only}`;
  if (!ref.startsWith('#')) return `names another file or a URL: ${only}, so that the types depend on the config alone`;
  if (ref !== '#' && !ref.startsWith('#/')) return `is not a JSON pointer: ${only}`;
  const segments = ref === '#' ? [] : ref.slice(2).split('/').map(decodeSegment);
  let node = root;
  let place: Place = 'schema';
  for (const [index, segment] of segments.entries()) {
    const at = `"#/${segments.slice(0, index + 1).join('/')}"`;
    if (isObject(node) && typeof node.$ref === 'string')
      return `goes through ${index === 0 ? 'the parameters' : `"#/${segments.slice(0, index).join('/')}"`}, itself a "$ref": point at the schema it names instead`;
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= node.length) return `points at nothing: the parameters have no ${at}`;
      node = node[Number(segment)];
      place = 'schema';
    } else if (isObject(node) && Object.hasOwn(node, segment)) {
      node = node[segment];
      place = childPlace(place, segment);
    } else {
      return `points at nothing: the parameters have no ${at}`;
    }
    if (place === 'data') return `points into ${at}, a value rather than a schema`;
  }
  if (place !== 'schema' || !(isObject(node) || typeof node === 'boolean')) return 'points at something that is not a schema';
  return undefined;
}

function decodeSegment(segment: string): string {
  const unescaped = segment.replaceAll('~1', '/').replaceAll('~0', '~');
  try {
    return decodeURIComponent(unescaped);
  } catch {
    // Not valid percent-encoding: the ref parser takes the segment as it is, and so does this.
    return unescaped;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text from the file in a message: quoted, and cut when long, so a 1 MB `$ref` makes a short line. */
function quote(text: string): string {
  return JSON.stringify(text.length <= 80 ? text : `${text.slice(0, 79)}…`);
}
