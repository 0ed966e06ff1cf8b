/**
 * Document URIs as paths: what the `10xgraph.files` globs are matched against (the absolute
 * path and the path relative to each workspace folder), and the folder beside a config.
 */
import { fileURLToPath } from 'node:url';
import { dirname } from 'node:path';
import { trimTrailingSlashes } from '10xgraph/live';

/** The file-system path of a `file:` URI, or undefined for other schemes (untitled documents). */
export function fsPathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

function slashed(path: string): string {
  return path.replace(/\\/g, '/');
}

/** The decoded path part of any URI (for schemes other than `file:`). */
function uriPath(uri: string): string {
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

/**
 * The paths `uri` is matched under: its absolute path, and its path relative to each
 * workspace folder that contains it.
 */
export function matchPathsOf(uri: string, folderUris: readonly string[]): string[] {
  const fsPath = fsPathOf(uri);
  const absolute = fsPath !== undefined ? slashed(fsPath) : uriPath(uri);
  const paths = [absolute];
  for (const folder of folderUris) {
    const folderPath = fsPathOf(folder);
    const base = trimTrailingSlashes(folderPath !== undefined ? slashed(folderPath) : uriPath(folder));
    if (absolute.startsWith(base + '/')) paths.push(absolute.slice(base.length + 1));
  }
  return paths;
}

/** The folder of a `file:` document, where its agent modules live. */
export function folderOf(uri: string): string | undefined {
  const fsPath = fsPathOf(uri);
  return fsPath === undefined ? undefined : dirname(fsPath);
}
