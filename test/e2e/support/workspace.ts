/**
 * Test workspaces: the fixture folder copied to a temporary place, with the quick-start
 * graph's ToolNode name filled in and the workspace settings of the run.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURE = join(__dirname, '..', 'fixtures', 'workspace');

/** Copies the fixture workspace into `dir`, replacing `{{NAME}}` placeholders, and writes `.vscode/settings.json`. */
export function makeWorkspace(dir: string, vars: Record<string, string>, settings: Record<string, unknown>): string {
  copyTemplated(FIXTURE, dir, vars);
  mkdirSync(join(dir, '.vscode'), { recursive: true });
  writeFileSync(join(dir, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  return dir;
}

function copyTemplated(from: string, to: string, vars: Record<string, string>): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const target = join(to, name);
    if (statSync(source).isDirectory()) {
      copyTemplated(source, target, vars);
      continue;
    }
    const text = readFileSync(source, 'utf8').replace(/\{\{(\w+)\}\}/g, (whole, key: string) => vars[key] ?? whole);
    writeFileSync(target, text);
  }
}

/** The one-based line and column of the first occurrence of `needle` in `text`, plus `shift` columns. */
export function positionOf(text: string, needle: string, shift = 0, occurrence = 1): { line: number; column: number } {
  let index = -1;
  for (let i = 0; i < occurrence; i++) {
    index = text.indexOf(needle, index + 1);
    if (index < 0) throw new Error(`'${needle}' (occurrence ${occurrence}) is not in the fixture`);
  }
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  const column = index - before.lastIndexOf('\n') + shift;
  return { line, column };
}
