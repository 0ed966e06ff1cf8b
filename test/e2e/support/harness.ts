/**
 * The e2e harness extension (test/e2e/harness): built into a .vsix for code-server, and a
 * client that runs its in-host checks through the control server it starts.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { poll } from '../../support/poll';

const root = join(__dirname, '..', '..', '..');
const harnessDir = join(root, 'test', 'e2e', 'harness');

/** Bundles the harness (the checks and both entries) into `outDir/dist/extension.js`; returns that folder. */
export async function buildHarness(outDir: string): Promise<string> {
  mkdirSync(join(outDir, 'dist'), { recursive: true });
  await build({
    entryPoints: [join(harnessDir, 'src', 'extension.ts')],
    outfile: join(outDir, 'dist', 'extension.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'warning',
  });
  copyFileSync(join(harnessDir, 'package.json'), join(outDir, 'package.json'));
  return outDir;
}

/** Builds the harness and packages it as a .vsix with vsce; returns the .vsix path. */
export async function packageHarness(workDir: string): Promise<string> {
  const stage = await buildHarness(join(workDir, 'harness'));
  const vsix = join(workDir, 'e2e-harness.vsix');
  const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  const result = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--out', vsix], {
    cwd: stage,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0 || !existsSync(vsix)) throw new Error(`vsce could not package the e2e harness:\n${result.stdout}\n${result.stderr}`);
  return vsix;
}

/** Runs in-host checks through the harness's control server. */
export class HarnessClient {
  private port: number | undefined;

  /** `controlFile` is the file the harness writes its port to (TENXGRAPH_E2E_CONTROL_FILE). */
  constructor(private readonly controlFile: string) {}

  /** Runs the check `name` with `args`; resolves to its result, throws its failure. */
  async run<T = unknown>(name: string, args: Record<string, unknown> = {}): Promise<T> {
    this.port ??= await poll(
      'the e2e harness to start in the extension host',
      () => {
        if (!existsSync(this.controlFile)) return undefined;
        return (JSON.parse(readFileSync(this.controlFile, 'utf8')) as { port: number }).port;
      },
      60_000,
    );
    const response = await fetch(`http://127.0.0.1:${this.port}/run/${name}`, { method: 'POST', body: JSON.stringify(args) });
    const outcome = (await response.json()) as { ok: true; result: T } | { ok: false; error: string };
    if (!outcome.ok) throw new Error(`in-host check '${name}' failed: ${outcome.error}`);
    return outcome.result;
  }
}
