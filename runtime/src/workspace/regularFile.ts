/**
 * Reading a file of the workspace without trusting what the name stands for: the index reads
 * sources and `.gitignore` files a repository brings, and a name may be a symbolic link out of
 * the workspace, a FIFO that blocks a read forever, or a device that never ends.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

// O_NONBLOCK: opening a FIFO does not wait for a writer (and changes nothing for a regular file).
// O_NOFOLLOW: the kernel refuses a link as the last part of the name. Windows has neither.
const FOLLOWING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const FLAGS = FOLLOWING | (constants.O_NOFOLLOW ?? 0);

/** A file read in full, or why it was not (`missing`: there is no such file). */
export type FileRead = { text: string; bytes: number } | { skipped: string; missing?: boolean };

/**
 * The text (UTF-8) of the regular file at `path`, read only when it is one (not a link, a FIFO,
 * a socket or a device) and at most `maxBytes` long; otherwise why it was not read. What is
 * checked is the opened file itself, so a name swapped for a FIFO after a listing is not read either.
 * With `followLinks`, a link is followed and what it leads to is checked (a file named outside
 * the walk, such as the agent module a config names).
 */
export async function readRegularFile(path: string, maxBytes: number, followLinks = false): Promise<FileRead> {
  let handle;
  try {
    handle = await open(path, followLinks ? FOLLOWING : FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { skipped: 'it does not exist', missing: true };
    return { skipped: code === 'ELOOP' || code === 'EMLINK' ? 'it is a symbolic link' : `it cannot be opened (${code ?? String(error)})` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { skipped: 'it is not a regular file' };
    if (info.size > maxBytes) return { skipped: `it is larger than ${formatBytes(maxBytes)}` };
    // Read to the end, not to the size `stat` gives: the files of /proc say 0 and hold text. One
    // byte more than the bound is the most read, so a file that grew past it meanwhile is caught.
    let buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, Math.max(info.size + 1, 4096)));
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (buffer.length > maxBytes) break;
        const larger = Buffer.allocUnsafe(Math.min(maxBytes + 1, buffer.length * 2));
        buffer.copy(larger, 0, 0, filled);
        buffer = larger;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes) return { skipped: `it is larger than ${formatBytes(maxBytes)}` };
    return { text: buffer.toString('utf8', 0, filled), bytes: filled };
  } catch (error) {
    return { skipped: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** `512 KB`, `2 MB`: a bound as people read it. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${Math.round(bytes / 1024)} KB`;
}
