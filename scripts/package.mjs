// `npm run package`: every part as the package a user installs, written into artifacts/:
//   10xgraph-client-<v>.tgz            the TypeScript client (ESM, CommonJS, .d.ts; no dependencies)
//   10xgraph-<v>.tgz                   the runtime and the CLI (`10xgraph audit|api|types`)
//   10xgraph-language-server-<v>.tgz   the language server, one bundle, no dependencies
//   10xgraph-<v>.vsix                  the VS Code extension
// Steps:
//   1. node esbuild.mjs --production   (every bundle, no source maps; the programs minified)
//   2. tsc                             (the .d.ts files of 10xgraph-client and 10xgraph)
//   3. vsce package --no-dependencies  (.vscodeignore says what ships)
//   4. npm pack -w client-sdk -w runtime -w server   (each package.json `files` says what ships)
//   5. node scripts/check-bundle.mjs   (the extension bundle loads; each archive holds what it
//                                       must and nothing it must not)
// `node scripts/package.mjs [--out-dir DIR] [--vsix-only]`: another folder; only the .vsix.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const argument = (name) => {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
};
const outDir = resolve(argument('--out-dir') ?? join(root, 'artifacts'));
const vsixOnly = process.argv.includes('--vsix-only');
const shown = (path) => (path.startsWith(root) ? relative(root, path) : path);

/** The npm packages: workspace folder → what its tarball is called. */
const PACKAGES = ['client-sdk', 'runtime', 'server'].map((folder) => {
  const { name, version } = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8'));
  return { folder, name, file: `${name}-${version}.tgz` };
});

/** Runs one step, echoing it; exits with its status when it fails. */
function step(title, command, args, options = {}) {
  console.log(`package: ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' }, ...options });
  if (result.status !== 0) {
    console.error(
      `package: '${[command === process.execPath ? 'node' : command, ...args.map(shown)].join(' ')}' failed${result.error ? `: ${result.error.message}` : ` with exit code ${result.status}`}.`,
    );
    process.exit(result.status ?? 1);
  }
}

mkdirSync(outDir, { recursive: true });
step('production build', process.execPath, [join(root, 'esbuild.mjs'), '--production']);
const bundles = ['dist/extension.js', 'dist/server.js', 'dist/server-ajv.js'];
if (!vsixOnly)
  bundles.push(
    'client-sdk/dist/index.cjs',
    'client-sdk/dist/index.mjs',
    'runtime/dist/cli.js',
    'runtime/dist/cli-api.js',
    'runtime/dist/cli-types.js',
    'runtime/dist/index.js',
    'runtime/dist/api.js',
    'runtime/dist/sqliteCheckpoint.js',
    'runtime/dist/rules.js',
    'server/dist/server.js',
    'server/dist/server-ajv.js',
  );
for (const bundle of bundles) {
  if (!existsSync(join(root, bundle))) {
    console.error(`package: ${bundle} was not built (its source is missing); nothing can ship without it.`);
    process.exit(1);
  }
}

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (!vsixOnly) {
  // The runtime's declarations read the client's from the project build (a project reference).
  step('type declarations: tsc -b', process.execPath, [tsc, '-b', 'client-sdk', 'runtime']);
  for (const folder of ['client-sdk', 'runtime']) {
    const types = join(root, folder, 'dist', 'types');
    const buildInfo = join(root, 'node_modules', '.tsout', `${folder}.package.tsbuildinfo`);
    // From scratch: no declarations of deleted sources, and no build info that would skip files.
    rmSync(types, { recursive: true, force: true });
    rmSync(buildInfo, { force: true });
    step(`type declarations → ${folder}/dist/types`, process.execPath, [tsc, '-p', folder, '--outDir', types, '--tsBuildInfoFile', buildInfo]);
  }
}

const vsix = join(outDir, `10xgraph-${manifest.version}.vsix`);
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
step(`vsce package → ${shown(vsix)}`, process.execPath, [vsce, 'package', '--no-dependencies', '--no-update-package-json', '--out', vsix]);

const tarballs = [];
if (!vsixOnly) {
  const npm = process.env.npm_execpath && process.env.npm_execpath.endsWith('.js') ? [process.execPath, process.env.npm_execpath] : ['npm'];
  for (const { file } of PACKAGES) rmSync(join(outDir, file), { force: true });
  step(`npm pack → ${shown(outDir)}`, npm[0], [...npm.slice(1), 'pack', '--pack-destination', outDir, ...PACKAGES.flatMap(({ folder }) => ['-w', folder])], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (const { file } of PACKAGES) tarballs.push(join(outDir, file));
}

step('check the bundle and the packages', process.execPath, [join(root, 'scripts', 'check-bundle.mjs'), vsix, ...tarballs]);
for (const file of [vsix, ...tarballs]) console.log(`package: ${shown(file)}`);
console.log(`package: install the extension with: code --install-extension ${shown(vsix)}`);
if (!vsixOnly) {
  // npm reads `dir/file.tgz` as a file only with a leading ./ or /.
  const local = (path) => (shown(path).startsWith('/') ? path : `./${shown(path)}`);
  console.log(`package: install the CLI and the client in a project with: npm install ${tarballs.slice(0, 2).map(local).join(' ')}`);
  console.log(`package: install the language server with: npm install -g ${local(tarballs[2])}`);
}
