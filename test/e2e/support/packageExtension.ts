/**
 * The real package: `scripts/package.mjs --vsix-only` (production bundles, vsce, the bundle
 * check), the steps of `npm run package` for the .vsix, writing it where the test wants it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(__dirname, '..', '..', '..');

/** Builds and checks the .vsix and moves it to `out`; throws with the output of the step that failed. */
export function packageExtension(out: string): string {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const staging = mkdtempSync(join(dirname(out), 'package-'));
  try {
    const result = spawnSync(process.execPath, [join(root, 'scripts', 'package.mjs'), '--vsix-only', '--out-dir', staging], { cwd: root, encoding: 'utf8', timeout: 300_000 });
    if (result.status !== 0) throw new Error(`npm run package failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
    renameSync(join(staging, `10xgraph-${version}.vsix`), out);
    return out;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
