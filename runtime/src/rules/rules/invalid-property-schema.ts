import Ajv, { type ErrorObject } from 'ajv';
import { type Rule, Kind, NONE } from '../context';
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
export function checkPropertySchema(schema: unknown): SchemaFinding[] {
  const validator = getAjv();
  if (typeof schema !== 'object' && typeof schema !== 'boolean') return [{ pointer: '', message: 'a parameter schema must be an object (or true/false)' }];
  if (schema === null) return [{ pointer: '', message: 'a parameter schema must be an object, not null' }];
  const valid = validator.validateSchema(schema as object);
  if (!valid) return summarise(validator.errors ?? []);
  try {
    validator.compile(schema as object);
  } catch (error) {
    return [{ pointer: '', message: error instanceof Error ? error.message : String(error) }];
  }
  return [];
}

/** One finding per offending keyword: the most specific of the meta-schema's errors there. */
function summarise(errors: ErrorObject[]): SchemaFinding[] {
  const byPointer = new Map<string, ErrorObject[]>();
  for (const e of errors) {
    const list = byPointer.get(e.instancePath) ?? [];
    list.push(e);
    byPointer.set(e.instancePath, list);
  }
  const findings: SchemaFinding[] = [];
  for (const [pointer, list] of byPointer) {
    const key = pointer.split('/').pop() ?? '';
    const enumError = list.find((e) => e.keyword === 'enum');
    let message: string;
    if (enumError && key === 'type') {
      message = `"type" must be one of ${(enumError.params as { allowedValues: string[] }).allowedValues.map((v) => `"${v}"`).join(', ')}`;
    } else if (enumError) {
      message = `"${key}" must be one of ${(enumError.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    } else {
      const e = list.find((x) => x.keyword !== 'anyOf' && x.keyword !== 'oneOf') ?? list[0];
      message = key ? `"${key}" ${e.message ?? 'is invalid'}` : (e.message ?? 'is not a valid schema');
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
            message: `The schema of parameter '${tree.string(tree.keyOf(property))}' of ${tool.label} is not valid JSON Schema: ${finding.message}.`,
            node: nodeAtPointer(tree, schema, finding.pointer),
          });
        }
      }
    }
  },
};
