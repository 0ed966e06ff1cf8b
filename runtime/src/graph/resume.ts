/**
 * The rule for resuming a waiting thread: a request carries exactly one `tool_result` per
 * pending remote call, and no result for anything else. Pure, so the server can check a request
 * before it starts streaming and the graph checks it again when it runs.
 */
import { GraphRunError } from './errors';
import type { Message } from './messages';
import type { Checkpoint } from './types';

/**
 * Throws a `GraphRunError` (`unknown_call_id` or `missing_tool_results`) when `messages` do not
 * answer the pending calls of `checkpoint` exactly.
 */
export function validateResume(checkpoint: Pick<Checkpoint, 'pending'> | undefined, messages: readonly Message[]): void {
  const pending = new Set((checkpoint?.pending ?? []).map((call) => call.id));
  const seen = new Set<string>();
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      if (seen.has(block.call_id)) {
        throw new GraphRunError('unknown_call_id', `Tool result for call '${block.call_id}' is sent twice in one request; send one result per pending call.`);
      }
      if (!pending.has(block.call_id)) {
        throw new GraphRunError(
          'unknown_call_id',
          `Tool result for call '${block.call_id}' answers no pending remote call of this thread (unknown or already answered); send results only for the remote_tool_call blocks the thread's last run handed to the client.`,
        );
      }
      seen.add(block.call_id);
    }
  }
  const missing = [...pending].filter((id) => !seen.has(id));
  if (missing.length > 0) {
    throw new GraphRunError(
      'missing_tool_results',
      `The thread waits for the results of remote call${missing.length === 1 ? '' : 's'} ${missing.map((id) => `'${id}'`).join(', ')}; send a tool_result for every pending call in one request.`,
    );
  }
}
