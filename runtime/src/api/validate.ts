/**
 * Checks a run request body (`{messages, config?: {thread_id?}, recursion_limit?}`) field by
 * field. Each refusal is a 422 that names the field, so a client knows exactly what to change.
 * A client may only say what a client says: `user` messages of text, and `tool` messages of
 * results (for pending calls, which the resume rule checks). Assistant messages, tool calls and
 * tool messages are the graph's to write, so no client can forge the thread's history.
 */
import { DEFAULT_RECURSION_LIMIT, isThreadId, MAX_RECURSION_LIMIT, newMessageId, THREAD_ID_RULE, type Block, type Message } from '10xgraph-client/wire';
import { ApiError } from './errors';

/** A checked run request. */
export interface RunRequest {
  messages: Message[];
  threadId?: string;
  recursionLimit: number;
}

/** Checks `body` and returns the request, or throws a 422 `invalid_request` naming the field. */
export function parseRunRequest(body: unknown): RunRequest {
  if (!isObject(body)) throw invalid(`The request body must be a JSON object with a 'messages' list; got ${describe(body)}.`);
  const messages = body.messages;
  if (!Array.isArray(messages)) throw invalid(`Field 'messages' must be a list of messages; got ${describe(messages)}.`);
  if (messages.length === 0) throw invalid(`Field 'messages' must hold at least one message.`);
  const checked = messages.map((message, i) => parseMessage(message, `messages[${i}]`));
  let threadId: string | undefined;
  if (body.config !== undefined && body.config !== null) {
    if (!isObject(body.config)) throw invalid(`Field 'config' must be an object like {"thread_id": "..."}; got ${describe(body.config)}.`);
    const id = body.config.thread_id;
    if (id !== undefined && id !== null) threadId = checkThreadId(id, "Field 'config.thread_id'");
  }
  let recursionLimit = DEFAULT_RECURSION_LIMIT;
  if (body.recursion_limit !== undefined && body.recursion_limit !== null) {
    const limit = body.recursion_limit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_RECURSION_LIMIT) {
      throw invalid(`Field 'recursion_limit' must be a whole number from 1 to ${MAX_RECURSION_LIMIT}; got ${describe(limit)}.`);
    }
    recursionLimit = limit;
  }
  return { messages: checked, ...(threadId !== undefined ? { threadId } : {}), recursionLimit };
}

function parseMessage(value: unknown, path: string): Message {
  if (!isObject(value)) throw invalid(`Field '${path}' must be a message object {"role", "content"}; got ${describe(value)}.`);
  const id = value.message_id;
  if (id !== undefined && id !== null && (typeof id !== 'string' || id === '')) throw invalid(`Field '${path}.message_id' must be a non-empty string; got ${describe(id)}.`);
  const role = value.role;
  if (role === 'assistant') {
    throw invalid(`Field '${path}.role' is "assistant": assistant messages come from the graph, and a client may send only "user" messages and "tool" results for pending calls.`);
  }
  if (role !== 'user' && role !== 'tool') throw invalid(`Field '${path}.role' must be "user" or "tool"; got ${describe(role)}.`);
  if (!Array.isArray(value.content)) throw invalid(`Field '${path}.content' must be a list of blocks; got ${describe(value.content)}.`);
  const content = value.content.map((block, i) => parseBlock(block, `${path}.content[${i}]`));
  content.forEach((block, i) => {
    const allowed = role === 'user' ? block.type === 'text' : block.type === 'tool_result';
    if (!allowed) {
      throw invalid(
        role === 'user'
          ? `Field '${path}.content[${i}].type' is "${block.type}": a user message holds only "text" blocks (tool calls come from the graph).`
          : `Field '${path}.content[${i}].type' is "${block.type}": a tool message holds only "tool_result" blocks answering pending calls.`,
      );
    }
  });
  return { message_id: typeof id === 'string' ? id : newMessageId(), role, content };
}

function parseBlock(value: unknown, path: string): Block {
  if (!isObject(value)) throw invalid(`Field '${path}' must be a block object with a 'type'; got ${describe(value)}.`);
  const field = (name: string) => `${path}.${name}`;
  const requireString = (name: string, nonEmpty: boolean): string => {
    const v = value[name];
    if (typeof v !== 'string' || (nonEmpty && v === '')) throw invalid(`Field '${field(name)}' must be a ${nonEmpty ? 'non-empty ' : ''}string; got ${describe(v)}.`);
    return v;
  };
  switch (value.type) {
    case 'text':
      return { type: 'text', text: requireString('text', false) };
    case 'tool_call':
    case 'remote_tool_call':
      return { type: value.type, id: requireString('id', true), name: requireString('name', true), args: checkDepth(value.args ?? {}, field('args')) };
    case 'tool_result': {
      const callId = requireString('call_id', true);
      const status = value.status;
      if (status !== 'completed' && status !== 'failed') throw invalid(`Field '${field('status')}' must be "completed" or "failed"; got ${describe(status)}.`);
      const error = value.error;
      if (error !== undefined && error !== null && typeof error !== 'string') throw invalid(`Field '${field('error')}' must be a string; got ${describe(error)}.`);
      return { type: 'tool_result', call_id: callId, output: checkDepth(value.output ?? null, field('output')), status, ...(typeof error === 'string' ? { error } : {}) };
    }
    default:
      throw invalid(`Field '${field('type')}' must be "text", "tool_call", "remote_tool_call" or "tool_result"; got ${describe(value.type)}.`);
  }
}

/** Values nested deeper than this are refused: the store and the model's request serialise them recursively. */
const MAX_VALUE_DEPTH = 256;

/** Returns `value` when it nests at most MAX_VALUE_DEPTH levels; otherwise a 422 naming `path`. */
function checkDepth(value: unknown, path: string): unknown {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    if (depth > MAX_VALUE_DEPTH) throw invalid(`Field '${path}' nests deeper than ${MAX_VALUE_DEPTH} levels; send flatter data.`);
    const next: unknown[] = [];
    for (const item of level) {
      if (typeof item === 'object' && item !== null) for (const child of Object.values(item)) if (typeof child === 'object' && child !== null) next.push(child);
    }
    level = next;
  }
  return value;
}

/**
 * Returns `value` when it is a thread id (docs/spec.md §4), or throws the 422 `invalid_request`
 * naming where it was (`subject`, such as "Field 'config.thread_id'"): the same refusal for a
 * request body, a WebSocket frame and a route's path.
 */
export function checkThreadId(value: unknown, subject: string): string {
  if (isThreadId(value)) return value;
  const length = typeof value === 'string' && value.length > 40 ? ` (${value.length} characters)` : '';
  throw invalid(`${subject} must be a thread id: ${THREAD_ID_RULE}; got ${describe(value)}${length}.`);
}

function invalid(message: string): ApiError {
  return new ApiError(422, 'invalid_request', message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return value.length > 40 ? `a string` : JSON.stringify(value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
