/**
 * The import graph of the repository's own TypeScript, read with the compiler's pre-processor
 * (no type-checking): which module each file imports or loads, where relative imports land, and what a set of files reaches.
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

/** The `require('…')` and `import('…')` calls of one repository-relative file, anywhere in it: the modules it loads on first use. */
export function loadsOf(file: string): ImportEdge[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const edges: ImportEdge[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.arguments.length > 0 && ts.isStringLiteral(node.arguments[0]!)) {
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isRequire || node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const specifier = node.arguments[0].text;
        edges.push({ specifier, target: resolveRelative(file, specifier), typeOnly: false });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** The package specifiers `tsconfig.base.json` maps to a repository file (`10xgraph/rules` → `runtime/src/rules/index.ts`). */
export function sourcePaths(): Map<string, string> {
  const config = JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as { compilerOptions: { paths: Record<string, string[]> } };
  return new Map(Object.entries(config.compilerOptions.paths).map(([specifier, [target]]) => [specifier, relative(ROOT, join(ROOT, target!))]));
}

/** What a set of files reaches, following every import, re-export and load (type-only ones too) through relative paths and `sourcePaths()`. */
export interface Reach {
  /** Repository-relative files, the starting ones included. */
  files: Set<string>;
  /** Each package or `node:` module reached, with the first file seen importing it. */
  modules: Map<string, string>;
}

/** The files and modules `start` (repository-relative files) reach. */
export function reachOf(start: readonly string[]): Reach {
  const paths = sourcePaths();
  const reach: Reach = { files: new Set(), modules: new Map() };
  const queue = [...start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (reach.files.has(file)) continue;
    reach.files.add(file);
    for (const edge of [...importsOf(file), ...loadsOf(file)]) {
      const target = edge.target ?? paths.get(edge.specifier);
      if (target) queue.push(target);
      else if (!edge.specifier.startsWith('.') && !reach.modules.has(edge.specifier)) reach.modules.set(edge.specifier, file);
    }
  }
  return reach;
}
