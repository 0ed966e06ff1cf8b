import type Ajv from 'ajv';
import type { ErrorObject } from 'ajv';
import { type Rule, Kind, NONE, shown } from '../context';
import type { Tree } from '../tree';

/** One finding on a schema: the JSON pointer of the offending keyword's value, and why. */
interface SchemaFinding {
  pointer: string;
  message: string;
}

const AJV_OPTIONS = { strict: false, validateFormats: false, allErrors: true, logger: false } as const;

/**
 * Two ajv instances, neither of which keeps a schema it was given. `meta` only validates schemas
 * against the meta-schema (which registers nothing); `compiler` compiles one schema at a time and
 * forgets it at once, so schemas never see each other (two tools whose schemas share an `$id`
 * are both valid, and a verdict does not depend on what was checked before: the language
 * server, after any edits, says what `audit` says). The compiler is replaced now and then,
 * since ajv also keeps generated code it never frees.
 */
let meta: Ajv | undefined;
let compiler: Ajv | undefined;
let compiled = 0;
const COMPILES_PER_COMPILER = 200;

/** ajv, loaded on first use: most schemas are judged without it (see `isPlainValidSchema`). */
function newAjv(options: object): Ajv {
  const { default: AjvClass } = require('ajv') as typeof import('ajv');
  return new AjvClass({ ...AJV_OPTIONS, ...options });
}

/**
 * Verdicts by the schema's text, bounded: past the limit the least recently used goes. A hit
 * moves its verdict to the newest end only once half the cache was written after it, so the
 * schemas a file keeps using are never the ones evicted, yet most lookups are one map step (a
 * keystroke in a file of thousands of tools looks up every one of its schemas).
 */
const cache = new Map<string, { findings: SchemaFinding[]; written: number }>();
const CACHE_LIMIT = 1000;
/** Verdicts written (or moved to the newest end) so far. */
let writes = 0;

function cached(source: string): SchemaFinding[] | undefined {
  const entry = cache.get(source);
  if (entry && writes - entry.written > CACHE_LIMIT / 2) {
    cache.delete(source);
    cache.set(source, entry);
    entry.written = writes++;
  }
  return entry?.findings;
}

function remember(source: string, findings: SchemaFinding[]): void {
  cache.set(source, { findings, written: writes++ });
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
}

/** Checks one parameter schema against JSON Schema's meta-schema (draft-07), then compiles it. */
export function checkPropertySchema(schema: unknown): SchemaFinding[] {
  if (typeof schema !== 'object' && typeof schema !== 'boolean') return [{ pointer: '', message: 'a parameter schema must be an object (or true/false)' }];
  if (schema === null) return [{ pointer: '', message: 'a parameter schema must be an object, not null' }];
  // The model APIs read the schema as plain JSON Schema: it is judged against draft-07 whatever
  // draft its "$schema" names (ajv would refuse a draft it was not given).
  const judged = typeof schema === 'object' && !Array.isArray(schema) && '$schema' in schema ? { ...(schema as object), $schema: undefined } : schema;
  if (judged !== schema) delete (judged as Record<string, unknown>).$schema;
  if (isPlainValidSchema(judged, 0)) return [];
  try {
    meta ??= newAjv({});
    const valid = meta.validateSchema(judged as object);
    if (!valid) return summarise(meta.errors ?? []);
    if (compiled++ % COMPILES_PER_COMPILER === 0) compiler = undefined;
    compiler ??= newAjv({ validateSchema: false });
    try {
      compiler.compile(judged as object);
    } finally {
      // Forget the schema and every $id in it: the next one starts from a clean registry.
      compiler.removeSchema();
    }
  } catch (error) {
    if (error instanceof RangeError) return [{ pointer: '', message: 'it nests too deeply to be checked' }];
    return [{ pointer: '', message: error instanceof Error ? error.message : String(error) }];
  }
  return [];
}

const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isString = (v: unknown) => typeof v === 'string';
const isUniqueStrings = (v: unknown) => Array.isArray(v) && v.every(isString) && new Set(v).size === v.length;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The keywords tool schemas almost always use, with what draft-07 allows for each: a schema made
 * of these alone needs neither ajv nor its meta-schema to be known valid. Anything else (a
 * pattern, a $ref, an $id, anyOf, ...) goes to ajv. A test checks that ajv agrees with every
 * schema accepted here.
 */
