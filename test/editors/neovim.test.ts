/**
 * The README's Neovim 0.7–0.10 configuration, as written, in Debian's Neovim run headless: the
 * language server (the built bundle, found on PATH as `10xgraph-language-server`, as after
 * `npm install -g`) reports the problems of a config, a quick fix is applied and saved, the
 * `init_options` settings take effect (the server URL they name is the one fetched), and the
 * graph going offline reaches the user as a standard `window/showMessage`.
 *
 * Needs `nvim` (`apt-get install neovim`; .ci/run installs it). Without it the test is reported
 * skipped with that command, except under CI, where a missing editor fails.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SERVER = join(ROOT, 'server', 'bin', '10xgraph-language-server.js');
const NVIM = spawnSync('sh', ['-c', 'command -v nvim'], { encoding: 'utf8' }).stdout.trim();
const MISSING = NVIM ? undefined : 'Neovim is not installed: run `apt-get install neovim` (Debian) to run this test';

/** The README's lua block under "Neovim 0.7 to 0.10", exactly as written there. */
function documentedConfig(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const heading = readme.indexOf('**Neovim 0.7 to 0.10**');
  assert.ok(heading >= 0, 'README.md has a "Neovim 0.7 to 0.10" section');
  const block = /```lua\n([\s\S]*?)```/.exec(readme.slice(heading));
  assert.ok(block, 'the Neovim 0.7 section has a lua block');
  return block[1]!;
}

/**
 * Drives the editor: opens FILE, waits for diagnostics, records them, asks for the code actions
 * of line 3, applies the one renaming `desc`, saves, and records the messages the server showed.
 */
const DRIVER = String.raw`
local out = { shown = {}, logged = {} }
local show = vim.lsp.handlers['window/showMessage']
vim.lsp.handlers['window/showMessage'] = function(err, result, ctx, config)
  table.insert(out.shown, { type = result.type, message = result.message })
  return show(err, result, ctx, config)
end
vim.lsp.handlers['window/logMessage'] = function(_, result)
  table.insert(out.logged, result.message)
end
dofile(os.getenv('TENX_CONFIG'))
vim.cmd('edit ' .. os.getenv('TENX_FILE'))
out.diagnosed = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 20)
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, { code = d.code, line = d.lnum, col = d.col, end_col = d.end_col, source = d.source })
end
local params = vim.lsp.util.make_range_params()
params.range = { start = { line = 3, character = 0 }, ['end'] = { line = 3, character = 200 } }
params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(0, 3) }
out.actions = {}
for _, answer in pairs(vim.lsp.buf_request_sync(0, 'textDocument/codeAction', params, 10000) or {}) do
  for _, action in ipairs(answer.result or {}) do
    table.insert(out.actions, action.title)
    if action.edit and not out.applied and action.title:find('to "description"', 1, true) then
      vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
      out.applied = action.title
    end
  end
end
vim.cmd('silent write')
out.offline = vim.wait(30000, function()
  for _, m in ipairs(out.shown) do if m.message:find('offline', 1, true) then return true end end
  return false
end, 20)
vim.fn.writefile({ vim.fn.json_encode(out) }, os.getenv('TENX_OUT'))
vim.cmd('qa!')
`;

interface Outcome {
  diagnosed: boolean;
  diagnostics: Array<{ code: string; line: number; col: number; end_col: number; source: string }>;
  actions: string[];
  applied?: string;
  offline: boolean;
  shown: Array<{ type: number; message: string }>;
  logged: string[];
}

