/**
 * The cache of compiled agent modules (runtime/src/agent/compileCache.ts): a module that did not
 * change is not compiled again; any change of a file that went into it, or of where a package
 * it requires resolves, compiles it again; a broken, foreign or unwritable cache never fails a
 * load; a file esbuild reads besides the sources (a tsconfig.json, a file that would now win the
 * resolution of an import) is part of the entry too; an entry or a cache folder that another user
 * owns or may write is never believed; `TENXGRAPH_CACHE=off` writes nothing. Whether an entry was used is seen from the outside:
 * an entry whose code was altered by the test is what runs when, and only when, it is used.
 */
import { after, afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentGraph } from '../../runtime/src/api/index';
import { ROOT } from '../support/run';
import { API_DIST, RUNTIME_DIST } from './serverHelpers';

const project = mkdtempSync(join(tmpdir(), '10xgraph-cache-test-'));
const cacheFolder = join(project, 'node_modules', '.cache', '10xgraph');
const config = join(project, '10xgraph.json');
writeFileSync(config, '{}');
// The project's own copy of 10xgraph, as `npm install 10xgraph` gives it.
mkdirSync(join(project, 'node_modules'));
symlinkSync(join(ROOT, 'runtime'), join(project, 'node_modules', '10xgraph'), 'dir');

function write(name: string, text: string): void {
  mkdirSync(join(project, name, '..'), { recursive: true });
  writeFileSync(join(project, name), text);
}

/** An agent module whose one node is named by `./names` (a local import bundled into it). */
function writeAgent(nodeName: string): void {
  write('names.ts', `export const NODE: string = ${JSON.stringify(nodeName)};\n`);
  write(
    'agent.ts',
    `import { StateGraph } from '10xgraph';\nimport { NODE } from './names';\nexport const app = new StateGraph().addNode(NODE, () => undefined).setEntryPoint(NODE).compile();\n`,
  );
}

async function nodeNames(spec = 'agent:app', configPath = config): Promise<string[]> {
  return (await loadAgentGraph(configPath, spec)).describe().nodes.map((node) => node.name);
}

/** The node names of `agent:app` loaded by the built agent loader (runtime/dist/api.js) in a new Node process. */
function nodeNamesInProcess(configPath: string): string[] {
  const script = `require(${JSON.stringify(API_DIST)}).loadAgentGraph(${JSON.stringify(configPath)}, 'agent:app').then((g) => console.log(JSON.stringify(g.describe().nodes.map((n) => n.name))))`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
}

function entries(): string[] {
  return existsSync(cacheFolder) ? readdirSync(cacheFolder) : [];
}

/** Rewrites the code of the one cache entry: `from` becomes `to`. */
function alterEntry(from: string, to: string): void {
  const [name] = entries();
  assert.ok(name, 'there is an entry to alter');
  const path = join(cacheFolder, name);
  const entry = JSON.parse(readFileSync(path, 'utf8')) as { code: string };
  assert.ok(entry.code.includes(from), `the compiled code holds ${from}`);
  entry.code = entry.code.split(from).join(to);
  writeFileSync(path, JSON.stringify(entry));
}