const PLAIN_KEYWORDS: Record<string, (value: unknown, depth: number) => boolean> = {
  type: (v) => (isString(v) && SIMPLE_TYPES.has(v as string)) || (Array.isArray(v) && v.length > 0 && isUniqueStrings(v) && v.every((t) => SIMPLE_TYPES.has(t))),
  title: isString,
  description: isString,
  $comment: isString,
  default: () => true,
  examples: Array.isArray,
  // Unique primitive values (objects would need ajv's deep equality).
  enum: (v) => Array.isArray(v) && v.length > 0 && v.every((x) => x === null || typeof x !== 'object') && new Set(v.map((x) => JSON.stringify(x))).size === v.length,
  minimum: isNumber,
  maximum: isNumber,
  exclusiveMinimum: isNumber,
  exclusiveMaximum: isNumber,
  minLength: isCount,
  maxLength: isCount,
  minItems: isCount,
  maxItems: isCount,
  uniqueItems: (v) => typeof v === 'boolean',
  required: isUniqueStrings,
  items: (v, depth) => isPlainValidSchema(v, depth + 1),
  additionalProperties: (v, depth) => isPlainValidSchema(v, depth + 1),
  properties: (v, depth) => isObject(v) && Object.values(v).every((x) => isPlainValidSchema(x, depth + 1)),
};

/** True when `schema` is certainly valid draft-07 made of `PLAIN_KEYWORDS` only; false means "ask ajv". */
export function isPlainValidSchema(schema: unknown, depth: number): boolean {
  if (typeof schema === 'boolean') return true;
  if (!isObject(schema) || depth > 32) return false;
  for (const key of Object.keys(schema)) {
    const check = Object.hasOwn(PLAIN_KEYWORDS, key) ? PLAIN_KEYWORDS[key] : undefined;
    if (!check || !check(schema[key], depth)) return false;
  }
  return true;
}

/** One finding per offending keyword: the most specific of the meta-schema's errors there. */
function summarise(errors: ErrorObject[]): SchemaFinding[] {
  const byPointer = new Map<string, ErrorObject[]>();
  // An error on a value whose parts have errors of their own (anyOf's other branch, "items
  // must be an array" beside a bad item schema) is the same fault seen from above: keep the deepest.
  const deepest = errors.filter((e) => !errors.some((o) => o.instancePath.startsWith(e.instancePath + '/')));
  for (const e of deepest) {
    const list = byPointer.get(e.instancePath) ?? [];
    list.push(e);
    byPointer.set(e.instancePath, list);
  }
  const findings: SchemaFinding[] = [];
  for (const [pointer, list] of byPointer) {
    const segments = pointer.split('/');
    const last = segments.pop() ?? '';
    // An item of a list is named by its list: "type" item 2.
    const isItem = /^\d+$/.test(last) && segments.length > 1;
    const key = isItem ? segments[segments.length - 1] : last;
    const name = isItem ? `"${key}" item ${Number(last) + 1}` : `"${key}"`;
    const enumError = list.find((e) => e.keyword === 'enum');
    let message: string;
    if (enumError) {
      const allowed = (enumError.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ');
      message = `${name} must be one of ${allowed}`;
    } else {
      const e = list.find((x) => x.keyword !== 'anyOf' && x.keyword !== 'oneOf') ?? list[0];
      message = key ? `${name} ${e.message ?? 'is invalid'}` : (e.message ?? 'is not a valid schema');
    }
    findings.push({ pointer, message });
  }
  return findings;
}

/** The node a JSON pointer names inside `root`, or the deepest node it reaches. */
function nodeAtPointer(tree: Tree, root: number, pointer: string): number {
  let node = root;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    let next = NONE;
    if (tree.kind[node] === Kind.Object) next = tree.get(node, segment);
    else if (tree.kind[node] === Kind.Array) {
      let i = Number(segment);
      for (next = tree.first[node]; next !== NONE && i > 0; next = tree.next[next]) i--;
    }
    if (next === NONE) break;
    node = next;
  }
  return node;
}

/** `invalid-property-schema`: each parameter's schema is valid JSON Schema (checked with ajv). */
export const invalidPropertySchema: Rule = {
  code: 'invalid-property-schema',
  check({ tree, text, tools, report }) {
    for (const tool of tools) {
      if (!tool.schema) continue;
      const properties = tool.schema.properties;
      if (properties === NONE || tree.kind[properties] !== Kind.Object) continue;
      for (let property = tree.first[properties]; property !== NONE; property = tree.next[property]) {
        // A repeated parameter is judged by its last schema, the one a strict parser keeps.
        if (tree.property(properties, tree.string(tree.keyOf(property))) !== property) continue;
        const schema = tree.valueOfProperty(property);
        const source = text.slice(tree.start[schema], tree.end[schema]);
        let findings = cached(source);
        if (!findings) {
          findings = checkPropertySchema(tree.value(schema));
          remember(source, findings);
        }
        for (const finding of findings) {
          report({
            code: 'invalid-property-schema',
            message: `The schema of parameter '${shown(tree.string(tree.keyOf(property)))}' of ${tool.label} is not valid JSON Schema: ${finding.message}.`,
            node: nodeAtPointer(tree, schema, finding.pointer),
          });
        }
      }
    }
  },
};
