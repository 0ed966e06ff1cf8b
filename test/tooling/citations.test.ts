import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './importGraph';

const FOLDERS = ['runtime/src', 'client-sdk/src', 'server/src', 'client/src', 'common', 'test', 'bench', 'scripts', 'examples', 'docs'];
const SKIP = new Set(['node_modules', 'dist', 'fixtures', '.vscode-test']);

/** The text files the repository's own code and documents live in. */
function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (SKIP.has(name)) continue;
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs|js|md)$/.test(name)) out.push(relative(ROOT, path));
    }
  };
  for (const folder of FOLDERS) walk(join(ROOT, folder));
  return [...out, 'README.md', 'esbuild.mjs'];
}

test('comments cite the repository own documents, never a spec kept elsewhere', () => {
  const self = relative(ROOT, __filename);
  const found: string[] = [];
  for (const file of sources()) {
    if (file === self) continue;
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/\bSPEC\b|SPEC\.md|\.\.\/shared\b|\/work\/shared/.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, []);
});

test('every cited section of docs/spec.md exists, and every cited docs/ file', () => {
  const spec = readFileSync(join(ROOT, 'docs', 'spec.md'), 'utf8');
  const sections = new Set([...spec.matchAll(/^## (\d+)\. /gm)].map((m) => m[1]));
  assert.ok(sections.size >= 5);
  const missing: string[] = [];
  for (const file of sources()) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/docs\/spec\.md §(\d+)(?:\s*(?:and|–|-)\s*§?(\d+))?/g)) {
      for (const n of [m[1], m[2]]) if (n !== undefined && !sections.has(n)) missing.push(`${file}: §${n}`);
    }
    for (const m of text.matchAll(/\bdocs\/([\w.-]+\.md)\b/g)) if (!existsSync(join(ROOT, 'docs', m[1]))) missing.push(`${file}: docs/${m[1]}`);
  }
  assert.deepEqual(missing, []);
});
