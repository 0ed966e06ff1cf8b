/** The `agent` value of a config, read from the rule set's tree or guessed from its text before any parse. */
import { type Analysis, Kind, NONE } from '10xgraph/rules';

/** The `agent` value of a strict-JSON analysis, read from the rule set's tree. */
export function readAgentSpec(analysis: Analysis): string | undefined {
  const tree = analysis.flatTree;
  if (!tree || tree.kind[tree.root] !== Kind.Object) return undefined;
  const value = tree.get(tree.root, 'agent');
  return value !== NONE && tree.kind[value] === Kind.String ? tree.string(value) : undefined;
}

/** A first guess of `agent` before the analysis (corrected after it when wrong). */
export function guessAgentSpec(text: string): string | undefined {
  return /"agent"\s*:\s*"([^"\\]*)"/.exec(text)?.[1];
}
