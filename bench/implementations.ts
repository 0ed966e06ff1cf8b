/** The audit and the anchors it is measured against, each a function of the text. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTree as jsoncParseTree, visit } from 'jsonc-parser';
import { getLanguageService } from 'vscode-json-languageservice';
import { TextDocument } from 'vscode-languageserver-textdocument';

const ROOT = join(__dirname, '..');
// The shipped bundle of the rule set, as the CLI and the language server run it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const rules = require(join(ROOT, 'runtime', 'dist', 'rules.js')) as typeof import('../runtime/src/rules/index');

const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', '10xgraph.schema.json'), 'utf8'));
const SCHEMA_URI = 'https://10xgraph.dev/schemas/10xgraph.schema.json';
const service = getLanguageService({ schemaRequestService: async () => JSON.stringify(schema) });
service.configure({ validate: true, allowComments: false, schemas: [{ uri: SCHEMA_URI, fileMatch: ['*10xgraph.json'], schema }] });

let version = 0;

/** vscode-json-languageservice: parse the text and validate it against the schema (what VS Code does with a schema alone). */
export async function jsonLanguageService(text: string): Promise<number> {
  const document = TextDocument.create('file:///bench/10xgraph.json', 'json', ++version, text);
  const json = service.parseJSONDocument(document);
  const diagnostics = await service.doValidation(document, json, { comments: 'error', trailingCommas: 'error' }, schema);
  return diagnostics.length;
}

/** The synchronous implementations, by name. */
export const SYNC: Record<string, (text: string) => unknown> = {
  audit: (text) => rules.auditConfig(text).length,
  'jsonc-parser visit': (text) => visit(text, {}),
  'jsonc-parser parseTree': (text) => jsoncParseTree(text),
  'JSON.parse': (text) => JSON.parse(text),
};

export { rules };
