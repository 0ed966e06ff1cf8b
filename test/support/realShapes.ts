/**
 * The modules of test/fixtures/real-shapes: each follows the shape of a public 10xGraph module
 * (named in its header) and says in its header what its compiled graph is, as 10xGraph builds it:
 *
 *     # Follows: <repository> <path> @ <commit> (what the shape is)
 *     # Export: <the name "agent" gives>
 *     # Nodes: MAIN model_node, TOOL tool_node        (the nodes, in order, and their kinds)
 *     # Not read: ^<a regular expression of the reason>$   (or: why no graph is read)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './run';

export const REAL_SHAPES = join(ROOT, 'test', 'fixtures', 'real-shapes');

export interface RealShape {
  file: string;
  source: string;
  follows: string;
  exportName: string;
  /** The nodes and kinds the compiled graph has. */
  nodes?: Array<[string, string]>;
  /** The reason the reader gives instead. */
  reason?: RegExp;
}

/** Every module of the folder, its header read. */
export function realShapes(): RealShape[] {
  return readdirSync(REAL_SHAPES)
    .filter((f) => f.endsWith('.py'))
    .sort()
    .map((file) => {
      const source = readFileSync(join(REAL_SHAPES, file), 'utf8');
      const header = (key: string) => new RegExp(`^# ${key}: (.*)$`, 'm').exec(source)?.[1];
      const follows = header('Follows');
      const exportName = header('Export');
      const nodes = header('Nodes');
      const reason = header('Not read');
      if (!follows || !exportName || (nodes === undefined) === (reason === undefined)) throw new Error(`${file}: the header needs Follows, Export and one of Nodes or Not read`);
      return {
        file,
        source,
        follows,
        exportName,
        ...(nodes !== undefined ? { nodes: nodes.split(', ').map((n) => n.split(' ') as [string, string]) } : {}),
        ...(reason !== undefined ? { reason: new RegExp(reason) } : {}),
      };
    });
}
