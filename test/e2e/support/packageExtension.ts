/**
 * The real package: `scripts/package.mjs` (production bundles, vsce, the bundle check), the
 * same steps as `npm run package`, writing the .vsix where the test wants it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');

/** Builds and checks the .vsix at `out`; throws with the output of the step that failed. */
export function packageExtension(out: string): string {
  const result = spawnSync(process.execPath, [join(root, 'scripts', 'package.mjs'), '--out', out], { cwd: root, encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) throw new Error(`npm run package failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  return out;
}
