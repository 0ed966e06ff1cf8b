/**
 * The ways the server is started: `--node-ipc` (how the VS Code extension runs it), the
 * package's bin over stdio (how Neovim, Helix and others run it), `--help` and `--version`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, spawnSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  createProtocolConnection,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  IPCMessageReader,
  IPCMessageWriter,
  type ProtocolConnection,
  PublishDiagnosticsNotification,
  type PublishDiagnosticsParams,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { ROOT, SERVER_JS, fileUri, tempFolder, waitFor } from '../support/lspClient';

const BIN = join(ROOT, 'node_modules', '.bin', '10xgraph-language-server');

/** Initializes, opens one broken config and returns its first diagnostics' codes. */
async function roundTrip(connection: ProtocolConnection): Promise<string[]> {
  const published: PublishDiagnosticsParams[] = [];
  connection.onNotification(PublishDiagnosticsNotification.type, (p) => void published.push(p));
  connection.listen();
  const result = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: null,
    workspaceFolders: null,
    capabilities: {},
    initializationOptions: { storagePath: tempFolder(), settings: { server: { enabled: false } } },
  });
  assert.equal(result.serverInfo?.name, '10xgraph-language-server');
  await connection.sendNotification(InitializedNotification.type, {});
  const uri = fileUri(join(tempFolder(), '10xgraph.json'));
  await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: 'json', version: 1, text: '{"remote_tools": []}' } });
  const params = await waitFor(() => published.find((p) => p.uri === uri), 'diagnostics');
  await connection.sendRequest(ShutdownRequest.type);
  await connection.sendNotification(ExitNotification.type);
  return params.diagnostics.map((d) => String(d.code));
}

test('--node-ipc: the transport the extension uses', async () => {
  const child = fork(SERVER_JS, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  const exited = new Promise((r) => child.once('exit', r));
  const connection = createProtocolConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  try {
    assert.deepEqual(await roundTrip(connection), ['agent-missing']);
    await exited;
  } finally {
    connection.dispose();
    if (child.exitCode === null) child.kill();
  }
});

test('the package bin over stdio (npx 10xgraph-language-server --stdio)', async () => {
  const child = spawn(BIN, ['--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise((r) => child.once('exit', r));
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  try {
    assert.deepEqual(await roundTrip(connection), ['agent-missing']);
    await exited;
  } finally {
    connection.dispose();
    if (child.exitCode === null) child.kill();
  }
});

test('--help and --version answer without starting a server', () => {
  const help = spawnSync(process.execPath, [SERVER_JS, '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: 10xgraph-language-server \[--stdio \| --node-ipc \| --socket=PORT\]/);
  const version = spawnSync(process.execPath, [SERVER_JS, '--version'], { encoding: 'utf8' });
  assert.equal(version.status, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
});
