/**
 * The extension in a real VS Code: the packaged .vsix installed into code-server, Chromium
 * driving the workbench, the quick-start server on loopback. What a person sees is asserted
 * through the UI (Playwright); the API surface through the harness extension's in-host checks.
 * Screenshots of each scenario go to test-results/e2e/.
 *
 * Needs the tools of scripts/setup-vscode-e2e.sh; without them the suite is reported skipped
 * with the command that installs them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CodeServer, DETERMINISTIC_SETTINGS } from './support/codeServer';
import { HarnessClient, packageHarness } from './support/harness';
import { packageExtension } from './support/packageExtension';
import { poll } from '../support/poll';
import { QuickstartServer } from './support/quickstart';
import { findE2eTools } from './support/tools';
import { Workbench } from './support/workbench';
import { makeWorkspace, positionOf } from './support/workspace';

const ROOT = join(__dirname, '..', '..');
const RESULTS = join(ROOT, 'test-results', 'e2e');
const found = findE2eTools();
const FILES = ['**/10xgraph.json', '**/custom/*.json'];

/** Packages shared by both code-server runs, built once. */
let packages: Promise<{ extension: string; harness: string }> | undefined;
let scratch: string | undefined;
function buildPackages(): Promise<{ extension: string; harness: string }> {
  scratch ??= mkdtempSync(join(tmpdir(), 'tenxgraph-e2e-'));
  const dir = scratch;
  packages ??= (async () => ({ extension: packageExtension(join(dir, '10xgraph.vsix')), harness: await packageHarness(dir) }))();
  return packages;
}

interface Status {
  state: string;
  nodeCount?: number;
  url: string;
}

