/**
 * The agent of the thread-store tests: a scripted model that calls the remote tool `lookup`
 * once with the tag of the user's text (`[t:TAG]`), then answers with the result. A text with
 * `[hold:FILE]` makes the model's first turn print `HOLD TAG` on stdout and wait until FILE
 * exists, so a test can act while a run is in flight (kill the process, try the thread from
 * another instance, send SIGTERM) and then let it finish.
 */
import { existsSync } from 'node:fs';
import { END, ModelNode, ScriptedModel, StateGraph, ToolNode, failureReasonOf, isFailedResult, toolsCondition } from '10xgraph';
import type { Message, ModelRequest, ModelTurn } from '10xgraph';

function textOf(message: Message | undefined): string {
  return (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

async function script(request: ModelRequest): Promise<ModelTurn> {
  const { messages } = request;
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && messages[lastUser]!.role !== 'user') lastUser--;
  const text = textOf(messages[lastUser]);
  const tag = /\[t:([^\]]+)\]/.exec(text)?.[1] ?? 'untagged';
  const results = messages.slice(lastUser + 1).flatMap((message) => message.content.flatMap((block) => (block.type === 'tool_result' ? [block] : [])));
  if (results.length === 0) {
    const hold = /\[hold:([^\]]+)\]/.exec(text)?.[1];
    if (hold) {
      process.stdout.write(`HOLD ${tag}\n`);
      while (!existsSync(hold)) await new Promise((wake) => setTimeout(wake, 10));
    }
    return { toolCalls: [{ name: 'lookup', args: { key: tag } }] };
  }
  const outputs = results.map((block) => (isFailedResult(block) ? `failed:${failureReasonOf(block)}` : String(block.output)));
  return { text: `answer ${tag}: ${outputs.join(' ')}` };
}

/** The compiled graph `10xgraph.json` names as `graph:app`. */
export const app = new StateGraph()
  .addNode('agent', new ModelNode(new ScriptedModel(script)))
  .addNode('TOOL', new ToolNode([]))
  .setEntryPoint('agent')
  .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
  .addEdge('TOOL', 'agent')
  .compile({ name: 'store-tests' });
