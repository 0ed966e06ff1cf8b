/**
 * The files beside a config, as the language server tells the rule set of them: the names a
 * dotenv file sets (as python-dotenv reads it, values never kept), looked up only below the
 * config's folder and read bounded; over stdio, the diagnostics that follow (`env-var-not-set`,
 * `env-file-missing`), and `agentflow.json`, the config's former name, served like `10xgraph.json`.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configFilesOf, MAX_ENV_FILE_BYTES } from '../../server/src/configFiles';
import { envNamesOf } from '../../runtime/src/workspace/dotenv';
import { TestClient, fileUri, tempFolder } from '../support/lspClient';

function names(text: string): string[] {
  return [...envNamesOf(text)].sort();
}

describe('envNamesOf', () => {
  test('NAME=value and export NAME=value, bare or quoted; names with an empty value are not set', () => {
    assert.deepEqual(names('A=1\nexport B=two\nC=\nD=""\nE=\'\'\n  F = "x" # note\nG=\'y\'\n'), ['A', 'B', 'F', 'G']);
  });

  test('comments, names without "=", and lines it cannot parse set nothing', () => {
    assert.deepEqual(names('# A=1\nB\n=3\nC="x" trailing\nD=#not a comment\nE=ok #comment\n'), ['D', 'E']);
  });

  test('a later binding replaces an earlier one; quoted values span lines', () => {
    assert.deepEqual(names('A=1\nA=\nB=\nB=2\nC="one\ntwo"\nD=4'), ['B', 'C', 'D']);
    assert.deepEqual(names('A="never closed\nB=2'), ['B'], 'an unclosed quote skips its line');
    assert.deepEqual(names('A="say \\"hi\\""\nB=1'), ['A', 'B'], 'an escaped quote does not close');
  });

  test('only names come out: nothing of a value', () => {
    const found = envNamesOf('JWT_SECRET_KEY=s3cr3t-value\n');
    assert.deepEqual([...found], ['JWT_SECRET_KEY']);
    assert.ok(!JSON.stringify([...found]).includes('s3cr3t'));
  });

  test('hostile texts take linear time', () => {
    const size = MAX_ENV_FILE_BYTES;
    for (const text of ['"'.repeat(size), "A='\\'".repeat(size / 5), 'A="\\"\n'.repeat(size / 6), ' '.repeat(size) + 'x', "'\n".repeat(size / 2), 'export '.repeat(size / 7)]) {
      const started = performance.now();
      envNamesOf(text);
      assert.ok(performance.now() - started < 2000, `parsed ${JSON.stringify(text.slice(0, 12))}… in time`);
    }
  });
});

describe('configFilesOf', () => {
  const workspace = tempFolder();
  const project = join(workspace, 'project');
  const outside = tempFolder();
  const uri = fileUri(join(project, '10xgraph.json'));

  before(() => {
    mkdirSync(join(project, 'graph'), { recursive: true });
    writeFileSync(join(project, '.env'), 'JWT_SECRET_KEY=x\nJWT_ALGORITHM=HS256\n');
    writeFileSync(join(project, 'graph', 'deps.py'), '');
    writeFileSync(join(workspace, 'common.env'), 'COMMON=1\n');
    writeFileSync(join(outside, 'secret.env'), 'OUTSIDE=1\n');
    writeFileSync(join(project, 'big.env'), `A=${'x'.repeat(MAX_ENV_FILE_BYTES)}\n`);
    symlinkSync(join(outside, 'secret.env'), join(project, 'out.env'));
    symlinkSync(outside, join(project, 'outdir'));
    symlinkSync(join(workspace, 'common.env'), join(project, 'common.env'));
  });

  test('files below the config folder are found; the env file gives its names', () => {
    const files = configFilesOf(uri, [fileUri(workspace)])!;
    assert.equal(files.fileExists!('.env'), true);
    assert.equal(files.fileExists!('graph/deps.py'), true);
    assert.equal(files.fileExists!('./graph/deps.py'), true);
    assert.equal(files.fileExists!('graph/other.py'), false);
    assert.equal(files.fileExists!('graph'), false, 'a folder is not a file');
    assert.deepEqual([...files.envNames!('.env')!].sort(), ['JWT_ALGORITHM', 'JWT_SECRET_KEY']);
    assert.equal(files.envNames!('missing.env'), undefined);
  });

  test('a link is followed only when it leads inside the workspace folder', () => {
    const files = configFilesOf(uri, [fileUri(workspace)])!;
    assert.deepEqual([...files.envNames!('common.env')!], ['COMMON']);
    assert.equal(files.envNames!('out.env'), undefined);
    assert.equal(files.envNames!('outdir/secret.env'), undefined);
    const alone = configFilesOf(uri, [])!;
    assert.equal(alone.envNames!('common.env'), undefined, 'without a workspace folder, only the config folder');
  });

  test('paths that lead up or are absolute are not looked up, and not said to be missing', () => {
    const files = configFilesOf(uri, [fileUri(workspace)])!;
    for (const path of ['../common.env', 'graph/../../common.env', join(workspace, 'common.env'), '/etc/passwd', 'C:\\Windows\\win.ini', '..\\common.env', 'a\0b']) {
      assert.equal(files.envNames!(path), undefined, path);
      assert.equal(files.fileExists!(path), true, path);
    }
  });

  test('a file larger than the bound and a FIFO are not read', () => {
    const files = configFilesOf(uri, [])!;
    assert.equal(files.envNames!('big.env'), undefined);
    execFileSync('mkfifo', [join(project, 'fifo.env')]);
    assert.equal(files.envNames!('fifo.env'), undefined);
    assert.equal(files.fileExists!('fifo.env'), false);
  });

  test('a document that is not a file has no files', () => {
    assert.equal(configFilesOf('untitled:Untitled-1', []), undefined);
  });
});

describe('over stdio', () => {
  let client: TestClient;
  const dir = tempFolder();

  before(async () => {
    client = await TestClient.start({ initializationOptions: { settings: { server: { enabled: false } } }, workspaceFolders: [{ uri: fileUri(dir), name: 'w' }] });
  });
  after(() => client.stop());

  const codes = (diagnostics: Array<{ code?: string | number }>) => diagnostics.map((d) => d.code);

  test('"auth": "jwt" warns env-var-not-set until the env file sets both JWT names', async () => {
    const folder = join(dir, 'jwt');
    mkdirSync(folder);
    const uri = fileUri(join(folder, '10xgraph.json'));
    const text = '{\n  "agent": "graph:app",\n  "env": ".env",\n  "auth": "jwt"\n}\n';
    await client.open(uri, text);
    const none = await client.pushed(uri, 1);
    assert.deepEqual(codes(none).sort(), ['env-file-missing', 'env-var-not-set']);
    const unset = none.find((d) => d.code === 'env-var-not-set')!;
    assert.match(unset.message, /needs JWT_SECRET_KEY and JWT_ALGORITHM, which the env file "\.env" \(which could not be read\) does not set/);
    assert.deepEqual(unset.range, { start: { line: 3, character: 10 }, end: { line: 3, character: 15 } });

    writeFileSync(join(folder, '.env'), '# the JWT settings\nJWT_SECRET_KEY=change-me\nJWT_ALGORITHM=\n');
    const one = await client.pushed(uri, await client.change(uri, text.replace('\n}', ' \n}')));
    assert.deepEqual(codes(one), ['env-var-not-set']);
    assert.match(one[0].message, /needs JWT_ALGORITHM, which the env file "\.env" does not set/);
    assert.ok(!one[0].message.includes('change-me'));

    writeFileSync(join(folder, '.env'), 'JWT_SECRET_KEY=change-me\nexport JWT_ALGORITHM=HS256\n');
    const both = await client.pushed(uri, await client.change(uri, text));
    assert.deepEqual(codes(both), []);
    await client.close(uri);
  });

  test('"env": "missing.env" warns env-file-missing', async () => {
    const folder = join(dir, 'missing');
    mkdirSync(folder);
    const uri = fileUri(join(folder, '10xgraph.json'));
    await client.open(uri, '{ "agent": "graph:app", "env": "missing.env" }');
    const diagnostics = await client.pushed(uri, 1);
    assert.deepEqual(codes(diagnostics), ['env-file-missing']);
    assert.equal(diagnostics[0].severity, 2);
    assert.match(diagnostics[0].message, /The env file "missing\.env" does not exist beside this file/);
    await client.close(uri);
  });

  test('agentflow.json, the former name of the config, is served like 10xgraph.json', async () => {
    const uri = fileUri(join(dir, 'legacy', 'agentflow.json'));
    await client.open(uri, '{ "agent": "graph:app", "remote_tools": {} }');
    const diagnostics = await client.pushed(uri, 1);
    assert.deepEqual(codes(diagnostics), ['remote-tools-not-list']);
    await client.close(uri);
  });
});
