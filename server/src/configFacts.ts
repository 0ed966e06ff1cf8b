/**
 * What a config says about the project, in LSP terms: the rule set's one summary of it
 * (`configSummaryOf`: `agent` and the `node` and `name` of each remote tool, with offsets) with
 * each string's range. Read from the rule set's flat tree of a strict-JSON text, or from the
 * (tolerant) tree the features share, so a config being typed still takes part.
 */
import type { Range } from 'vscode-languageserver';
import { type ConfigSummary, configSummaryOf, type StringSpan, type Tree } from '10xgraph/rules';
import type { Positions } from './positions';

/** A JSON string value and where it lies. */
export interface StringSite {
  value: string;
  /** The string with its quotes. */
  range: Range;
  /** The text between the quotes. */
  inner: Range;
  /** True when the text between the quotes is exactly the value (no escapes): a rename can replace it. */
  exact: boolean;
}

/** One remote tool of a config. */
export interface ToolFacts {
  index: number;
  name?: StringSite;
  node?: StringSite;
  /** The whole tool object. */
  range: Range;
}

/** The facts of one config: the rule set's summary, and its ranges. */
export interface ConfigFacts {
  agent?: StringSite;
  tools: ToolFacts[];
  /** The summary the ranges were made from (offsets): what the project rules read. */
  summary: ConfigSummary;
  /** The position of an offset of the config's text (a function: left out when facts are compared as JSON). */
  positionAt: Positions['positionAt'];
}

function siteOf(span: StringSpan | undefined, lines: Positions): StringSite | undefined {
  if (!span) return undefined;
  const end = span.offset + span.length;
  return {
    value: span.value,
    range: { start: lines.positionAt(span.offset), end: lines.positionAt(end) },
    inner: { start: lines.positionAt(span.offset + 1), end: lines.positionAt(end - 1) },
    exact: span.exact,
  };
}

/** The facts of a config: the ranges of the rule set's summary of it (`configSummaryOf`, `configSummaryOfNode` or `readConfigSummary`). */
export function configFactsOf(summary: ConfigSummary, lines: Positions): ConfigFacts {
  return {
    agent: siteOf(summary.agent, lines),
    tools: summary.tools.map((t) => ({
      index: t.index,
      name: siteOf(t.name, lines),
      node: siteOf(t.node, lines),
      range: { start: lines.positionAt(t.offset), end: lines.positionAt(t.offset + t.length) },
    })),
    summary,
    positionAt: (offset) => lines.positionAt(offset),
  };
}

/** The summary of each flat tree read, while the tree lives. */
const summaries = new WeakMap<Tree, ConfigSummary>();

/**
 * The rule set's summary of a strict-JSON config's tree (`configSummaryOf`), read once per tree:
 * a keystroke's `agent`, the project diagnostics' tool names, the names key and the facts all read
 * the same one.
 */
export function summarizeTree(tree: Tree): ConfigSummary {
  let summary = summaries.get(tree);
  if (!summary) summaries.set(tree, (summary = configSummaryOf(tree)!));
  return summary;
}
