/**
 * A thread's state as the API shows it (the real 10xGraph server's `AgentState`): its messages
 * as `context`, `context_summary`, `execution_meta` (where the graph stands) and the graph's
 * other values under their own keys. Used by invoke and stream at `full` granularity and by the
 * thread state routes.
 */
import type { AgentState, ExecutionMeta, Message } from '10xgraph-client/wire';
import type { Checkpoint } from '../graph/types';

/** The state of `threadId` at `checkpoint`, its graph `status` as the caller knows it. */
export function stateView(threadId: string, checkpoint: Checkpoint, status: ExecutionMeta['status']): AgentState {
  const { messages, context_summary: summary, ...values } = checkpoint.state;
  const waiting = checkpoint.pending.length > 0;
  return {
    ...values,
    context: messages.map(wireMessage),
    context_summary: typeof summary === 'string' ? summary : null,
    execution_meta: {
      current_node: checkpoint.interruptedAt ?? (status === 'running' ? 'START' : 'END'),
      step: 0,
      status: waiting ? 'interrupted_after' : status,
      interrupted_node: waiting ? (checkpoint.interruptedAt ?? null) : null,
      interrupt_reason: waiting ? 'remote_tool_call' : null,
      interrupt_data: waiting ? { remote_tool_calls: checkpoint.pending.map(({ id, name, args, node }) => ({ id, name, args, node })) } : null,
      thread_id: threadId,
      stop_current_execution: 'none',
      internal_data: {},
    },
  };
}

/**
 * A message as the API sends it: every key the Python server's messages carry, those a message
 * does not use at their empty value (`delta: false`, `tools_calls: null`, `metadata: {}`), and a
 * `timestamp` (messages stored before messages had one take the time they are read).
 */
export function wireMessage(message: Message): Message {
  if (message.delta !== undefined && message.tools_calls !== undefined && message.timestamp !== undefined && message.metadata !== undefined) return message;
  return {
    ...message,
    delta: message.delta ?? false,
    tools_calls: message.tools_calls ?? null,
    timestamp: message.timestamp ?? Date.now() / 1000,
    metadata: message.metadata ?? {},
  };
}
