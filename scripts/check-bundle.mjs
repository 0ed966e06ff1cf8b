// Proves that the built packages work as packages before anyone installs them:
//  1. dist/extension.js loads in plain Node with a stub `vscode` module and exports
//     `activate` and `deactivate` (a bundle that forgot a dependency, or imports `vscode`
//     wrongly, fails here rather than in a user's editor);
//  2. the .vsix (a zip) holds the bundles, schemas/, README, CHANGELOG, LICENSE and the icon,
//     no node_modules, and is under 1 MB;
//  3. each npm tarball holds every file its package.json points at (bin, main, types, exports),
//     and its README.md, no source maps, no sources but .d.ts, no node_modules; 10xgraph-client and
//     10xgraph-language-server declare no dependencies (they must run from their own files).
// `node scripts/check-bundle.mjs [FILE.vsix] [FILE.tgz...]` (default: artifacts/10xgraph-<version>.vsix).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const root = resolve(new URL('..', import.meta.url).pathname);
const require = createRequire(import.meta.url);
const Module = require('node:module');
const MAX_VSIX_BYTES = 1024 * 1024;

const failures = [];
const fail = (message) => failures.push(message);

/**
 * A stand-in for the `vscode` module: every property is another stand-in that can be called,
 * constructed and extended, so module-level code (`class X extends vscode.CompletionItem`) loads.
 */
function createVscodeStub(path = 'vscode') {
  const cache = new Map();
  const target = function stub() {};
  return new Proxy(target, {
    get(object, property) {
      if (property === 'prototype') return object.prototype;
      if (property === 'then') return undefined; // not a promise
      if (property === Symbol.toPrimitive) return () => path;
      if (typeof property === 'symbol') return undefined;
      if (!cache.has(property)) cache.set(property, createVscodeStub(`${path}.${property}`));
      return cache.get(property);
    },
    apply() {
      return createVscodeStub(`${path}()`);
    },
    construct() {
      return createVscodeStub(`new ${path}`);
    },
  });
}

/** Loads the extension bundle with `vscode` stubbed and checks its exports. */
function checkExtensionBundle(file) {
  if (!existsSync(file)) {
    fail(`${file} does not exist: run 'node esbuild.mjs --production' first.`);
    return;
  }
  const originalLoad = Module._load;
  const vscodeStub = createVscodeStub();
  Module._load = function load(request, parent, isMain) {
    if (request === 'vscode') return vscodeStub;
    return originalLoad.call(this, request, parent, isMain);
  };
  try {
    const extension = require(file);
    for (const name of ['activate', 'deactivate']) {
      if (typeof extension[name] !== 'function') fail(`${file} does not export a function '${name}' (exports: ${Object.keys(extension).join(', ') || 'none'}).`);
    }
  } catch (error) {
    fail(`${file} does not load with a stub 'vscode': ${error instanceof Error ? error.stack : String(error)}`);
  } finally {
    Module._load = originalLoad;
  }
}

