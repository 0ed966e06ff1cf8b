import Ajv, { type ErrorObject } from 'ajv';
import { type Rule, Kind, NONE, shown } from '../context';
import type { Tree } from '../tree';

/** One finding on a schema: the JSON pointer of the offending keyword's value, and why. */
interface SchemaFinding {
  pointer: string;
  message: string;
}

let ajv: Ajv | undefined;
/** Findings by the schema's text: each distinct schema is checked once per process. */
const cache = new Map<string, SchemaFinding[]>();
const CACHE_LIMIT = 10_000;

function getAjv(): Ajv {
  ajv ??= new Ajv({ strict: false, validateFormats: false, allErrors: true, logger: false });
  return ajv;
}

/** Checks one parameter schema against JSON Schema's meta-schema, then compiles it. */
function checkPropertySchema(schema: unknown): SchemaFinding[] {
  const validator = getAjv();
  if (typeof schema !== 'object' && typeof schema !== 'boolean') return [{ pointer: '', message: 'a parameter schema must be an object (or true/false)' }];
  if (schema === null) return [{ pointer: '', message: 'a parameter schema must be an object, not null' }];
  // The model APIs read the schema as plain JSON Schema: it is judged against draft-07 whatever
  // draft its "$schema" names (ajv would refuse a draft it was not given).
  const judged = typeof schema === 'object' && !Array.isArray(schema) && '$schema' in schema ? { ...(schema as object), $schema: undefined } : schema;
  if (judged !== schema) delete (judged as Record<string, unknown>).$schema;
  try {
    const valid = validator.validateSchema(judged as object);
    if (!valid) return summarise(validator.errors ?? []);
    validator.compile(judged as object);
  } catch (error) {
    if (error instanceof RangeError) return [{ pointer: '', message: 'it nests too deeply to be checked' }];
    return [{ pointer: '', message: error instanceof Error ? error.message : String(error) }];
  }
  return [];
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
        let findings = cache.get(source);
        if (!findings) {
          findings = checkPropertySchema(tree.value(schema));
          if (cache.size >= CACHE_LIMIT) cache.clear();
          cache.set(source, findings);
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
