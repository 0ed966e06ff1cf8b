/**
 * What one JS/TS source says about the project, in LSP terms: the nodes an agent module adds
 * (`addNode('TOOL', new ToolNode(…))`) and the remote-tool handlers any source registers
 * (`client.registerToolHandler('name', …)`). The source is read (never run) by the runtime's one
 * source reader (`analyzeSource`, the one `10xgraph audit --project` uses); this module only
 * turns its offsets into ranges.
 */
import type { Range } from 'vscode-languageserver';
import { LineIndex, type NodeKind } from '10xgraph/rules';
import { analyzeSource, type SourceName } from '10xgraph/workspace';

/** A string literal in a source: its value and where its text (between the quotes) lies. */
export interface NameSite {
  /** The literal's value; undefined when the name is computed (not a string literal). */
  name: string | undefined;
  /** The range of the argument (the literal with its quotes, or the computed expression). */
  range: Range;
  /** The range of the text between the quotes (literals only). */
  inner?: Range;
  /** True when the text between the quotes is exactly the value (no escapes): a rename can replace it. */
  exact: boolean;
}

/** One registration of a handler: `registerToolHandler(name, …)` or `registerTool({ name, … })`. */
export type HandlerSite = NameSite;

/** One `addNode(name, node)` call and what the node is, as far as the source says. */
export interface NodeSite extends NameSite {
  kind: NodeKind;
}

/** The facts of one source file. */
export interface SourceFacts {
  handlers: HandlerSite[];
  nodes: NodeSite[];
  /** The first structural error, when the text is not valid (what could be read is kept). */
  syntaxError?: string;
}

const NO_FACTS: SourceFacts = { handlers: [], nodes: [] };

/**
 * Reads the facts of one source text (the reader needs no language hint, so no file name). Never
 * throws: a text with errors gives what could be read and its first error.
 */
export function readSourceFacts(text: string): SourceFacts {
  // Most files mention neither call: they need no reading at all.
  if (!text.includes('registerTool') && !text.includes('addNode')) return NO_FACTS;
  const analysis = analyzeSource(text);
  const lines = new LineIndex(text);
  const rangeOf = (offset: number, length: number): Range => ({ start: lines.positionAt(offset), end: lines.positionAt(offset + length) });
  const site = (s: SourceName): NameSite => ({
    name: s.name,
    range: rangeOf(s.offset, s.length),
    ...(s.inner ? { inner: rangeOf(s.inner.offset, s.inner.length) } : {}),
    exact: s.exact,
  });
  return {
    handlers: analysis.handlers.map(site),
    nodes: analysis.nodes.map((n) => ({ ...site(n), kind: n.kind })),
    ...(analysis.syntaxError ? { syntaxError: analysis.syntaxError } : {}),
  };
}
