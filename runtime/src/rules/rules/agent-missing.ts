import type { Rule } from '../context';
import { openBrace, propertyOf } from '../context';
import { insertPropertyEdit } from '../fixHelpers';

/** `agent-missing`: the file must name the graph the server runs. */
export const agentMissing: Rule = {
  code: 'agent-missing',
  check({ root, text, options, report }) {
    if (root.type !== 'object' || propertyOf(root, 'agent')) return;
    const candidates = options.agentCandidates?.length ? options.agentCandidates : ['graph:app'];
    report({
      code: 'agent-missing',
      message: `"agent" is missing: name the compiled graph the server runs as "module:export", e.g. "${candidates[0]}".`,
      node: openBrace(root),
      fixes: candidates.map((spec, i) => ({
        title: `Add "agent": "${spec}"`,
        edits: [insertPropertyEdit(text, root, 'agent', JSON.stringify(spec))],
        isPreferred: i === 0,
      })),
    });
  },
};
