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
import { dotenvValues, envNamesOf } from './dotenv';

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
        names.set(path, text === undefined ? undefined : envNamesOf(text));
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
  for (const [name, value] of dotenvValues(text, env)) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    set.push(name);
  }
  return set;
}