/** The names of a zip file's entries, read from its central directory. */
function listZipEntries(buffer) {
  const EOCD = 0x06054b50;
  const CENTRAL = 0x02014b50;
  // The end-of-central-directory record sits in the last 22 bytes plus an optional comment (< 64 KiB).
  let eocd = -1;
  for (let i = buffer.length - 22; i >= Math.max(0, buffer.length - 22 - 0xffff); i--) {
    if (buffer.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file: no end-of-central-directory record');
  const count = buffer.readUInt16LE(eocd + 10);
  let offset = buffer.readUInt32LE(eocd + 16);
  const entries = [];
  for (let i = 0; i < count; i++) {
    if (buffer.readUInt32LE(offset) !== CENTRAL) throw new Error(`corrupt zip: no central directory entry at ${offset}`);
    const nameLength = buffer.readUInt16LE(offset + 28);
    const extraLength = buffer.readUInt16LE(offset + 30);
    const commentLength = buffer.readUInt16LE(offset + 32);
    entries.push(buffer.toString('utf8', offset + 46, offset + 46 + nameLength));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Checks what the .vsix holds and its size. */
function checkVsix(file) {
  if (!existsSync(file)) {
    fail(`${file} does not exist: run 'npm run package' first.`);
    return undefined;
  }
  const size = statSync(file).size;
  if (size >= MAX_VSIX_BYTES) fail(`${file} is ${(size / 1024).toFixed(0)} KiB; it must stay under 1 MB (check .vscodeignore).`);
  let entries;
  try {
    entries = listZipEntries(readFileSync(file));
  } catch (error) {
    fail(`${file}: ${error.message}`);
    return undefined;
  }
  // vsce renames some files (LICENSE → LICENSE.txt, CHANGELOG.md → changelog.md), hence the patterns.
  const required = {
    'package.json': /^extension\/package\.json$/,
    'dist/extension.js': /^extension\/dist\/extension\.js$/,
    'dist/server.js': /^extension\/dist\/server\.js$/,
    'dist/server-ajv.js': /^extension\/dist\/server-ajv\.js$/,
    'README.md': /^extension\/readme\.md$/i,
    'CHANGELOG.md': /^extension\/changelog\.md$/i,
    LICENSE: /^extension\/license(\.(txt|md))?$/i,
    'images/icon.png': /^extension\/images\/icon\.png$/,
  };
  for (const [name, pattern] of Object.entries(required)) if (!entries.some((entry) => pattern.test(entry))) fail(`${file} lacks ${name}.`);
  if (!entries.some((entry) => entry.startsWith('extension/schemas/') && entry.endsWith('.json'))) fail(`${file} lacks schemas/*.json.`);
  const modules = entries.filter((entry) => entry.includes('node_modules/'));
  if (modules.length > 0) fail(`${file} holds node_modules (${modules.length} files, e.g. ${modules[0]}); the bundles must carry their dependencies.`);
  const maps = entries.filter((entry) => entry.endsWith('.map'));
  if (maps.length > 0) fail(`${file} holds source maps (${maps.join(', ')}); build with --production.`);
  return { size, entries };
}

/** The files of a .tgz made by `npm pack`, by path inside the archive (`package/…`). */
function readTarball(buffer) {
  const tar = gunzipSync(buffer);
  const files = new Map();
  for (let offset = 0; offset + 512 <= tar.length;) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (start, length) => header.toString('utf8', start, start + length).replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    if (type === '0' || type === '') files.set(name, tar.subarray(offset + 512, offset + 512 + size));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Every file a package.json points at: bin, main, types and the leaves of `exports`. */
function listEntryPoints(manifest) {
  const targets = [];
  const bin = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  targets.push(...bin, ...[manifest.main, manifest.types, manifest.module].filter(Boolean));
  const walk = (value, condition) => {
    // `10xgraph-source` names the repository's sources for its own type-checking (tsconfig's
    // customConditions); no user's resolver asks for it.
    if (condition === '10xgraph-source') return;
    if (typeof value === 'string') targets.push(value);
    else if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) walk(inner, key);
  };
  walk(manifest.exports);
  return [...new Set(targets.map((target) => target.replace(/^\.\//, '')))];
}

/** Checks one npm tarball; returns its summary. */
function checkTarball(file) {
  if (!existsSync(file)) {
    fail(`${file} does not exist: run 'npm run package' first.`);
    return undefined;
  }
  let files;
  try {
    files = readTarball(readFileSync(file));
  } catch (error) {
    fail(`${file}: not a readable .tgz (${error.message}).`);
    return undefined;
  }
  const json = files.get('package/package.json');
  if (!json) {
    fail(`${file} has no package/package.json.`);
    return undefined;
  }
  const manifest = JSON.parse(json.toString('utf8'));
  for (const target of listEntryPoints(manifest)) {
    if (!files.has(`package/${target}`)) fail(`${file}: package.json points at ${target}, which the package does not hold (check its "files").`);
  }
  // The registry's page of the package, and what `npm view` and editors show.
  if (!files.get('package/README.md')?.length) fail(`${file} has no README.md (or an empty one): write ${manifest.name}'s README.md beside its package.json.`);
  for (const name of files.keys()) {
    if (name.includes('node_modules/')) fail(`${file} holds ${name}: dependencies are installed, not shipped.`);
    else if (name.endsWith('.map')) fail(`${file} holds the source map ${name}: build with --production.`);
    else if (/\.(ts|mts|cts)$/.test(name) && !/\.d\.(ts|mts|cts)$/.test(name)) fail(`${file} holds the source ${name}: ship the bundles and the .d.ts files only.`);
  }
  if (['10xgraph-client', '10xgraph-language-server'].includes(manifest.name)) {
    const dependencies = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies });
    if (dependencies.length > 0) fail(`${file}: ${manifest.name} must run from its own files, yet depends on ${dependencies.join(', ')}.`);
  }
  for (const bin of Object.values(manifest.bin ?? {})) {
    const text = files.get(`package/${bin.replace(/^\.\//, '')}`)?.toString('utf8') ?? '';
    if (text && !text.startsWith('#!/usr/bin/env node')) fail(`${file}: the bin ${bin} lacks its '#!/usr/bin/env node' line.`);
  }
  return { name: manifest.name, version: manifest.version, entries: files.size, size: statSync(file).size };
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const vsix = resolve(process.argv[2] ?? join(root, 'artifacts', `10xgraph-${manifest.version}.vsix`));
const tarballs = process.argv.slice(3).map((file) => resolve(file));
checkExtensionBundle(join(root, manifest.main ?? 'dist/extension.js'));
const contents = checkVsix(vsix);
const packed = tarballs.map((file) => [file, checkTarball(file)]);

if (failures.length > 0) {
  for (const message of failures) console.error(`check-bundle: ${message}`);
  process.exit(1);
}
console.log(`check-bundle: dist/extension.js loads and exports activate and deactivate`);
console.log(`check-bundle: ${vsix}: ${contents.entries.length} entries, ${(contents.size / 1024).toFixed(0)} KiB, no node_modules`);
for (const entry of contents.entries.filter((e) => e.startsWith('extension/')).sort()) console.log(`  ${entry.slice('extension/'.length)}`);
for (const [file, summary] of packed) console.log(`check-bundle: ${file}: ${summary.name}@${summary.version}, ${summary.entries} files, ${(summary.size / 1024).toFixed(0)} KiB`);
