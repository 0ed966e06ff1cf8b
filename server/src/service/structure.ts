/**
 * Folding ranges and selection ranges of a config, from the (tolerant) tree the features share:
 * what the JSON and YAML servers offer for their files.
 */
import type { FoldingRange, Position, SelectionRange } from 'vscode-languageserver';
import { type JsonNode, nodeAtOffset } from '10xgraph/rules';
import type { Positions } from '../positions';
import { rangeOf } from '../diagnostics';

/** One folding range per object and array that spans lines (ending on the line before its closing bracket). */
export function foldingRanges(tree: JsonNode | undefined, lines: Positions): FoldingRange[] {
  const ranges: FoldingRange[] = [];
  const stack = tree ? [tree] : [];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'object' || node.type === 'array') {
      const start = lines.positionAt(node.offset).line;
      const end = lines.positionAt(node.offset + node.length).line;
      if (end - 1 > start) ranges.push({ startLine: start, endLine: end - 1 });
    }
    for (const child of node.children ?? []) stack.push(child);
  }
  return ranges.sort((a, b) => a.startLine - b.startLine);
}

/** For each position, the chain of nodes around it, innermost first: value, property, object, …, the whole file. */
export function selectionRanges(tree: JsonNode | undefined, lines: Positions, positions: Position[]): SelectionRange[] {
  return positions.map((position) => {
    const offset = lines.offsetAt(position);
    let node = tree ? nodeAtOffset(tree, offset) : undefined;
    const chain: JsonNode[] = [];
    while (node) {
      const previous = chain[chain.length - 1];
      if (!previous || previous.offset !== node.offset || previous.length !== node.length) chain.push(node);
      node = node.parent;
    }
    let parent: SelectionRange | undefined;
    for (let i = chain.length - 1; i >= 0; i--) parent = { range: rangeOf(lines, chain[i].offset, chain[i].length), ...(parent ? { parent } : {}) };
    return parent ?? { range: { start: position, end: position } };
  });
}
