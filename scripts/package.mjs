// `npm run package`: the production bundles, the .vsix, and the check that both are sound.
//   1. node esbuild.mjs --production   (dist/extension.js, dist/server.js, minified, no maps)
//   2. vsce package --no-dependencies  (10xgraph-<version>.vsix; .vscodeignore says what ships)
//   3. node scripts/check-bundle.mjs   (the bundle loads and exports activate; the .vsix holds
//                                       what it must, no node_modules, under 1 MB)
// `node scripts/package.mjs [--out FILE.vsix]` writes the .vsix elsewhere.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outIndex = process.argv.indexOf('--out');
const out = outIndex > 0 && process.argv[outIndex + 1] ? resolve(process.argv[outIndex + 1]) : join(root, `10xgraph-${manifest.version}.vsix`);

/** Runs one step, echoing it; exits with its status when it fails. */
function step(title, command, args) {
  console.log(`package: ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (result.status !== 0) {
    console.error(`package: '${[command === process.execPath ? 'node' : command, ...args.map((a) => (a.startsWith(root) ? relative(root, a) : a))].join(' ')}' failed${result.error ? `: ${result.error.message}` : ` with exit code ${result.status}`}.`);
    process.exit(result.status ?? 1);
  }
}

step('production build', process.execPath, [join(root, 'esbuild.mjs'), '--production']);
for (const bundle of ['dist/extension.js', 'dist/server.js']) {
  if (!existsSync(join(root, bundle))) {
    console.error(`package: ${bundle} was not built (its source is missing); the extension cannot ship without it.`);
    process.exit(1);
  }
}
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
step(`vsce package → ${out.startsWith(root) ? relative(root, out) : out}`, process.execPath, [vsce, 'package', '--no-dependencies', '--no-update-package-json', '--out', out]);
step('check the bundle and the package', process.execPath, [join(root, 'scripts', 'check-bundle.mjs'), out]);
console.log(`package: ${out}`);
console.log(`package: install it with: code --install-extension ${relative(process.cwd(), out) || out}`);
