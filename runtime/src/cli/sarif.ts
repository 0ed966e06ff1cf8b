/**
 * The `--format sarif` report of `10xgraph audit`, for one file or a project: SARIF 2.1.0 with one
 * rule per code of the catalog and one result per problem, positions in UTF-16 code units.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { LineIndex, RULES, ruleDocsAnchor, RULESET_VERSION, type Problem, type ProblemCode } from '../rules/index';

/** Where each code's documentation is: its section of docs/rules.md. */
export const DOCS_URL = 'https://github.com/10xgraph/10xgraph-tooling/blob/main/docs/rules.md';

/** One file of the report: its SARIF URI, its text (for positions) and its problems. */
export interface SarifFile {
  uri: string;
  text: string;
  problems: readonly Problem[];
}

/**
 * A file's URI in the report: a relative reference from the working folder when inside it, else
 * a file: URL; each path segment percent-encoded (RFC 3986), so `#`, `?`, `%`, `:`, spaces and
 * line breaks in a name are part of the path, never a fragment, a query or a scheme.
 */
export function sarifUri(path: string): string {
  const rel = relative(process.cwd(), path);
  const inside = rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
  const encoded = (p: string) => p.split(/[\\/]/).map(encodeURIComponent).join('/');
  return inside ? encoded(rel) : `file://${encoded(resolve(path).replace(/^([A-Za-z]):/, '/$1:'))}`;
}

/** The SARIF 2.1.0 log of `files` (each one artifact, in order). */
export function toSarif(files: readonly SarifFile[]) {
  const codes = Object.keys(RULES) as ProblemCode[];
  const level = { error: 'error', warning: 'warning', information: 'note' } as const;
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: '10xgraph',
            version: RULESET_VERSION,
            informationUri: DOCS_URL,
            rules: codes.map((code) => ({
              id: code,
              shortDescription: { text: RULES[code].title },
              helpUri: `${DOCS_URL}#${ruleDocsAnchor(code)}`,
              defaultConfiguration: { level: level[RULES[code].severity] },
            })),
          },
        },
        artifacts: files.map((f) => ({ location: { uri: f.uri } })),
        results: files.flatMap((f, index) => {
          const lines = new LineIndex(f.text);
          return f.problems.map((p) => {
            const start = lines.positionAt(p.offset);
            const end = lines.positionAt(p.offset + p.length);
            return {
              ruleId: p.code,
              ruleIndex: codes.indexOf(p.code),
              level: level[p.severity],
              message: { text: p.message },
              locations: [
                {
                  physicalLocation: {
                    artifactLocation: { uri: f.uri, index },
                    region: {
                      startLine: start.line + 1,
                      startColumn: start.character + 1,
                      endLine: end.line + 1,
                      endColumn: end.character + 1,
                      charOffset: p.offset,
                      charLength: p.length,
                    },
                  },
                },
              ],
            };
          });
        }),
        columnKind: 'utf16CodeUnits',
      },
    ],
  };
}
