/**
 * The 10xgraph version the server reports as `info.version`: the runtime package's version.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

declare const __VERSION__: string | undefined;

let cached: string | undefined;

/**
 * Reads the version of the `10xgraph` package. Bundles may define `__VERSION__`; otherwise the
 * package.json above this file is read (the source tree, runtime/dist and dist/ all have one above them).
 */
export function packageVersion(): string {
  if (cached) return cached;
  if (typeof __VERSION__ === 'string') return (cached = __VERSION__);
  const candidates = [join(__dirname, '..', 'package.json'), join(__dirname, '..', '..', 'package.json'), join(__dirname, '..', 'runtime', 'package.json')];
  for (let dir = __dirname, i = 0; i < 5; i++, dir = dirname(dir)) candidates.push(join(dir, 'package.json'), join(dir, 'runtime', 'package.json'));
  for (const file of candidates) {
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === '10xgraph' && typeof pkg.version === 'string') return (cached = pkg.version);
    } catch {
      // Not there or not JSON: try the next place.
    }
  }
  return (cached = '0.0.0');
}
