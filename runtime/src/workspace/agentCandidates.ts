/**
 * Finds agent modules beside a config by reading (never running) the files: each
 * `graph.ts`-like module, the exports found in it and the compiled graphs among them, as
 * `module:export` specs. `10xgraph audit` and the language server share this one scanner, so
 * both offer the same specs in the same order. The files may be anyone's (an untrusted
 * workspace), so the scan is linear in what it reads and reads a bounded amount: the start of
 * each file, a budget per folder, a bounded number of modules.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The extensions `agent` modules may have, in the order the loader tries them. */
export const AGENT_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const;

// Only the start of a module is read for its exports, and only so much of a folder in all:
// a folder of huge or many files costs a bounded read, never a frozen editor.
const MAX_FILE_BYTES = 256 * 1024;
const MAX_FOLDER_BYTES = 2 * 1024 * 1024;
const MAX_MODULES = 200;

/** A module beside a config, read from its source: its exports, graph-looking ones first. */
export interface AgentModule {
  /** The module as `agent` spells it (no extension). */
  module: string;
  /** The file it resolves to (the first of `AGENT_EXTENSIONS` present). */
  file: string;
  /** Exports that look like compiled graphs, then the other exports. */
  exports: string[];
  /** How many of `exports`, from the start, look like compiled graphs. */
  graphExports: number;
}

/** `module:export` specs found in `dir`, likeliest first (files named graph/agent/app first). */
export function findAgentCandidates(dir: string): string[] {
  return agentSpecs(scanAgentModules(dir));
}

/** The modules in `dir` an `agent` field could name, graph-looking ones first; read synchronously. */
function scanAgentModules(dir: string): AgentModule[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const modules: AgentModule[] = [];
  let budget = MAX_FOLDER_BYTES;
  for (const { module, file } of moduleFiles(dir, names)) {
    try {
      const info = statSync(file);
      if (!info.isFile()) continue;
      const source = budget > 0 ? readStartSync(file, Math.min(MAX_FILE_BYTES, budget)) : '';
      budget -= Math.min(info.size, MAX_FILE_BYTES);
      modules.push({ module, file, ...moduleExports(source) });
    } catch {
      // A file that vanished or cannot be read is simply not a candidate.
    }
  }
  return graphsFirst(modules);
}

/** `scanAgentModules` without blocking: the same modules, read with asynchronous file calls. */
export async function readAgentModules(dir: string): Promise<AgentModule[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const modules: AgentModule[] = [];
  let budget = MAX_FOLDER_BYTES;
  for (const { module, file } of moduleFiles(dir, names)) {
    try {
      const info = await stat(file);
      if (!info.isFile()) continue;
      const source = budget > 0 ? await readStart(file, Math.min(MAX_FILE_BYTES, budget)) : '';
      budget -= Math.min(info.size, MAX_FILE_BYTES);
      modules.push({ module, file, ...moduleExports(source) });
    } catch {
      // A file that vanished or cannot be read is simply not a candidate.
    }
  }
  return graphsFirst(modules);
}

/** The first `maxBytes` of `file` as text (a character cut at the end becomes U+FFFD). */
function readStartSync(file: string, maxBytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes);
    let length = 0;
    while (length < maxBytes) {
      const n = readSync(fd, buffer, length, maxBytes - length, length);
      if (n === 0) break;
      length += n;
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
}

