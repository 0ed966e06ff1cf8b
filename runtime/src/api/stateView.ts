/**
 * A thread's state as the API shows it (the real 10xGraph server's `AgentState`): its messages
 * as `context`, `context_summary`, `execution_meta` (where the graph stands) and the graph's
 * other values under their own keys. Used by invoke and stream at `full` granularity and by the
 * thread state routes.
 */
import type { AgentState, ExecutionMeta } from '10xgraph-client/wire';
import type { Checkpoint } from '../graph/types';

/** The state of `threadId` at `checkpoint`, its graph `status` as the caller knows it. */
export function stateView(threadId: string, checkpoint: Checkpoint, status: ExecutionMeta['status']): AgentState {
  const { messages, context_summary: summary, ...values } = checkpoint.state;
  const waiting = checkpoint.pending.length > 0;
  return {
    ...values,
    context: messages,
    context_summary: typeof summary === 'string' ? summary : null,
    execution_meta: {
      current_node: checkpoint.interruptedAt ?? (status === 'running' ? 'START' : 'END'),
      step: 0,
      status: waiting ? 'interrupted_after' : status,
      interrupted_node: waiting && checkpoint.interruptedAt !== undefined ? [checkpoint.interruptedAt] : null,
      interrupt_reason: waiting ? 'remote_tool_call' : null,
      thread_id: threadId,
      pending_remote_calls: checkpoint.pending.map(({ id, name, args, node }) => ({ id, name, args, node })),
    },
  };
}