/** A loopback port nothing listens on: the server URL of the settings, so the graph is offline. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('Neovim 0.7 with the README configuration', { timeout: 120_000 }, () => {
  if (MISSING !== undefined) {
    if (process.env.CI === 'true') test('Neovim is installed (CI installs it in .ci/run)', () => assert.fail(MISSING));
    else test('the Neovim scenarios', { skip: MISSING }, () => {});
    return;
  }
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-nvim-'));
  const workspace = join(folder, 'project');
  const file = join(workspace, '10xgraph.json');
  let outcome: Outcome;
  let url = '';
  let version = '';

  before(async () => {
    mkdirSync(workspace);
    const bin = join(folder, 'bin');
    mkdirSync(bin);
    // What `npm install -g` puts on PATH: the command the README's `cmd` names.
    writeFileSync(join(bin, '10xgraph-language-server'), `#!/bin/sh\nexec "${process.execPath}" "${SERVER}" "$@"\n`);
    chmodSync(join(bin, '10xgraph-language-server'), 0o755);
    url = `http://127.0.0.1:${await closedPort()}`;
    // The documented configuration, with only its server URL changed: the URL shows the settings took effect.
    const config = documentedConfig();
    assert.ok(config.includes("'http://localhost:8000'"), 'the documented config names the default server URL');
    writeFileSync(join(folder, 'config.lua'), config.replace("'http://localhost:8000'", `'${url}'`));
    writeFileSync(join(folder, 'driver.lua'), DRIVER);
    writeFileSync(
      file,
      ['{', '  "agent": "graph:app",', '  "remote_tools": [', '    { "node": "TOOL", "name": "read_clipboard", "desc": "Reads the text on the clipboard." }', '  ]', '}', ''].join(
        '\n',
      ),
    );
    version = spawnSync(NVIM, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] ?? '';
    const run = spawnSync(NVIM, ['--headless', '-u', 'NONE', '-i', 'NONE', '-c', 'filetype on', '-c', `luafile ${join(folder, 'driver.lua')}`], {
      cwd: workspace,
      encoding: 'utf8',
      timeout: 100_000,
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        TENXGRAPH_TOKEN: '',
        // The editor's swap file, LSP log and state stay in the test's folder, not in the user's home.
        XDG_CACHE_HOME: join(folder, 'cache'),
        XDG_DATA_HOME: join(folder, 'data'),
        XDG_STATE_HOME: join(folder, 'state'),
        TENX_CONFIG: join(folder, 'config.lua'),
        TENX_FILE: file,
        TENX_OUT: join(folder, 'out.json'),
      },
    });
    assert.equal(run.status, 0, `nvim exited with ${run.status} (${run.signal ?? 'no signal'}): ${run.stderr}`);
    outcome = JSON.parse(readFileSync(join(folder, 'out.json'), 'utf8')) as Outcome;
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  test('the problems of the file are shown, with their code and range', () => {
    assert.match(version, /^NVIM v0\.\d+/);
    assert.ok(outcome.diagnosed, 'no diagnostics within 30 s');
    assert.deepEqual(
      outcome.diagnostics.map((d) => [d.code, d.line, d.col, d.end_col, d.source]),
      [['unknown-field', 3, 48, 54, '10xgraph']],
    );
  });

  test('a quick fix is offered, applied and saved', () => {
    assert.ok(outcome.actions.includes('Rename "desc" to "description"'), outcome.actions.join(' | '));
    assert.equal(outcome.applied, 'Rename "desc" to "description"');
    assert.match(readFileSync(file, 'utf8'), /"name": "read_clipboard", "description": "Reads the text on the clipboard\." \}/);
  });

  test('the init_options settings take effect, and the offline graph is shown as a standard message', () => {
    assert.ok(outcome.offline, `no offline message shown; shown: ${JSON.stringify(outcome.shown)}; logged: ${JSON.stringify(outcome.logged)}`);
    const offline = outcome.shown.find((m) => m.message.includes('offline'))!;
    assert.ok(offline.message.includes(url), `the message names the server of the settings (${url}): ${offline.message}`);
    assert.ok(
      outcome.logged.some((line) => line.includes(url)),
      `a log line names the fetch of ${url}: ${JSON.stringify(outcome.logged)}`,
    );
  });
});
