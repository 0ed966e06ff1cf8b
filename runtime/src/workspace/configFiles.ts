/**
 * The files beside a config, as `10xgraph audit` and `10xgraph api` tell the rule set of them
 * (`AuditOptions.files`, docs/spec.md §1): the config's own name (with the legacy
 * `agentflow.json`), whether a file exists, and the `env` dotenv file, read bounded. Only
 * `10xgraph api` ever takes a value out of an env file, to load it into its own environment.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { constants } from 'node:fs';
import type { ConfigFiles } from '../rules/types';

/** The config's name. */
export const CONFIG_FILE = '10xgraph.json';
/** Its name before the rename, read when no `10xgraph.json` exists (as the 10xGraph server does). */
export const LEGACY_CONFIG_FILE = 'agentflow.json';

/** `10xgraph.json` in `dir`, or `agentflow.json` when only that one exists there. */
export function defaultConfigPath(dir = process.cwd()): string {
  const current = join(dir, CONFIG_FILE);
  const legacy = join(dir, LEGACY_CONFIG_FILE);
  return !existsSync(current) && existsSync(legacy) ? legacy : current;
}

/** An env file is read only up to this size: it is a list of settings, never data. */
export const MAX_ENV_FILE_BYTES = 256 * 1024;

/** A variable name as dotenv files write them. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * The variables a dotenv file sets, in order: `NAME=value` and `export NAME=value` lines,
 * `#` comments, values in single quotes (as written), double quotes (with `\n`, `\t`, `\"`,
 * `\\` escapes, over several lines) or bare (an inline ` #` comment cut off). `${NAME}` in a
 * bare or double-quoted value is replaced by an earlier variable or one of `environment`. One
 * pass over the text: linear in its length.
 */
export function parseEnvFile(text: string, environment: Readonly<Record<string, string | undefined>> = {}): Map<string, string> {
  const values = new Map<string, string>();
  const expand = (value: string) => value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_all, name: string) => values.get(name) ?? environment[name] ?? '');
  let pos = 0;
  while (pos < text.length) {
    const lineEnd = endOfLine(text, pos);
    let line = text.slice(pos, lineEnd).trim();
    let next = nextLine(text, lineEnd);
    if (line.startsWith('export ')) line = line.slice(7).trimStart();
    const eq = line.indexOf('=');
    const name = eq > 0 ? line.slice(0, eq).trim() : '';
    if (line === '' || line.startsWith('#') || !ENV_NAME.test(name)) {
      pos = next;
      continue;
    }
    let raw = line.slice(eq + 1).trimStart();
    const quote = raw[0];
    if (quote === "'" || quote === '"') {
      // A quoted value may run over several lines: its closing quote is looked for once, from
      // just after the opening one. Unclosed, or followed by more than a comment, the line is skipped.
      const open = text.indexOf(quote, pos + text.slice(pos, lineEnd).indexOf('=') + 1);
      const close = closingQuote(text, open + 1, quote);
      const rest = close < 0 ? '' : text.slice(close + 1, endOfLine(text, close + 1)).trim();
      if (close >= 0 && (rest === '' || rest.startsWith('#'))) {
        const body = text.slice(open + 1, close);
        values.set(name, quote === "'" ? body : expand(body.replace(/\\([nt"\\])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c))));
        next = nextLine(text, endOfLine(text, close + 1));
      }
      pos = next;
      continue;
    }
    const comment = raw.search(/\s#/);
    if (comment >= 0) raw = raw.slice(0, comment);
    values.set(name, expand(raw.trim()));
    pos = next;
  }
  return values;
}

/** Where the line that starts at `from` ends (its line break, or the end of the text). */
function endOfLine(text: string, from: number): number {
  let i = from;
  while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
  return i;
}

/** Where the line after the break at `end` starts. */
function nextLine(text: string, end: number): number {
  return text[end] === '\r' && text[end + 1] === '\n' ? end + 2 : end + 1;
}

/** The index of the quote that closes a value opened just before `from`, or -1. */
function closingQuote(text: string, from: number, quote: string): number {
  for (let i = from; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}

/**
 * The text of the env file at `path`, or undefined when it is not a regular file that can be
 * read. At most `MAX_ENV_FILE_BYTES` are read; a FIFO or a device is never opened for reading
 * (`O_NONBLOCK`, then checked before any read).
 */
export function readEnvFileText(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(MAX_ENV_FILE_BYTES);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * What the rule set may know of the files of the config at `configPath` (paths relative to its
 * folder, as the CLI reads them): which exist, and
 * the names (never the values) the env file sets; with `environment`, also the names of the
 * environment the server runs in (the start-up of `10xgraph api`).
 */
export function configFilesOf(configPath: string, environment?: ReadonlySet<string>): ConfigFiles {
  const folder = dirname(resolve(configPath));
  const names = new Map<string, ReadonlySet<string> | undefined>();
  const files: ConfigFiles = {
    fileExists(path) {
      return existsSync(resolve(folder, path));
    },
    envNames(path) {
      if (!names.has(path)) {
        const text = readEnvFileText(resolve(folder, path));
        names.set(path, text === undefined ? undefined : new Set([...parseEnvFile(text)].filter(([, value]) => value !== '').map(([name]) => name)));
      }
      return names.get(path);
    },
  };
  if (environment) files.environment = environment;
  return files;
}

/**
 * Loads the env file `path` (relative to the config's folder) into `env`, keeping every variable
 * already set, as the 10xGraph server does before it imports the agent module. Returns the
 * names it set; a missing file sets none.
 */
export function loadEnvFile(configPath: string, path: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const full = resolve(dirname(resolve(configPath)), path);
  const text = readEnvFileText(full);
  if (text === undefined) return [];
  const set: string[] = [];
  for (const [name, value] of parseEnvFile(text, env)) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}