/** `readStartSync` with asynchronous file calls. */
async function readStart(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes);
    let length = 0;
    while (length < maxBytes) {
      const { bytesRead } = await handle.read(buffer, length, maxBytes - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
}

/**
 * The file each module of a folder listing resolves to: declarations, tests and dot-files are
 * skipped, a module present with several extensions keeps the one the loader tries first, and
 * a folder of thousands of files yields at most `MAX_MODULES`, the same ones on every system.
 * Modules named graph, agent, app or main come first, so the read budget goes to them first.
 */
function moduleFiles(dir: string, names: string[]): Array<{ module: string; file: string }> {
  const byModule = new Map<string, string>();
  for (const name of names) {
    if (name.startsWith('.') || name.endsWith('.d.ts') || isTestFile(name)) continue;
    const ext = AGENT_EXTENSIONS.find((e) => name.endsWith(e));
    if (!ext) continue;
    const module = name.slice(0, -ext.length);
    const known = byModule.get(module);
    if (!known || rankOf(ext) < rankOf(known.slice(module.length))) byModule.set(module, name);
  }
  return [...byModule]
    .sort(([a], [b]) => Number(!LIKELY.has(a)) - Number(!LIKELY.has(b)) || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_MODULES)
    .map(([module, name]) => ({ module, file: join(dir, name) }));
}

const LIKELY: ReadonlySet<string> = new Set(['graph', 'agent', 'app', 'main']);

/** `x.test.ts`, `x.spec.mjs` and the like. */
function isTestFile(name: string): boolean {
  const parts = name.split('.');
  return parts.length >= 3 && (parts[parts.length - 2] === 'test' || parts[parts.length - 2] === 'spec');
}

function rankOf(ext: string): number {
  return (AGENT_EXTENSIONS as readonly string[]).indexOf(ext);
}

function graphsFirst(modules: AgentModule[]): AgentModule[] {
  return modules.sort((a, b) => Number(b.graphExports > 0) - Number(a.graphExports > 0) || a.module.localeCompare(b.module));
}

/**
 * The `module:export` specs of the compiled graphs of `modules`, likeliest first: modules named
 * graph, agent, app or main, then the others, each in alphabetical order. The CLI and the
 * language server offer the same specs in the same order.
 */
export function agentSpecs(modules: readonly AgentModule[]): string[] {
  const specs: Array<{ spec: string; rank: number }> = [];
  for (const m of modules) {
    const rank = LIKELY.has(m.module) ? 0 : 1;
    for (const exportName of m.exports.slice(0, m.graphExports)) specs.push({ spec: `${m.module}:${exportName}`, rank });
  }
  return [...new Set(specs.sort((a, b) => a.rank - b.rank || a.spec.localeCompare(b.spec)).map((s) => s.spec))];
}

/**
 * The words and punctuation of a module's source, in one pass without regular expressions:
 * comments, string contents and regular expression literals are skipped, the expressions inside
 * template literals are read (a stack of brace depths, one per open `${`), and a quote string or
 * a regular expression ends at its line's end at the latest, so a misread costs one line, not
 * the rest of the file. Identifiers are kept
 * whole; every other character is a token of its own.
 */
function tokensOf(source: string): string[] {
  const tokens: string[] = [];
  const n = source.length;
  // For each template expression open around here, how many `{` are open inside it.
  const templates: number[] = [];
  let i = 0;
  /** Skips template text from `i` up to its closing backtick, or into a `${` expression. */
  const templateText = (): void => {
    while (i < n) {
      const d = source.charCodeAt(i);
      if (d === 0x5c /* \ */) i += 2;
      else if (d === 0x60 /* ` */) {
        i++;
        return;
      } else if (d === 0x24 /* $ */ && source.charCodeAt(i + 1) === 0x7b /* { */) {
        templates.push(0);
        i += 2;
        return;
      } else i++;
    }
  };
  while (i < n) {
    const c = source.charCodeAt(i);
    if (isIdentifierPart(c)) {
      const start = i;
      while (i < n && isIdentifierPart(source.charCodeAt(i))) i++;
      tokens.push(source.slice(start, i));
    } else if (c === 0x2f /* / */ && source.charCodeAt(i + 1) === 0x2f) {
      const end = source.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (c === 0x2f && source.charCodeAt(i + 1) === 0x2a /* * */) {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
    } else if (c === 0x2f && startsRegex(tokens[tokens.length - 1])) {
      // A regular expression literal: its quotes and braces are not code. It ends at its line's end at the latest.
      i++;
      let inClass = false;
      while (i < n) {
        const d = source.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x0a) break;
        else {
          i++;
          if (d === 0x5b /* [ */) inClass = true;
          else if (d === 0x5d /* ] */) inClass = false;
          else if (d === 0x2f && !inClass) break;
        }
      }
    } else if (c === 0x22 /* " */ || c === 0x27 /* ' */) {
      i++;
      while (i < n) {
        const d = source.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === c) {
          i++;
          break;
        } else if (d === 0x0a) break;
        else i++;
      }
    } else if (c === 0x60) {
      i++;
      templateText();
    } else if (c === 0x7d /* } */ && templates.length > 0 && templates[templates.length - 1] === 0) {
      // The end of a `${...}`: back to the template's text.
      templates.pop();
      i++;
      templateText();
    } else {
      if (templates.length > 0 && c === 0x7b) templates[templates.length - 1]++;
      else if (templates.length > 0 && c === 0x7d) templates[templates.length - 1]--;
      if (c > 0x20) tokens.push(source[i]);
      i++;
    }
  }
  return tokens;
}

