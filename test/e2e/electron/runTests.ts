/**
 * `npm run test:electron`: the in-host checks of the e2e harness under @vscode/test-electron,
 * in a desktop VS Code it downloads, with the extension loaded from this checkout and the
 * quick-start server on loopback. For machines that can reach VS Code's download host; where
 * that host is unreachable it says so and exits 1 at once, rather than hang. The same checks
 * run in code-server through `npm test` (test/e2e/vscode.test.ts).
 *
 * VSCODE_EXECUTABLE_PATH=/path/to/code uses an installed VS Code instead of downloading one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { buildHarness } from '../support/harness';
import { QuickstartServer } from '../support/quickstart';
import { makeWorkspace } from '../support/workspace';

const ROOT = join(__dirname, '..', '..', '..');
const DOWNLOAD_HOST = 'https://update.code.visualstudio.com';
const PREFLIGHT_MS = 10_000;

/** Whether VS Code's download host answers within a few seconds. */
async function canDownloadVsCode(): Promise<string | undefined> {
  try {
    const response = await fetch(`${DOWNLOAD_HOST}/api/releases/stable`, { signal: AbortSignal.timeout(PREFLIGHT_MS) });
    return response.ok ? undefined : `${DOWNLOAD_HOST} answered HTTP ${response.status}`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return `${DOWNLOAD_HOST} is unreachable (${cause?.code ?? cause?.message ?? (error as Error).message})`;
  }
}

async function main(): Promise<number> {
  const executable = process.env.VSCODE_EXECUTABLE_PATH;
  if (executable === undefined || executable === '') {
    const problem = await canDownloadVsCode();
    if (problem !== undefined) {
      console.error(
        `test:electron: ${problem}, so @vscode/test-electron cannot download VS Code here.\n` +
          'test:electron: the same in-host checks run in code-server with `npm test` (after `npm run setup:e2e`), ' +
          'or set VSCODE_EXECUTABLE_PATH to an installed VS Code.',
      );
      return 1;
    }
  }

  const build = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) return build.status ?? 1;

  const scratch = mkdtempSync(join(tmpdir(), 'tenxgraph-electron-'));
  const quickstart = new QuickstartServer();
  try {
    const harness = await buildHarness(join(scratch, 'harness'));
    await quickstart.start();
    const toolNodes = await quickstart.toolNodes();
    const workspace = makeWorkspace(
      join(scratch, 'workspace'),
      { TOOL: toolNodes[0] ?? 'TOOL' },
      {
        '10xgraph.server.url': quickstart.url,
        '10xgraph.files': ['**/10xgraph.json', '**/custom/*.json'],
      },
    );
    const plan = [
      { check: 'languageMode', args: { file: 'custom/agent.json' } },
      { check: 'diagnostics', args: { file: 'custom/agent.json', codes: ['agent-invalid'] } },
      { check: 'diagnostics', args: { file: 'inhost/10xgraph.json', codes: ['unknown-field', 'missing-field'] } },
      { check: 'diagnostics', args: { file: 'syntax/10xgraph.json', codes: ['invalid-json'], exactly: ['invalid-json'] } },
      { check: 'quickFix', args: { file: 'inhost/10xgraph.json' } },
      { check: 'completion', args: { file: 'inhost/10xgraph.json', toolNodes } },
      { check: 'waitForState', args: { state: 'connected' } },
      { check: 'audit', args: { file: 'audit/10xgraph.json', codes: ['agent-missing'] } },
    ];
    await runTests({
      ...(executable ? { vscodeExecutablePath: executable } : {}),
      extensionDevelopmentPath: ROOT,
      extensionTestsPath: join(harness, 'dist', 'extension.js'),
      launchArgs: [workspace, '--disable-workspace-trust', '--disable-extensions', '--skip-welcome', '--skip-release-notes', '--user-data-dir', join(scratch, 'user-data')],
      extensionTestsEnv: { TENXGRAPH_E2E_PLAN: JSON.stringify(plan) },
      timeout: 60_000,
    });
    console.log(`test:electron: ${plan.length} in-host checks passed`);
    return 0;
  } catch (error) {
    console.error(`test:electron: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await quickstart.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
