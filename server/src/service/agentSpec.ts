/** The `agent` value of a config, read from the rule set's summary or guessed from its text before any parse. */
import type { Analysis } from '10xgraph/rules';
import { summarizeTree } from '../configFacts';

/** The `agent` value of a strict-JSON analysis, from the rule set's one summary of the config. */
export function readAgentSpec(analysis: Analysis): string | undefined {
  return analysis.flatTree ? summarizeTree(analysis.flatTree).agent?.value : undefined;
}

/**
 * A hint of `agent` before the first analysis of a document, so that its graph is read alongside
 * rather than after: not a reading of the config (the analysis corrects it when wrong, and every
 * later version takes the value the summary read). Linear: each candidate's scan ends at the next quote.
 */
export function guessAgentSpec(text: string): string | undefined {
  return /"agent"\s*:\s*"([^"\\]*)"/.exec(text)?.[1];
}
