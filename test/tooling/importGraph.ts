/**
 * The import graph of the repository's own TypeScript, read with the compiler's pre-processor
 * (no type-checking): which module each file imports, and where relative imports land.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const ROOT = resolve(__dirname, '..', '..');

/** One import in a source file: what it says and, for a relative one, the file it reaches. */
export interface ImportEdge {
  specifier: string;
  /** Repository-relative path of the imported file, for relative imports that resolve. */
  target?: string;
  /** True for `import type` and `export type`: erased at run time. */
  typeOnly: boolean;
}

/** Lists the `.ts` files below a repository-relative folder, skipping declarations. */
export function listSources(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string): void => {
    if (!existsSync(abs)) return;
    for (const name of readdirSync(abs)) {
      const path = join(abs, name);
      if (name === 'node_modules' || name === 'dist') continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

/** Reads the imports and re-exports of one repository-relative file. */
export function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const edges: ImportEdge[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    let typeOnly = false;
    if (ts.isImportDeclaration(statement)) {
      specifier = statement.moduleSpecifier;
      const clause = statement.importClause;
      typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      specifier = statement.moduleSpecifier;
      typeOnly = statement.isTypeOnly;
    }
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    edges.push({ specifier: specifier.text, target: resolveRelative(file, specifier.text), typeOnly });
  }
  return edges;
}

/** The repository-relative file a relative specifier names, if it exists. */
function resolveRelative(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = join(ROOT, dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(ROOT, candidate);
  }
  return undefined;
}
