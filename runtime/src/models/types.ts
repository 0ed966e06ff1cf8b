/**
 * The chat model interface the model node runs. Any model fits that can take a conversation
 * and a list of tools and answer with text, tool calls, or both.
 */
import type { Message } from '10xgraph-client/wire';

/** A JSON Schema object describing a tool's arguments (`type: "object"`). */
export type JsonSchema = Record<string, unknown>;

/** A tool as the model is offered it. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** What the model node asks of the model. */
export interface ModelRequest {
  /** The whole conversation of the thread, oldest first. */
  messages: readonly Message[];
  /** Every tool of every ToolNode, server and remote alike. */
  tools: readonly ToolDefinition[];
  signal?: AbortSignal;
  /**
   * Called with each piece of the answer's text as the model produces it; a model that cannot
   * stream never calls it and returns the whole turn as before. Either way `generate` resolves to
   * the whole turn, whose text is the pieces joined.
   */
  onText?: (delta: string) => void;
}

/** A tool call the model asks for. The id is made up when the model gives none. */
export interface ModelToolCall {
  id?: string;
  name: string;
  args: unknown;
}

/** The model's turn: text, tool calls, or both. */
export interface ModelTurn {
  text?: string;
  toolCalls?: ModelToolCall[];
}

/** A pluggable chat model. */
export interface ChatModel {
  /** A name for logs and the graph description. */
  readonly name?: string;
  /**
   * Answers one turn of the conversation, passing its text to `request.onText` piece by piece when
   * it can. Throw a `ModelError` when the model cannot answer.
   */
  generate(request: ModelRequest): Promise<ModelTurn>;
}

/** A model could not answer (unreachable, refused, malformed reply). */
export class ModelError extends Error {
  readonly code = 'model_error';
  /** The HTTP status of the model's API, when it answered. */
  readonly status?: number;

  constructor(message: string, status?: number) {
    super(message);
    this.name = 'ModelError';
    this.status = status;
  }
}
