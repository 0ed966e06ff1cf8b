/**
 * `ModelNode`: the node that asks a chat model for the next turn, offering it every tool of
 * every ToolNode (server and remote alike), and appends the model's answer as an assistant message.
 */
import type { ChatModel } from '../models/types';
import { newCallId, newMessageId, type Block, type Message, type OpenAIToolCall } from './messages';
import type { GraphState, NodeContext } from './types';

/** Marks model nodes, so graphs recognise them whichever copy of the library made them. */
export const MODEL_NODE_MARK = Symbol.for('10xgraph.ModelNode');

/** Tells whether a value is a ModelNode (of any copy of the library). */
export function isModelNode(value: unknown): value is ModelNode {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MODEL_NODE_MARK] === true;
}

/** A node around a pluggable chat model. */
export class ModelNode {
  readonly kind = 'model_node' as const;
  readonly [MODEL_NODE_MARK] = true;
  readonly model: ChatModel;

  /** Makes a model node that asks `model` for each turn. */
  constructor(model: ChatModel) {
    if (typeof model?.generate !== 'function') throw new TypeError('ModelNode needs a chat model with a generate(request) method.');
    this.model = model;
  }

  /**
   * Asks the model for one turn and returns it as one assistant message. When the context takes
   * deltas, each piece of text the model streams is handed over first as a `delta: true` message
   * with the final message's id.
   */
  async run(state: GraphState, context: NodeContext): Promise<Message> {
    const messageId = newMessageId();
    const onDelta = context.onDelta;
    const turn = await this.model.generate({
      messages: state.messages,
      tools: context.tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
      signal: context.signal,
      ...(onDelta
        ? {
            onText: (piece: string) => {
              if (typeof piece === 'string' && piece !== '') onDelta({ message_id: messageId, role: 'assistant', content: [{ type: 'text', text: piece }], delta: true });
            },
          }
        : {}),
    });
    const content: Block[] = [];
    const toolsCalls: OpenAIToolCall[] = [];
    if (typeof turn.text === 'string' && turn.text !== '') content.push({ type: 'text', text: turn.text });
    for (const call of turn.toolCalls ?? []) {
      const id = typeof call.id === 'string' && call.id !== '' ? call.id : newCallId();
      const args = call.args ?? {};
      content.push({ type: 'tool_call', id, name: call.name, args });
      toolsCalls.push({ id, type: 'function', function: { name: call.name, arguments: safeJson(args) } });
    }
    if (content.length === 0) content.push({ type: 'text', text: '' });
    return {
      message_id: messageId,
      role: 'assistant',
      content,
      ...(toolsCalls.length > 0 ? { tools_calls: toolsCalls } : {}),
      timestamp: Date.now() / 1000,
      metadata: { node_name: context.node, ...(this.model.name ? { model: this.model.name } : {}) },
    };
  }
}

/** A call's arguments as the OpenAI shape carries them: JSON text. */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return '{}';
  }
}