describe('the agent compile cache', () => {
  const savedSetting = process.env.TENXGRAPH_CACHE;
  afterEach(() => {
    rmSync(join(project, 'node_modules', '.cache'), { recursive: true, force: true });
    if (savedSetting === undefined) delete process.env.TENXGRAPH_CACHE;
    else process.env.TENXGRAPH_CACHE = savedSetting;
  });
  after(() => rmSync(project, { recursive: true, force: true }));

  test('a first load writes one entry in node_modules/.cache/10xgraph; the next load runs it without compiling', async () => {
    delete process.env.TENXGRAPH_CACHE;
    writeAgent('first');
    assert.deepEqual(await nodeNames(), ['first']);
    const written = entries();
    assert.equal(written.length, 1, `one entry: ${written.join(', ')}`);
    assert.match(written[0]!, /^[0-9a-f]{16}\.json$/);
    const entry = JSON.parse(readFileSync(join(cacheFolder, written[0]!), 'utf8')) as { file: string; inputs: Array<[string, string]> };
    assert.equal(entry.file, join(project, 'agent.ts'));
    assert.deepEqual(entry.inputs.map(([path]) => path).sort(), [join(project, 'agent.ts'), join(project, 'names.ts')]);
    alterEntry('"first"', '"from-the-cache"');
    assert.deepEqual(await nodeNames(), ['from-the-cache'], 'the unchanged module ran from its entry');
  });

  test('a change to the module or to a file it imports compiles it again', async () => {
    writeAgent('one');
    assert.deepEqual(await nodeNames(), ['one']);
    alterEntry('"one"', '"stale"');
    write('names.ts', `export const NODE: string = 'two';\n`);
    assert.deepEqual(await nodeNames(), ['two'], 'an edited import is compiled again');
    alterEntry('"two"', '"stale"');
    write(
      'agent.ts',
      `import { StateGraph } from '10xgraph';\nimport { NODE } from './names';\nexport const app = new StateGraph().addNode(NODE + '-edited', () => undefined).setEntryPoint(NODE + '-edited').compile();\n`,
    );
    assert.deepEqual(await nodeNames(), ['two-edited'], 'an edited module is compiled again');
  });

  test('a package that now resolves to another file compiles the module again', async () => {
    write('node_modules/greeting/package.json', JSON.stringify({ name: 'greeting', main: 'index.js' }));
    write('node_modules/greeting/index.js', `module.exports = 'from-index';\n`);
    write('node_modules/greeting/other.js', `module.exports = 'from-other';\n`);
    write(
      'agent.ts',
      `import { StateGraph } from '10xgraph';\nimport greeting = require('greeting');\nexport const app = new StateGraph().addNode(greeting, () => undefined).setEntryPoint(greeting).compile();\n`,
    );
    // Each load in a process of its own, as each `10xgraph audit` is: Node keeps what it resolved.
    assert.deepEqual(nodeNamesInProcess(config), ['from-index']);
    assert.deepEqual(nodeNamesInProcess(config), ['from-index']);
    assert.equal(entries().length, 1);
    // The package now points elsewhere (an upgrade): the entry pinned index.js, so it no longer holds.
    write('node_modules/greeting/package.json', JSON.stringify({ name: 'greeting', main: 'other.js' }));
    assert.deepEqual(nodeNamesInProcess(config), ['from-other']);
    assert.equal(entries().length, 1, 'the entry was replaced');
    rmSync(join(project, 'node_modules', 'greeting'), { recursive: true, force: true });
  });

  test('a change to the tsconfig.json esbuild reads (jsxFactory) compiles the module again', async () => {
    // The node's name is what the JSX factory the tsconfig names returns for `<node />`.
    write('names.tsx', `const one = () => 'factory-one';\nconst two = () => 'factory-two';\nvoid one;\nvoid two;\nexport const NODE: string = (<node />) as unknown as string;\n`);
    write(
      'agent.ts',
      `import { StateGraph } from '10xgraph';\nimport { NODE } from './names.tsx';\nexport const app = new StateGraph().addNode(NODE, () => undefined).setEntryPoint(NODE).compile();\n`,
    );
    try {
      write('tsconfig.json', JSON.stringify({ compilerOptions: { jsx: 'react', jsxFactory: 'one' } }));
      assert.deepEqual(await nodeNames(), ['factory-one']);
      write('tsconfig.json', JSON.stringify({ compilerOptions: { jsx: 'react', jsxFactory: 'two' } }));
      assert.deepEqual(await nodeNames(), ['factory-two'], 'the edited tsconfig.json is compiled with');
      // A config it extends counts too, and so does one that appears nearer to the module.
      write('base.json', JSON.stringify({ compilerOptions: { jsx: 'react', jsxFactory: 'one' } }));
      write('tsconfig.json', JSON.stringify({ extends: './base.json' }));
      assert.deepEqual(await nodeNames(), ['factory-one']);
      write('base.json', JSON.stringify({ compilerOptions: { jsx: 'react', jsxFactory: 'two' } }));
      assert.deepEqual(await nodeNames(), ['factory-two'], 'the edited base config is compiled with');
      // A package's config (`extends: "@configs/jsx"` is node_modules/@configs/jsx/tsconfig.json).
      write('node_modules/@configs/jsx/tsconfig.json', JSON.stringify({ compilerOptions: { jsx: 'react', jsxFactory: 'one' } }));
      write('tsconfig.json', `{\n  // A comment, as tsconfig files may have.\n  "extends": "@configs/jsx",\n}\n`);
      assert.deepEqual(await nodeNames(), ['factory-one']);
      write('node_modules/@configs/jsx/tsconfig.json', JSON.stringify({ compilerOptions: { jsx: 'react', jsxFactory: 'two' } }));
      assert.deepEqual(await nodeNames(), ['factory-two'], 'the edited package config is compiled with');
      rmSync(join(project, 'tsconfig.json'));
      write('jsconfig.json', JSON.stringify({ compilerOptions: { jsx: 'react', jsxFactory: 'one' } }));
      assert.deepEqual(await nodeNames(), ['factory-one'], 'a jsconfig.json that now applies is compiled with');
    } finally {
      for (const name of ['names.tsx', 'tsconfig.json', 'jsconfig.json', 'base.json', 'node_modules/@configs']) rmSync(join(project, name), { recursive: true, force: true });
    }
  });

  test('a file that now wins the resolution of an import (second.tsx beside second.ts) is the one compiled', async () => {
    write('second.ts', `export const NODE: string = 'from-second-ts';\n`);
    write(
      'agent.ts',
      `import { StateGraph } from '10xgraph';\nimport { NODE } from './second';\nexport const app = new StateGraph().addNode(NODE, () => undefined).setEntryPoint(NODE).compile();\n`,
    );
    try {
      assert.deepEqual(await nodeNames(), ['from-second-ts']);
      assert.deepEqual(await nodeNames(), ['from-second-ts']);
      // esbuild tries .tsx before .ts: the new file is what `./second` now means.
      write('second.tsx', `export const NODE: string = 'from-second-tsx';\n`);
      assert.deepEqual(await nodeNames(), ['from-second-tsx']);
      // A folder's index counts as well: `./second` as a folder once both files are gone.
      rmSync(join(project, 'second.ts'));
      rmSync(join(project, 'second.tsx'));
      write('second/index.ts', `export const NODE: string = 'from-second-index';\n`);
      assert.deepEqual(await nodeNames(), ['from-second-index']);
      write('second/index.tsx', `export const NODE: string = 'from-second-index-tsx';\n`);
      assert.deepEqual(await nodeNames(), ['from-second-index-tsx']);
    } finally {
      for (const name of ['second.ts', 'second.tsx', 'second']) rmSync(join(project, name), { recursive: true, force: true });
    }
  });

  test('an entry, or a cache folder, that other users may write is not believed', async () => {
    writeAgent('trusted');
    assert.deepEqual(await nodeNames(), ['trusted']);
    alterEntry('"trusted"', '"poisoned"');
    const path = join(cacheFolder, entries()[0]!);
    chmodSync(path, 0o666);
    assert.deepEqual(await nodeNames(), ['trusted'], 'an entry of mode 0666 is not run');
    alterEntry('"trusted"', '"poisoned"');
    chmodSync(join(cacheFolder, entries()[0]!), 0o644);
    chmodSync(cacheFolder, 0o777);
    assert.deepEqual(await nodeNames(), ['trusted'], 'an entry in a folder of mode 0777 is not run');
    // The folder is this user's: the next write closes it to others, and the cache works again.
    assert.equal(statSync(cacheFolder).mode & 0o777, 0o755);
    alterEntry('"trusted"', '"from-the-cache"');
    assert.deepEqual(await nodeNames(), ['from-the-cache']);
  });

  test('an entry that belongs to another user is not believed', async () => {
    writeAgent('own');
    assert.deepEqual(await nodeNames(), ['own']);
    alterEntry('"own"', '"foreign"');
    const path = join(cacheFolder, entries()[0]!);
    if (process.getuid?.() === 0) {
      chownSync(path, 65534, 65534);
      assert.deepEqual(await nodeNames(), ['own'], 'an entry of uid 65534 is not run');
      alterEntry('"own"', '"foreign"');
      chownSync(join(cacheFolder, entries()[0]!), 0, 0);
      chownSync(cacheFolder, 65534, 65534);
      assert.deepEqual(await nodeNames(), ['own'], 'an entry in a folder of uid 65534 is not run');
    } else {
      // Only root may give a file away; the mode is what a non-root run can check.
      chmodSync(path, 0o666);
      assert.deepEqual(await nodeNames(), ['own'], 'an entry of mode 0666 is not run');
    }
  });

  test('a corrupt, foreign or truncated entry is a miss, and is written anew', async () => {
    writeAgent('sound');
    assert.deepEqual(await nodeNames(), ['sound']);
    const [name] = entries();
    const path = join(cacheFolder, name!);
    const good = readFileSync(path, 'utf8');
    for (const bad of [
      '{not json',
      good.slice(0, good.length / 2),
      JSON.stringify({ ...JSON.parse(good), file: join(project, 'other.ts'), code: 'exports.app = 1' }),
      JSON.stringify({ ...JSON.parse(good), inputs: 'none' }),
      // No inputs to check would make the entry true forever.
      JSON.stringify({ ...JSON.parse(good), inputs: [] }),
      'null',
    ]) {
      writeFileSync(path, bad);
      assert.deepEqual(await nodeNames(), ['sound'], `after the entry ${bad.slice(0, 40)}`);
      assert.equal(readFileSync(path, 'utf8'), good, 'the entry is written anew');
    }
    assert.deepEqual(entries(), [name], 'no temporary file is left behind');
  });

  test('a cache that cannot be written never fails a load', async () => {
    writeAgent('unwritable');
    mkdirSync(join(project, 'node_modules', '.cache'), { recursive: true });
    writeFileSync(cacheFolder, 'a file where the folder should be');
    assert.deepEqual(await nodeNames(), ['unwritable']);
    assert.deepEqual(await nodeNames(), ['unwritable']);
    assert.equal(readFileSync(cacheFolder, 'utf8'), 'a file where the folder should be');
  });

  test('a module that does not compile is not cached; once fixed it loads', async () => {
    write('agent.ts', `export const app = ;\n`);
    await assert.rejects(nodeNames(), /does not compile/);
    assert.deepEqual(entries(), []);
    writeAgent('fixed');
    assert.deepEqual(await nodeNames(), ['fixed']);
  });

  test('TENXGRAPH_CACHE=off compiles every time and writes nothing', async () => {
    for (const value of ['off', '0', 'false', 'OFF']) {
      process.env.TENXGRAPH_CACHE = value;
      writeAgent(`uncached-${value}`);
      assert.deepEqual(await nodeNames(), [`uncached-${value}`]);
      assert.equal(existsSync(join(project, 'node_modules', '.cache')), false, `nothing written with TENXGRAPH_CACHE=${value}`);
    }
  });

  test('without a node_modules folder above the module there is no cache', async () => {
    delete process.env.TENXGRAPH_CACHE;
    const bare = mkdtempSync(join(tmpdir(), '10xgraph-cache-bare-'));
    try {
      writeFileSync(join(bare, '10xgraph.json'), '{}');
      writeFileSync(
        join(bare, 'agent.ts'),
        `import { StateGraph } from ${JSON.stringify(RUNTIME_DIST)};\nexport const app = new StateGraph().addNode('bare', () => undefined).setEntryPoint('bare').compile();\n`,
      );
      assert.deepEqual(await nodeNames('agent:app', join(bare, '10xgraph.json')), ['bare']);
      assert.deepEqual(readdirSync(bare).sort(), ['10xgraph.json', 'agent.ts']);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