describe('the extension in VS Code (code-server)', { timeout: 600_000 }, () => {
  if (found.tools === undefined) {
    // Reported as a skipped test with the reason, which names the command that installs the tools.
    test('the end-to-end scenarios', { skip: found.reason }, () => {});
    return;
  }
  const tools = found.tools;

  describe('in a trusted workspace, with the quick-start server running', { timeout: 420_000 }, () => {
    const quickstart = new QuickstartServer();
    let server: CodeServer | undefined;
    let workbench: Workbench;
    let harness: HarnessClient;
    let fixture = '';
    let toolNodes: string[] = [];
    let nodeNames: string[] = [];

    before(async () => {
      const { extension, harness: harnessVsix } = await buildPackages();
      await quickstart.start();
      toolNodes = await quickstart.toolNodes();
      nodeNames = await quickstart.nodeNames();
      assert.ok(toolNodes.length > 0, 'the quick-start graph has a ToolNode');
      const workspace = makeWorkspace(join(scratch!, 'trusted'), { TOOL: toolNodes[0]! }, { '10xgraph.server.url': quickstart.url, '10xgraph.files': FILES });
      fixture = readFileSync(join(workspace, '10xgraph.json'), 'utf8');
      const controlFile = join(scratch!, 'trusted-control.json');
      server = await CodeServer.start({
        tools,
        workspace,
        extensions: [extension, harnessVsix],
        trusted: true,
        userSettings: DETERMINISTIC_SETTINGS,
        env: { TENXGRAPH_E2E_CONTROL_FILE: controlFile },
        logDir: join(RESULTS, 'logs', 'trusted'),
      });
      harness = new HarnessClient(controlFile);
      workbench = await Workbench.open(server, tools.chromium, RESULTS);
    });

    after(async () => {
      await workbench?.close();
      await server?.stop();
      await quickstart.stop();
    });

    /** Runs Go to Definition at `position` of the active editor and waits until `file` is the active editor; returns its cursor's line and text. */
    async function goToDefinition(position: { line: number; column: number }, file: string): Promise<{ file: string; line: number; text: string }> {
      await workbench.focusEditor();
      await workbench.goTo(position.line, position.column);
      await workbench.runCommand('Go to Definition');
      await workbench.page.locator('.tabs-container .tab.active', { hasText: basename(file) }).waitFor({ timeout: 20_000 });
      return poll(
        `the cursor in ${file}`,
        async () => {
          const at = await harness.run<{ file: string; line: number; text: string } | null>('activeEditor');
          return at?.file === file ? at : undefined;
        },
        20_000,
      );
    }

    test('opening a broken 10xgraph.json shows our diagnostics, with their codes, in the Problems panel', async () => {
      await workbench.openFile('10xgraph.json');
      const rows = await workbench.waitForProblems(
        'node-not-found and missing-field from 10xgraph',
        (r) => r.some((row) => row.includes('node-not-found') && row.includes('10xgraph')) && r.some((row) => row.includes('missing-field')),
      );
      assert.ok(
        rows.some((row) => /10xgraph\s*\(?node-not-found/.test(row)),
        `the source and code are shown: ${rows.join(' | ')}`,
      );
      await workbench.page.locator('.squiggly-error').first().waitFor({ state: 'visible' });
      await workbench.screenshot('01-diagnostics');
    });

    test('typing a fix clears the diagnostic', async () => {
      const typo = positionOf(fixture, '_typo"', 5);
      await workbench.goTo(typo.line, typo.column);
      for (let i = 0; i < '_typo'.length; i++) await workbench.page.keyboard.press('Backspace');
      await poll('the typo to be gone from the editor', async () => ((await workbench.editorText()).includes('_typo') ? undefined : true), 10_000);
      await workbench.waitForProblems('no node-not-found', (rows) => !rows.some((row) => row.includes('node-not-found')) && rows.some((row) => row.includes('missing-field')));
      await workbench.screenshot('02-typed-fix');
    });

    test('the quick fix from the light bulb adds the missing field', async () => {
      const brace = positionOf(fixture, '{', 0, 3); // the root, the first tool, the second tool
      await workbench.goTo(brace.line, brace.column);
      const bulb = workbench.page.locator('.lightBulbWidget').first();
      await bulb.waitFor({ state: 'visible', timeout: 20_000 });
      await bulb.click();
      const action = workbench.page.locator('.action-widget .monaco-list-row', { hasText: 'description' }).first();
      await action.waitFor({ state: 'visible', timeout: 10_000 });
      await workbench.screenshot('03-quick-fix-menu');
      await action.click();
      await poll('"description" to be added to the second tool', async () => ((await workbench.editorText()).match(/"description"/g)?.length === 2 ? true : undefined), 10_000);
      await workbench.waitForProblems('no missing-field', (rows) => !rows.some((row) => row.includes('missing-field')));
      await workbench.screenshot('03-quick-fix-applied');
    });

    test('completion inside "node" offers the live ToolNode names', async () => {
      const node = positionOf(fixture, `"node": "${toolNodes[0]}"`, '"node": "'.length);
      await workbench.goTo(node.line, node.column);
      await workbench.page.keyboard.press('Control+Space');
      const labels = await poll(
        `completion to offer ${toolNodes.join(', ')}`,
        async () => {
          const rows = await workbench.page.locator('.suggest-widget .monaco-list-row .label-name').allInnerTexts();
          return toolNodes.every((name) => rows.includes(name)) ? rows : undefined;
        },
        20_000,
      );
      assert.ok(labels.length > 0);
      await workbench.screenshot('04-completion');
      await workbench.page.keyboard.press('Escape');
    });

    test('the status bar shows connected, then offline when the server stops, then connected again', async () => {
      const connected = new RegExp(`10xgraph: ${nodeNames.length} nodes?$`);
      await workbench.waitForStatus(connected);
      assert.match(await workbench.statusTooltip(), new RegExp(`connected to ${quickstart.url.replace(/[.]/g, '\\.')}`));
      await workbench.screenshot('05-status-connected');

      await quickstart.stop();
      await workbench.statusItem().click(); // a click refetches
      await workbench.waitForStatus(/10xgraph: offline$/);
      const tooltip = await workbench.statusTooltip();
      assert.match(tooltip, /offline/);
      await workbench.screenshot('05-status-offline');
      const offline = await harness.run<{ status: Status }>('waitForState', { state: 'offline' });
      assert.equal(offline.status.url.replace(/\/$/, ''), quickstart.url);

      await quickstart.start();
      await workbench.statusItem().click();
      await workbench.waitForStatus(connected);
      await workbench.screenshot('05-status-reconnected');
    });

    test('Open Graph draws the live graph: its nodes, and the ToolNode with its tools', async () => {
      await workbench.runCommand('10xgraph: Open Graph');
      const webview = workbench.webview();
      const drawn = await poll(
        'the graph view to draw every node',
        async () => {
          const names = await webview.locator('svg.graph g[data-node]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-node')));
          return nodeNames.every((name) => names.includes(name)) ? names : undefined;
        },
        30_000,
      );
      assert.deepEqual(drawn.filter((name) => nodeNames.includes(name!)).sort(), [...nodeNames].sort());
      const toolNode = webview.locator(`svg.graph g[data-node="${toolNodes[0]}"]`);
      assert.match((await toolNode.locator('text.kind').textContent()) ?? '', /ToolNode/);
      assert.ok((await toolNode.locator('text.tool.remote').count()) > 0, 'the attached remote tools are listed');
      assert.match(await webview.locator('#header').innerText(), /Live graph of/);
      const view = await harness.run<{ state: string; nodes: string[] }>('graphView');
      assert.equal(view.state, 'connected');
      assert.deepEqual([...view.nodes].sort(), [...nodeNames].sort());
      await workbench.screenshot('06-open-graph');
    });

    test('in the extension host: a custom glob switches a json file to the 10xgraph-json mode', async () => {
      await harness.run('languageMode', { file: 'custom/agent.json' });
      await harness.run('diagnostics', { file: 'custom/agent.json', codes: ['agent-invalid'] });
    });

    test('in the extension host: diagnostics carry codes and links, and only the 10xgraph server reports', async () => {
      await harness.run('diagnostics', { file: 'inhost/10xgraph.json', codes: ['unknown-field', 'missing-field'] });
      await harness.run('diagnostics', { file: 'syntax/10xgraph.json', codes: ['invalid-json'], exactly: ['invalid-json'] });
    });

    test('in the extension host: the missing-field quick fix and ToolNode completion', async () => {
      await harness.run('quickFix', { file: 'inhost/10xgraph.json' });
      await harness.run('completion', { file: 'inhost/10xgraph.json', toolNodes });
    });

    test('go to definition from a tool\'s "node" lands on the addNode of graph.ts', async () => {
      await harness.run('open', { file: 'project/10xgraph.json' });
      // The project is indexed once the handler in client.ts is among the references.
      await harness.run('references', { file: 'project/10xgraph.json', needle: '"copy_selection"', count: 2 });
      const text = readFileSync(join(scratch!, 'trusted', 'project', '10xgraph.json'), 'utf8');
      const node = positionOf(text, `"${toolNodes[0]}"`, 2);
      const active = await goToDefinition(node, 'project/graph.ts');
      assert.match(active.text, new RegExp(`\\.addNode\\('${toolNodes[0]}'`));
      await workbench.screenshot('10-go-to-definition');
    });

    test('renaming a tool in the config renames its handler in client.ts', async () => {
      await harness.run('open', { file: 'project/10xgraph.json' });
      const text = readFileSync(join(scratch!, 'trusted', 'project', '10xgraph.json'), 'utf8');
      const name = positionOf(text, '"copy_selection"', 3);
      await workbench.focusEditor();
      await workbench.goTo(name.line, name.column);
      await workbench.runCommand('Rename Symbol');
      const input = workbench.page.locator('.rename-box input, .rename-box .rename-input').first();
      await input.waitFor({ state: 'visible', timeout: 20_000 });
      await input.fill('copy_text');
      await workbench.screenshot('11-rename-input');
      await workbench.page.keyboard.press('Enter');
      const client = await poll(
        'client.ts to register copy_text',
        async () => {
          const result = await harness.run<{ text: string; dirty: boolean }>('documentText', { file: 'project/client.ts' });
          return result.text.includes("registerToolHandler('copy_text'") ? result : undefined;
        },
        20_000,
      );
      assert.ok(!client.text.includes('copy_selection'), 'no copy_selection is left in client.ts');
      const config = await harness.run<{ text: string }>('documentText', { file: 'project/10xgraph.json' });
      assert.match(config.text, /"name": "copy_text"/);
      await workbench.screenshot('11-renamed');
    });

    test('a handler file created on disk is picked up through the file watchers the server registered', async () => {
      await harness.run('waitForDiagnostic', { file: '10xgraph.json', code: 'handler-missing', needle: "'get_user_location'", present: true });
      const created = join(scratch!, 'trusted', 'project', 'location.ts');
      writeFileSync(created, "import { client } from './client';\nclient.registerToolHandler('get_user_location', () => ({ latitude: 0, longitude: 0 }));\n");
      await harness.run('waitForDiagnostic', { file: '10xgraph.json', code: 'handler-missing', needle: "'get_user_location'", present: false });
      unlinkSync(created);
      await harness.run('waitForDiagnostic', { file: '10xgraph.json', code: 'handler-missing', needle: "'get_user_location'", present: true });
    });

    test('Set Server Token stores a token in the secret storage, and the server of its origin receives it', async () => {
      const token = 'e2e-token-1234';
      await quickstart.stop();
      await quickstart.start({ token });
      await workbench.statusItem().click();
      await workbench.waitForStatus(/10xgraph: offline$/); // the server now answers 401 without the token
      const before = quickstart.requests.length;
      await workbench.runCommand('10xgraph: Set Server Token');
      await workbench.answerInput({ expect: quickstart.url, password: false });
      await workbench.answerInput({ value: token, password: true });
      await workbench.waitForStatus(new RegExp(`10xgraph: ${nodeNames.length} nodes?$`));
      const sent = quickstart.requests.slice(before);
      assert.ok(
        sent.some((request) => /^GET \/v1\/graph.* \(with a token\)$/.test(request)),
        `the graph was fetched with the token: ${sent.join(', ')}`,
      );
      await workbench.screenshot('09-server-token');
    });

    test('Audit Workspace reports a file no editor shows', async () => {
      const result = await harness.run<{ summary: { files: number } }>('audit', { file: 'audit/10xgraph.json', codes: ['agent-missing'] });
      assert.ok(result.summary.files >= 5, `every matching file is audited (${result.summary.files})`);
      await workbench.waitForProblems('the audited file', (rows) => rows.some((row) => row.includes('agent-missing')));
      await workbench.screenshot('08-audit-workspace');
    });

    test('in a copy of examples/python, without a server graph: go to definition from "node" lands on add_node in graph/react.py, and a wrong node is judged on that graph', async () => {
      // Last in this workspace: server checks go off for good, and the example's client.ts registers the top-level config's tools.
      const workspace = join(scratch!, 'trusted');
      const settingsFile = join(workspace, '.vscode', 'settings.json');
      writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(readFileSync(settingsFile, 'utf8')), '10xgraph.server.enabled': false }, null, 2));
      cpSync(join(ROOT, 'examples', 'python'), join(workspace, 'python'), { recursive: true });
      const config = readFileSync(join(workspace, 'python', '10xgraph.json'), 'utf8');
      const react = readFileSync(join(workspace, 'python', 'graph', 'react.py'), 'utf8');
      const addNode = positionOf(react, 'add_node("TOOL"', 'add_node('.length); // the name argument, where the definition lands

      await harness.run('open', { file: 'python/10xgraph.json' });
      // The module is indexed once the definition reaches it.
      await harness.run('definition', { file: 'python/10xgraph.json', needle: '"TOOL"', target: 'python/graph/react.py' });
      const node = positionOf(config, '"TOOL"', 2);
      const active = await goToDefinition(node, 'python/graph/react.py');
      assert.equal(active.line + 1, addNode.line, `the cursor is on the line of add_node("TOOL" (${active.text})`);
      assert.match(active.text, /\.add_node\("TOOL",/);
      const shown = await poll(
        'the status bar to show the cursor on that line',
        async () => {
          const at = await workbench.cursor();
          return at.line === addNode.line ? at : undefined;
        },
        10_000,
      );
      assert.equal(shown.column, addNode.column, 'the cursor is at the start of the name argument');
      await workbench.screenshot('12-python-go-to-definition');

      await harness.run('open', { file: 'python/10xgraph.json' });
      const closingQuote = positionOf(config, '"TOOL"', 5);
      await workbench.goTo(closingQuote.line, closingQuote.column);
      await workbench.page.keyboard.type('S');
      await poll('"TOOLS" in the editor', async () => ((await workbench.editorText()).includes('"TOOLS"') ? true : undefined), 10_000);
      const note = '(Judged on the graph read from graph/react.py; no server graph is in use.)';
      const diagnostics = await poll(
        'node-not-found on "TOOLS", judged on graph/react.py',
        async () => {
          const found = await harness.run<{ code: string; line: number; character: number; message: string }[]>('waitForDiagnostic', {
            file: 'python/10xgraph.json',
            code: 'node-not-found',
            needle: "'TOOLS'",
            present: true,
          });
          return found.some((d) => d.code === 'node-not-found' && d.message.endsWith(note)) ? found : undefined;
        },
        30_000,
      );
      const notFound = diagnostics.find((d) => d.code === 'node-not-found')!;
      assert.deepEqual({ line: notFound.line + 1, column: notFound.character + 1 }, positionOf(config, '"TOOL"'), 'on the first tool\'s "node" value');
      await workbench.page.locator('.squiggly-error').first().waitFor({ state: 'visible' });
      assert.match(await workbench.hoverAtCursor(note), /no node named 'TOOLS'/);
      await workbench.screenshot('12-python-node-not-found');
    });
  });

  describe('in an untrusted workspace', { timeout: 240_000 }, () => {
    const counted = new QuickstartServer();
    let server: CodeServer | undefined;
    let workbench: Workbench;
    let harness: HarnessClient;

    before(async () => {
      const { extension, harness: harnessVsix } = await buildPackages();
      await counted.start();
      const toolNode = 'TOOL';
      const settings = { '10xgraph.server.url': counted.url, '10xgraph.files': FILES };
      const workspace = makeWorkspace(join(scratch!, 'untrusted'), { TOOL: toolNode }, settings);
      const controlFile = join(scratch!, 'untrusted-control.json');
      server = await CodeServer.start({
        tools,
        workspace,
        extensions: [extension, harnessVsix],
        trusted: false,
        // The URL in the user settings too: those apply even in restricted mode, so only the
        // trust check can keep the server from being contacted.
        userSettings: { ...DETERMINISTIC_SETTINGS, '10xgraph.server.url': counted.url },
        env: { TENXGRAPH_E2E_CONTROL_FILE: controlFile },
        logDir: join(RESULTS, 'logs', 'untrusted'),
      });
      harness = new HarnessClient(controlFile);
      workbench = await Workbench.open(server, tools.chromium, RESULTS);
    });

    after(async () => {
      await workbench?.close();
      await server?.stop();
      await counted.stop();
      if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    });

    test('fetches nothing and says so, while the rules that need no graph still run', async () => {
      await workbench.openFile('10xgraph.json');
      const rows = await workbench.waitForProblems('missing-field', (r) => r.some((row) => row.includes('missing-field')));
      assert.ok(!rows.some((row) => row.includes('node-not-found')), 'no graph rule is judged without a graph');
      await workbench.waitForStatus(/10xgraph: untrusted$/);
      assert.match(await workbench.statusTooltip(), /not trusted/);
      await workbench.screenshot('07-untrusted');
      const state = await harness.run<{ trusted: boolean; status: Status | null }>('state');
      assert.equal(state.trusted, false);
      assert.equal(state.status?.state, 'untrusted');

      await workbench.runCommand('10xgraph: Open Graph');
      await poll(
        'the graph view to say the workspace is not trusted',
        async () => ((await workbench.webview().locator('#header').innerText()).includes('not trusted') ? true : undefined),
        20_000,
      );
      await workbench.screenshot('07-untrusted-graph');
      await harness.run('audit', { file: 'audit/10xgraph.json', codes: ['agent-missing'] });
      assert.deepEqual(counted.requests, [], 'no request reached the server');
    });
  });
});
