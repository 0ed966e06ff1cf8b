import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { importsOf, listSources, loadsOf, reachOf, ROOT } from './importGraph';

const exportsOfRuntime = Object.keys(JSON.parse(readFileSync(join(ROOT, 'runtime', 'package.json'), 'utf8')).exports as Record<string, unknown>).map((key) =>
  key === '.' ? '10xgraph' : `10xgraph/${key.slice(2)}`,
);

/** Every import of the files below `dir` that reaches into one of `forbidden` (repository-relative folders). */
function crossings(dir: string, forbidden: string[]): string[] {
  const found: string[] = [];
  for (const file of listSources(dir)) {
    for (const edge of importsOf(file)) {
      if (edge.target && forbidden.some((folder) => edge.target!.startsWith(`${folder}/`))) found.push(`${file}: ${edge.specifier}`);
    }
  }
  return found;
}

test('the language server and the extension reach the runtime only through its package name, and each other only through common/', () => {
  assert.deepEqual(crossings('server/src', ['runtime', 'client']), []);
  assert.deepEqual(crossings('client/src', ['runtime', 'server']), []);
  assert.deepEqual(crossings('common', ['runtime', 'server', 'client']), []);
});

test('every 10xgraph import of the server and the extension is a public entry point of the runtime', () => {
  const paths = Object.keys(
    (JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')) as { compilerOptions: { paths: Record<string, unknown> } }).compilerOptions
      .paths,
  );
  const used = new Set<string>();
  for (const file of [...listSources('server/src'), ...listSources('client/src')]) {
    for (const edge of importsOf(file)) if (edge.specifier === '10xgraph' || edge.specifier.startsWith('10xgraph/')) used.add(edge.specifier);
  }
  assert.ok(used.size > 0, 'the server imports the rule set');
  for (const specifier of used) {
    assert.ok(exportsOfRuntime.includes(specifier), `${specifier} is not in runtime/package.json "exports"`);
    assert.ok(paths.includes(specifier), `${specifier} is not mapped to its source in tsconfig.base.json "paths"`);
  }
});

test('the runtime library never imports a front end: only the CLI imports runtime/src/cli', () => {
  const library = listSources('runtime/src').filter((file) => !file.startsWith('runtime/src/cli/'));
  assert.ok(library.length > 30);
  const found = library.flatMap((file) =>
    importsOf(file)
      .filter((edge) => edge.target?.startsWith('runtime/src/cli/'))
      .map((edge) => `${file}: ${edge.specifier}`),
  );
  assert.deepEqual(found, []);
});

test('the client package stands alone: it imports nothing outside client-sdk/, and no package at run time', () => {
  const found: string[] = [];
  for (const file of listSources('client-sdk/src')) {
    for (const edge of importsOf(file)) {
      if (edge.specifier.startsWith('.') ? !edge.target?.startsWith('client-sdk/') : !edge.typeOnly) found.push(`${file}: ${edge.specifier}`);
    }
  }
  assert.deepEqual(found, []);
});

test('wire.ts is the one declaration of every shape that travels and of the run limits', () => {
  const WIRE = 'client-sdk/src/wire.ts';
  const shapes = [
    'RemoteToolCall',
    'RemoteCall',
    'StreamChunk',
    'RunChunk',
    'ResponseMetadata',
    'Metadata',
    'InvokeData',
    'GraphTools',
    'GraphToolInfo',
    'DEFAULT_RECURSION_LIMIT',
    'MAX_RECURSION_LIMIT',
  ];
  // A declaration, not a name in a multi-line import (`  type GraphTools,`): the name is followed by `=`, `<`, `{`, `:` or `extends`.
  const declaration = new RegExp(`^\\s*(?:export )?(?:declare )?(?:interface|type|const|class) (${shapes.join('|')})\\b(?=\\s*(?:[=<{:]|extends\\b))`, 'm');
  const found: string[] = [];
  for (const file of ['runtime/src', 'client-sdk/src', 'server/src', 'client/src', 'common'].flatMap((dir) => listSources(dir))) {
    if (file === WIRE) continue;
    const match = declaration.exec(readFileSync(join(ROOT, file), 'utf8'));
    if (match) found.push(`${file}: ${match[1]}`);
  }
  assert.deepEqual(found, []);
});

// docs/architecture.md against the tree: the paths it names and the layer rules it states.
const ARCHITECTURE = 'docs/architecture.md';
const architecture = readFileSync(join(ROOT, ARCHITECTURE), 'utf8');

/** Every import and load of `file`, type-only ones included, with the file it reaches when it is relative. */
function edgesOf(file: string) {
  return [...importsOf(file), ...loadsOf(file)];
}

/** The files below `dir` with an import or load for which `wrong` says why it is wrong, as `file: specifier (why)`. */
function violations(dir: string, wrong: (specifier: string, target: string | undefined) => string | undefined): string[] {
  return listSources(dir).flatMap((file) =>
    edgesOf(file).flatMap((edge) => {
      const why = wrong(edge.specifier, edge.target);
      return why ? [`${file}: ${edge.specifier} (${why})`] : [];
    }),
  );
}

test(`every repository path ${ARCHITECTURE} names in backticks exists, and every package it names is a public entry point`, () => {
  const packages = new Set([...exportsOfRuntime, '10xgraph-client']);
  const spans = [...architecture.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  const packageSpans = spans.filter((span) => /^10xgraph(?:-client)?(?:\/[\w-]+)?$/.test(span));
  assert.deepEqual(
    packageSpans.filter((span) => !packages.has(span)),
    [],
    'a package named is not an entry point of runtime/package.json or 10xgraph-client',
  );
  const named = spans.filter((span) => span.includes('/') && !span.includes(':') && !span.startsWith('/') && !packageSpans.includes(span));
  assert.ok(named.length > 40, `${ARCHITECTURE} names only ${named.length} paths`);
  const missing: string[] = [];
  for (const span of new Set(named)) {
    const path = span.replace(/\/$/, '');
    if (!path.includes('<')) {
      if (!existsSync(join(ROOT, path))) missing.push(span);
      continue;
    }
    // A pattern (`runtime/src/rules/rules/<code>.ts`): its folder exists and holds a file it matches.
    const folder = dirname(path);
    const name = new RegExp(
      `^${path
        .slice(folder.length + 1)
        .replace(/[.+]/g, '\\$&')
        .replace(/<[^>]+>/g, '[^/]+')}$`,
    );
    if (folder.includes('<') || !existsSync(join(ROOT, folder)) || !statSync(join(ROOT, folder)).isDirectory() || !readdirSync(join(ROOT, folder)).some((f) => name.test(f))) {
      missing.push(span);
    }
  }
  assert.deepEqual(missing, []);
});

test('the rule set imports no node: module, of the repository only its own folder, version.ts and text/, of packages only jsonc-parser and ajv', () => {
  const ALLOWED_FILES = ['runtime/src/rules/', 'runtime/src/version.ts', 'runtime/src/text/'];
  const ALLOWED_PACKAGES = ['jsonc-parser', 'ajv'];
  assert.ok(listSources('runtime/src/rules').length > 50);
  const found = violations('runtime/src/rules', (specifier, target) => {
    if (specifier.startsWith('.')) return target && ALLOWED_FILES.some((allowed) => target.startsWith(allowed)) ? undefined : `reaches ${target ?? 'nothing'}`;
    return ALLOWED_PACKAGES.includes(specifier) ? undefined : 'a module the rule set does not take';
  });
  assert.deepEqual(found, []);
  // And so does everything they reach (version.ts and text/ included).
  const reach = reachOf(listSources('runtime/src/rules'));
  assert.deepEqual(
    [...reach.modules.keys()].filter((m) => !ALLOWED_PACKAGES.includes(m)),
    [],
  );
  assert.deepEqual(
    [...reach.files].filter((f) => !ALLOWED_FILES.some((allowed) => f.startsWith(allowed))),
    [],
  );
});

test("the runtime's main entry, runtime/src/index.ts, reaches no file of runtime/src/api or runtime/src/cli", () => {
  const reach = reachOf(['runtime/src/index.ts']);
  assert.ok(reach.files.has('runtime/src/graph/stateGraph.ts'), 'the entry reaches the graph library');
  assert.deepEqual(
    [...reach.files].filter((file) => file.startsWith('runtime/src/api/') || file.startsWith('runtime/src/cli/')),
    [],
  );
});

test('the language service imports no node: module and nothing of server/src/lsp or server/src/handlers', () => {
  assert.ok(listSources('server/src/service').length > 5);
  const found = violations('server/src/service', (specifier, target) => {
    if (specifier.startsWith('node:')) return 'a Node module';
    if (target?.startsWith('server/src/lsp/') || target?.startsWith('server/src/handlers/')) return 'the service knows no LSP part and no handler';
    return undefined;
  });
  assert.deepEqual(found, []);
});

test('handlers import the service and the LSP parts, never the other way round: only server/src/server.ts imports a handler, and it imports each one', () => {
  const handlers = listSources('server/src/handlers');
  assert.ok(handlers.length > 5);
  const importers = listSources('server/src').filter((file) => !file.startsWith('server/src/handlers/'));
  const found = importers.flatMap((file) =>
    edgesOf(file)
      .filter((edge) => edge.target?.startsWith('server/src/handlers/') && file !== 'server/src/server.ts')
      .map((edge) => `${file}: ${edge.specifier}`),
  );
  assert.deepEqual(found, []);
  // No handler imports another: each is wired on its own.
  assert.deepEqual(
    handlers.flatMap((file) =>
      edgesOf(file)
        .filter((edge) => edge.target?.startsWith('server/src/handlers/'))
        .map((edge) => `${file}: ${edge.specifier}`),
    ),
    [],
  );
  const wired = new Set(importsOf('server/src/server.ts').flatMap((edge) => (edge.target ? [edge.target] : [])));
  assert.deepEqual(
    handlers.filter((file) => !wired.has(file)),
    [],
  );
  // Each one registered: from the HANDLERS list, or by a call of its own (lifecycle's, before the others).
  const server = readFileSync(join(ROOT, 'server/src/server.ts'), 'utf8');
  const list = /^const HANDLERS = \[([^\]]*)\];/m
    .exec(server)?.[1]
    ?.split(',')
    .map((name) => name.trim());
  assert.ok(list, 'server/src/server.ts has no HANDLERS list');
  // The name each handler is imported under (`import * as hover from './handlers/hover'`).
  const names = new Map([...server.matchAll(/^import \* as (\w+) from '\.\/handlers\/([\w-]+)';$/gm)].map((m) => [`server/src/handlers/${m[2]}.ts`, m[1]!]));
  for (const file of handlers) {
    const name = names.get(file);
    assert.ok(name, `server/src/server.ts does not import ${file} as a namespace`);
    assert.ok(list.includes(name) || server.includes(`${name}.register(`), `${file} is not registered by server/src/server.ts`);
  }
});

test('every thread store of runtime/src/api/store runs the shared contract suite', () => {
  const suite = readFileSync(join(ROOT, 'test/runtime/storeContract.test.ts'), 'utf8');
  const stores = listSources('runtime/src/api/store').flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^export class (\w+) implements ThreadStore\b/gm)].map((m) => m[1]!),
  );
  assert.ok(stores.length >= 2, 'no store found');
  assert.deepEqual(
    stores.filter((store) => !new RegExp(`^contractSuite\\('[^']+', .*\\b${store}\\b`, 'm').test(suite)),
    [],
  );
});
