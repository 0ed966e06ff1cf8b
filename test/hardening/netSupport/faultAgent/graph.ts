/**
 * The agent of the fault-injection test: a scripted model that calls the remote tool `lookup`
 * for a number of rounds the user's text asks for, then answers with every result. A "hold plan"
 * (a JSON file named by `TENXGRAPH_FAULT_PLAN`) makes one model turn announce itself on stdout
 * and never finish, so the test can SIGKILL the server at that exact point of the loop.
 */
import { readFileSync } from 'node:fs';
import { END, failureReasonOf, isFailedResult, ModelNode, ScriptedModel, StateGraph, ToolNode, toolsCondition } from '10xgraph';
import type { Message, ModelRequest, ModelTurn } from '10xgraph';

/** Which turn to hold: `call` (a turn that will call tools) or `answer` (the final turn). */
interface HoldPlan {
  stage: 'call' | 'answer';
  /** Holds only a conversation whose tag contains this text. */
  tagIncludes?: string;
}

const PLAN_FILE = process.env.TENXGRAPH_FAULT_PLAN;

function readPlan(): HoldPlan | undefined {
  if (!PLAN_FILE) return undefined;
  try {
    const text = readFileSync(PLAN_FILE, 'utf8').trim();
    return text ? (JSON.parse(text) as HoldPlan) : undefined;
  } catch {
    return undefined;
  }
}

function textOf(message: Message | undefined): string {
  return (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** `[t:TAG] rounds=R calls=C`: R rounds of C calls each. */
function parseAsk(text: string): { tag: string; rounds: number; calls: number } {
  const tag = /\[t:([^\]]+)\]/.exec(text)?.[1] ?? 'untagged';
  const rounds = Number(/rounds=(\d+)/.exec(text)?.[1] ?? '1');
  const calls = Number(/calls=(\d+)/.exec(text)?.[1] ?? '1');
  return { tag, rounds, calls };
}

async function script(request: ModelRequest): Promise<ModelTurn> {
  const { messages } = request;
  let lastUser = messages.length - 1;
  while (lastUser >= 0 && messages[lastUser]!.role !== 'user') lastUser--;
  const ask = parseAsk(textOf(messages[lastUser]));
  const turn = messages.slice(lastUser + 1);
  // The ToolNode's own `remote_tool_call` message is a tool message too: count only answers.
  const round = turn.filter((message) => message.content.some((block) => block.type === 'tool_result')).length;
  const stage = round < ask.rounds ? 'call' : 'answer';
  const plan = readPlan();
  if (plan && plan.stage === stage && (plan.tagIncludes === undefined || ask.tag.includes(plan.tagIncludes))) {
    process.stdout.write(`HOLD ${ask.tag} ${stage} ${round}\n`);
    // The test kills the process now; this turn never ends.
    await new Promise<never>(() => undefined);
  }
  if (stage === 'call') {
    return { toolCalls: Array.from({ length: ask.calls }, (_, i) => ({ name: 'lookup', args: { key: `${ask.tag}-r${round}-c${i}` } })) };
  }
  const outputs: string[] = [];
  for (const message of turn) {
    for (const block of message.content) if (block.type === 'tool_result') outputs.push(isFailedResult(block) ? `failed:${failureReasonOf(block)}` : String(block.output));
  }
  return { text: `answer ${ask.tag}: ${outputs.join(' ')}` };
}

/** The compiled graph `10xgraph.json` names as `graph:app`. */
export const app = new StateGraph()
  .addNode('agent', new ModelNode(new ScriptedModel(script)))
  .addNode('TOOL', new ToolNode([]))
  .setEntryPoint('agent')
  .addConditionalEdges('agent', toolsCondition, ['TOOL', END])
  .addEdge('TOOL', 'agent')
  .compile({ name: 'faults' });
