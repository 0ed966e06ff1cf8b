/**
 * Ready-made route functions for `addConditionalEdges`.
 */
import { ROUTES_TO_TOOL_NODES } from './compiledGraph';
import { END, type GraphState, type NodeContext } from './types';

/**
 * Routes to the ToolNode that carries the first tool the model just called, and to `END` when
 * the model called none. A call to a tool no node carries goes to the first ToolNode, which
 * answers it with a failed result rather than leaving the call unanswered.
 */
export const toolsCondition = Object.assign(
  (state: GraphState, context: NodeContext): string => {
    const last = state.messages[state.messages.length - 1];
    if (!last || last.role !== 'assistant') return END;
    const call = last.content.find((block) => block.type === 'tool_call');
    if (!call) return END;
    return context.toolNodeOf(call.name) ?? context.toolNodes[0] ?? END;
  },
  { [ROUTES_TO_TOOL_NODES]: true },
);
