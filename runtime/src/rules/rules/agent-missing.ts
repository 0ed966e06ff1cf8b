import { type Rule, Kind, NONE, openBrace } from '../context';
import { insertPropertyEdit } from '../fixHelpers';

/** `agent-missing`: the file must name the graph the server runs. */
export const agentMissing: Rule = {
  code: 'agent-missing',
  check({ tree, root, options, report }) {
    if (tree.kind[root] !== Kind.Object || tree.property(root, 'agent') !== NONE) return;
    const candidates = options.agentCandidates?.length ? options.agentCandidates : ['graph:app'];
    report({
      code: 'agent-missing',
      message: `"agent" is missing: name the compiled graph the server runs as "module:export", e.g. "${candidates[0]}".`,
      node: openBrace(tree, root),
      fixes: candidates.map((spec, i) => ({
        title: `Add "agent": "${spec}"`,
        edits: [insertPropertyEdit(tree, root, 'agent', JSON.stringify(spec))],
        isPreferred: i === 0,
      })),
    });
  },
};
