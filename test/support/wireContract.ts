/**
 * The wire of the real 10xGraph server (`10xgraph-api`) as JSON Schemas, one per route answer, in
 * test/fixtures/wire/ (each schema's description names the server source it follows). Tests check
 * an answer with `checkWire(name, value)` or `assertWire(name, value)`, `name` being the file name
 * without `.schema.json` (`invoke`, `stream-chunk`, `ws-done`, ...).
 */
import { AssertionError } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { ROOT } from './run';

/** The folder of the wire schemas. */
export const WIRE_SCHEMA_FOLDER = join(ROOT, 'test', 'fixtures', 'wire');

const SUFFIX = '.schema.json';

/** The names of the wire schemas, sorted: `checkWire` and `assertWire` take one of them. */
export const WIRE_SCHEMA_NAMES: readonly string[] = readdirSync(WIRE_SCHEMA_FOLDER)
  .filter((file) => file.endsWith(SUFFIX))
  .map((file) => file.slice(0, -SUFFIX.length))
  .sort();

let validators: Map<string, ValidateFunction> | undefined;

/** Compiles every schema once: all are added first, so a `$ref` to a sibling file resolves whatever the order. */
function loadValidators(): Map<string, ValidateFunction> {
  if (validators) return validators;
  const ajv = new Ajv({ allErrors: true, strict: false });
  const ids = new Map<string, string>();
  for (const name of WIRE_SCHEMA_NAMES) {
    const schema = JSON.parse(readFileSync(join(WIRE_SCHEMA_FOLDER, name + SUFFIX), 'utf8')) as { $id?: string };
    if (typeof schema.$id !== 'string') throw new Error(`${name}${SUFFIX}: the schema needs an $id (the sibling schemas refer to it)`);
    ajv.addSchema(schema);
    ids.set(name, schema.$id);
  }
  const compiled = new Map<string, ValidateFunction>();
  for (const [name, id] of ids) {
    const validate = ajv.getSchema(id);
    if (!validate) throw new Error(`${name}${SUFFIX}: ajv could not compile the schema`);
    compiled.set(name, validate);
  }
  validators = compiled;
  return compiled;
}

/** One ajv error as a line: where (a JSON pointer), what, and the allowed values when the keyword has them. */
function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const params = error.params as { allowedValue?: unknown; allowedValues?: unknown[] };
  const allowed = error.keyword === 'const' ? ` (${JSON.stringify(params.allowedValue)})` : error.keyword === 'enum' ? ` (${JSON.stringify(params.allowedValues)})` : '';
  return `${where} ${error.message ?? error.keyword}${allowed}`;
}

/** The ajv errors of `value` against the wire schema `name`, one text each; empty when it matches. */
export function checkWire(name: string, value: unknown): string[] {
  const validate = loadValidators().get(name);
  if (!validate) throw new Error(`checkWire: no wire schema '${name}'; the schemas are ${WIRE_SCHEMA_NAMES.join(', ')}`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(describeError);
}

/** Fails with an AssertionError naming the schema and its errors unless `value` matches the wire schema `name`. */
export function assertWire(name: string, value: unknown): void {
  const errors = checkWire(name, value);
  if (errors.length === 0) return;
  throw new AssertionError({
    message: `the value does not match the wire schema '${name}' (test/fixtures/wire/${name}${SUFFIX}): ${errors.join('; ')}`,
    actual: value,
    expected: name,
    operator: 'assertWire',
  });
}
