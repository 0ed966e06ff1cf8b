/**
 * Reading a `10xgraph.json` from disk, as `10xgraph audit` and `10xgraph api` both do: bounded in
 * size, UTF-8 only, with a clear reason when it cannot be read.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';

/** Largest config file read (the language server has its own bound for open documents). */
const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

/** The config could not be read; the message says what is wrong with `shown`, and what to do. */
export class ConfigReadError extends Error {
  constructor(
    readonly reason: 'missing' | 'directory' | 'too-large' | 'binary' | 'not-utf8' | 'unreadable',
    message: string,
  ) {
    super(message);
  }
}

/** Reads `path` (named `shown` in messages) as UTF-8 text. Throws `ConfigReadError`. */
export function readConfigText(path: string, shown = path): string {
  let size: number;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw new ConfigReadError('directory', `${shown} is a directory: give the path of a 10xgraph.json file.`);
    size = stat.size;
  } catch (error) {
    if (error instanceof ConfigReadError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ConfigReadError('missing', `${shown}: no such file.`);
    throw new ConfigReadError('unreadable', `${shown} cannot be read: ${(error as Error).message}.`);
  }
  if (size > MAX_CONFIG_BYTES) throw new ConfigReadError('too-large', `${shown} is ${(size / 1024 / 1024).toFixed(1)} MB, over the ${MAX_CONFIG_BYTES / 1024 / 1024} MB limit for a config file.`);
  const buffer = Buffer.alloc(size);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    let at = 0;
    while (at < size) {
      const n = readSync(fd, buffer, at, size - at, at);
      if (n === 0) break;
      at += n;
    }
  } catch (error) {
    throw new ConfigReadError('unreadable', `${shown} cannot be read: ${(error as Error).message}.`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  // Text that decodes is judged by the rule set, as the editor judges it (a NUL is invalid-json);
  // bytes that do not decode are no config at all.
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buffer);
  } catch {
    if (buffer.includes(0)) throw new ConfigReadError('binary', `${shown} is a binary file, not JSON text.`);
    throw new ConfigReadError('not-utf8', `${shown} is not UTF-8 text.`);
  }
}

/** The path as people want to see it: relative to the working folder when inside it. */
export function displayPath(path: string): string {
  const absolute = resolve(path);
  const rel = relative(process.cwd(), absolute);
  return rel && !rel.startsWith('..') && !resolve(rel).startsWith('..') ? rel : absolute;
}
