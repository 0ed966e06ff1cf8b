/**
 * Reading a `10xgraph.json` from disk, as `10xgraph audit` and `10xgraph api` both do: bounded in
 * size, UTF-8 only, regular files only (or standard input, read as a stream), never blocking on
 * open, with a clear reason when it cannot be read.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { relative, resolve } from 'node:path';

/** Largest config file read (the language server has its own bound for open documents). */
const MAX_CONFIG_BYTES = 64 * 1024 * 1024;

/** The config could not be read; the message says what is wrong with `shown`, and what to do. */
export class ConfigReadError extends Error {
  constructor(
    readonly reason: 'missing' | 'directory' | 'not-regular' | 'too-large' | 'binary' | 'not-utf8' | 'unreadable',
    message: string,
  ) {
    super(message);
  }
}

/** A config read from a regular file: its text, its bytes and what `stat` said when it was read. */
export interface ConfigFile {
  text: string;
  bytes: Buffer;
  stat: Stats;
}

/** What a non-regular file is, for a message. */
function describeKind(stat: Stats): string {
  if (stat.isFIFO()) return 'a named pipe (FIFO)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

function tooLarge(shown: string, size: number): ConfigReadError {
  const amount = size > MAX_CONFIG_BYTES + 1 ? `${(size / 1024 / 1024).toFixed(1)} MB` : 'larger than that';
  return new ConfigReadError('too-large', `${shown} is ${amount}, over the ${MAX_CONFIG_BYTES / 1024 / 1024} MB limit for a config file.`);
}

// O_NONBLOCK makes opening a FIFO that has no writer return at once instead of waiting for
// one: the file is checked after the open too (fstat), since it may be swapped after the stat.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Reads `path` (named `shown` in messages) as UTF-8 text, with its bytes and its `stat`.
 * Only regular files are read (a symbolic link is followed): a FIFO, a device or a socket is
 * refused without blocking. The file is read to its end rather than to the size `stat` gives,
 * so files whose size is not known in advance (those of `/proc`) are read whole, and bounded by
 * `MAX_CONFIG_BYTES`. Throws `ConfigReadError`.
 */
export function readConfigFile(path: string, shown = path): ConfigFile {
  let fd: number | undefined;
  try {
    const before = statOrThrow(path, shown);
    checkRegular(before, shown);
    if (before.size > MAX_CONFIG_BYTES) throw tooLarge(shown, before.size);
    fd = openSync(path, OPEN_FLAGS);
    const stat = fstatSync(fd);
    checkRegular(stat, shown);
    const bytes = readToEnd(fd, shown, stat.size);
    return { text: decodeConfig(bytes, shown), bytes, stat };
  } catch (error) {
    if (error instanceof ConfigReadError) throw error;
    throw new ConfigReadError('unreadable', `${shown} cannot be read: ${(error as Error).message}.`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Reads `path` as UTF-8 text; see `readConfigFile`. Throws `ConfigReadError`. */
export function readConfigText(path: string, shown = path): string {
  return readConfigFile(path, shown).text;
}

function statOrThrow(path: string, shown: string): Stats {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ConfigReadError('missing', `${shown}: no such file.`);
    throw new ConfigReadError('unreadable', `${shown} cannot be read: ${(error as Error).message}.`);
  }
}

function checkRegular(stat: Stats, shown: string): void {
  if (stat.isDirectory()) throw new ConfigReadError('directory', `${shown} is a directory: give the path of a 10xgraph.json file.`);
  if (!stat.isFile()) throw new ConfigReadError('not-regular', `${shown} is ${describeKind(stat)}, not a regular file: give the path of a 10xgraph.json file.`);
}

/** Reads `fd` to its end, refusing more than `MAX_CONFIG_BYTES`; `hint` is the size `stat` gave. */
function readToEnd(fd: number, shown: string, hint: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  // One read of the announced size (plus one byte, to see the end) covers a regular file.
  let chunk = Buffer.allocUnsafe(Math.min(MAX_CONFIG_BYTES + 1, Math.max(hint + 1, 64 * 1024)));
  for (;;) {
    const n = readSync(fd, chunk, 0, chunk.length, null);
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
    total += n;
    if (total > MAX_CONFIG_BYTES) throw tooLarge(shown, total);
    if (n === chunk.length) chunk = Buffer.allocUnsafe(Math.min(MAX_CONFIG_BYTES + 1 - total, 1024 * 1024));
    else chunk = chunk.subarray(n);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}

/**
 * Reads a config from `stream` (standard input for `-`) to its end, bounded by
 * `MAX_CONFIG_BYTES`, and decodes it as `readConfigFile` does. Rejects with `ConfigReadError`.
 */
export async function readConfigStream(stream: NodeJS.ReadableStream, shown = '<stdin>'): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const data of stream) {
      const chunk = typeof data === 'string' ? Buffer.from(data) : (data as Buffer);
      total += chunk.length;
      if (total > MAX_CONFIG_BYTES) {
        // Stop reading: the rest is never buffered.
        (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
        throw tooLarge(shown, total);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof ConfigReadError) throw error;
    throw new ConfigReadError('unreadable', `${shown} cannot be read: ${(error as Error).message}.`);
  }
  return decodeConfig(Buffer.concat(chunks, total), shown);
}

// Text that decodes is judged by the rule set, as the editor judges it (a NUL is invalid-json);
// bytes that do not decode are no config at all.
function decodeConfig(buffer: Buffer, shown: string): string {
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