// After these words a `/` starts a regular expression, not a division.
const BEFORE_REGEX: ReadonlySet<string> = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await', 'instanceof']);

/** Whether a `/` after `previous` (the last token) starts a regular expression literal. */
function startsRegex(previous: string | undefined): boolean {
  if (previous === undefined) return true;
  if (isIdentifierPart(previous.charCodeAt(0))) return BEFORE_REGEX.has(previous);
  return previous !== ')' && previous !== ']' && previous !== '}';
}

function isIdentifierPart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x24 || c > 0x7f;
}

function isIdentifier(token: string | undefined): token is string {
  if (token === undefined) return false;
  const c = token.charCodeAt(0);
  return isIdentifierPart(c) && !(c >= 0x30 && c <= 0x39);
}

const DECLARATIONS: ReadonlySet<string> = new Set(['const', 'let', 'var']);

/**
 * The exports of a module's source, read (never run) in time linear in its length: those that
 * look like compiled graphs (`export const app = graph.compile()`, or a compiled local in
 * `export { app }`) first, then the others. `graphExports` says how many of `exports` are
 * graph-looking.
 */
function moduleExports(source: string): { exports: string[]; graphExports: number } {
  const tokens = tokensOf(source);
  const graphs = new Set<string>();
  const compiledLocals = new Set<string>();
  const named: string[] = [];
  const listed: Array<{ local: string; name: string }> = [];
  let hasDefault = false;
  // The declaration being read, until its `;`: a `.compile(` before then makes it a graph.
  let pending: { name: string; exported: boolean } | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === 'export') {
      const next = tokens[i + 1];
      if (DECLARATIONS.has(next) && isIdentifier(tokens[i + 2])) {
        pending = { name: tokens[i + 2], exported: true };
        named.push(tokens[i + 2]);
        i += 2;
      } else if (next === 'class' && isIdentifier(tokens[i + 2])) {
        named.push(tokens[i + 2]);
        i += 2;
      } else if (next === 'function' || (next === 'async' && tokens[i + 2] === 'function')) {
        let j = next === 'async' ? i + 3 : i + 2;
        if (tokens[j] === '*') j++;
        if (isIdentifier(tokens[j])) named.push(tokens[j]);
        i = j;
      } else if (next === 'default') {
        hasDefault = true;
        i++;
      } else if (next === '{') {
        // `export { a, b as c }`: read up to the closing brace, once.
        let j = i + 2;
        while (j < tokens.length && tokens[j] !== '}') {
          // `export { type T }` exports a type, not a value.
          const typeOnly = tokens[j] === 'type' && isIdentifier(tokens[j + 1]) && tokens[j + 1] !== 'as';
          if (typeOnly) j++;
          const local = tokens[j];
          let name = local;
          let k = j + 1;
          if (tokens[k] === 'as' && tokens[k + 1] !== undefined) {
            name = tokens[k + 1];
            k += 2;
          }
          const wellFormed = tokens[k] === ',' || tokens[k] === '}';
          if (wellFormed && !typeOnly && isIdentifier(local) && isIdentifier(name)) listed.push({ local, name });
          j = k;
          while (j < tokens.length && tokens[j] !== ',' && tokens[j] !== '}') j++;
          if (tokens[j] === ',') j++;
        }
        i = j;
      }
    } else if (DECLARATIONS.has(t) && isIdentifier(tokens[i + 1])) {
      pending = { name: tokens[i + 1], exported: false };
      i++;
    } else if (t === ';') {
      pending = undefined;
    } else if (t === '.' && tokens[i + 1] === 'compile' && tokens[i + 2] === '(' && pending) {
      (pending.exported ? graphs : compiledLocals).add(pending.name);
      pending = undefined;
      i += 2;
    }
  }
  const others = new Set<string>();
  for (const name of named) if (!graphs.has(name)) others.add(name);
  for (const { local, name } of listed) {
    if (graphs.has(name)) continue;
    if (compiledLocals.has(local)) graphs.add(name);
    else others.add(name);
  }
  for (const g of graphs) others.delete(g);
  if (hasDefault) others.add('default');
  return { exports: [...graphs, ...others], graphExports: graphs.size };
}
