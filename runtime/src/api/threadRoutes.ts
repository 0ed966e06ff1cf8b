/**
 * The thread routes of `10xgraph api`, the real 10xGraph server's checkpointer routes: the
 * thread list (`GET /v1/threads`), a thread's details and deletion (`/v1/threads/{id}`), its
 * state (`GET`, `PUT`, `DELETE /v1/threads/{id}/state`), its messages (`GET`, `POST
 * /v1/threads/{id}/messages`, `GET`, `DELETE /v1/threads/{id}/messages/{message_id}`), and what
 * `POST /v1/graph/stop` and `/v1/graph/fix` do to a thread between runs. Declared here as routes
 * of the server's route table (router.ts), which authorises a request and checks its parameters
 * (`THREAD_PARAMS`) before it comes here. Every write takes the thread's run lock, as a run does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ActionData, FixData, Message, RemoteToolCall as RemoteCall, ThreadInfo } from '10xgraph-client/wire';
import { failedResult, textOf, toolResultMessage } from '../graph/messages';
import type { Checkpoint } from '../graph/types';
import type { Caller, Scope } from './access';
import { ApiError } from './errors';
import { readJsonBody, sendData } from './http';
import { loadCrypto } from './lazy';
import type { RequestContext, Route, RouteParams } from './router';
import { stateView, wireMessage } from './stateView';
import { StoreUnavailableError, type ThreadRecord, type ThreadStore, type ThreadSummary } from './store/index';
import { checkDepth, checkThreadId, describe, invalid, isObject, parseMessage } from './validate';

/** Items per page when the request does not say. */
export const DEFAULT_PAGE_SIZE = 100;
/** The most items one page holds. */
export const MAX_PAGE_SIZE = 1000;

/** What a cancelled call's failed result says (the model reads it). */
export const CANCELLED_RESULT = 'Cancelled: the client stopped waiting for this call, so it has no result. Do not wait for it; carry on without it or ask the user.';

/** The `tool` message that answers cancelled calls, each with a failed result the model reads; stamped now. */
export function cancelledResults(calls: readonly RemoteCall[]): Message {
  return { ...toolResultMessage(calls.map((call) => failedResult(call.id, CANCELLED_RESULT))), timestamp: Date.now() / 1000 };
}

const THREAD_PATTERN = '/v1/threads/{id}';

/** Percent-decodes a path parameter (400 when it cannot be). */
function decodeParam(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError(400, 'BAD_REQUEST', `The ${name} '${raw.slice(0, 100)}' in the path is not valid percent-encoding.`);
  }
}

/** The parameter readers the thread routes (and the routes of features not served) need in a route table. */
export const THREAD_PARAMS = {
  id: (raw: string) => checkThreadId(decodeParam(raw, 'thread id'), `Path parameter 'id' of ${THREAD_PATTERN}`, ['path', 'thread_id'], false),
  message_id: (raw: string) => decodeParam(raw, 'message id'),
  /** A memory's or a file's id, on the routes of features this server does not serve (each answers 503). */
  item_id: (raw: string) => decodeParam(raw, 'id'),
} as const;

/** What the thread routes need of their server. */
export interface ThreadRouteOptions {
  store: ThreadStore;
  /** Called before anything is written, so the server can refuse new work while it shuts down. */
  guard: () => void;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

/** The thread routes, for a route table with `THREAD_PARAMS`. */
export function createThreadRoutes(options: ThreadRouteOptions): Route[] {
  const { store, guard } = options;
  /** A body the route may go without (`DELETE` routes): `{}` when none was sent. */
  const readBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    if (req.headers['content-length'] === '0' || (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)) return {};
    const body = await readJsonBody(req, options.maxBodyBytes, options.bodyTimeoutMs);
    if (!isObject(body)) throw invalid(`The request body must be a JSON object; got ${describe(body)}.`, []);
    if (body.config !== undefined && body.config !== null && !isObject(body.config)) throw invalid(`Field 'config' must be an object; got ${describe(body.config)}.`, ['config']);
    return body;
  };
  const M = `${THREAD_PATTERN}/messages/{message_id}`;
  /** A route that writes: its body read first, then refused while the server shuts down, then `act`. */
  const write = (
    method: 'PUT' | 'POST' | 'DELETE',
    pattern: string,
    scope: Scope,
    act: (context: RequestContext, params: RouteParams, body: Record<string, unknown>) => Promise<void>,
  ): Route => ({
    method,
    pattern,
    body: true,
    scope,
    thread: 'path',
    async handle(context, params) {
      const body = await readBody(context.req);
      guard();
      await storeAnswer(act(context, params, body));
    },
  });
  return [
    {
      method: 'GET',
      pattern: '/v1/threads',
      scope: 'checkpointer:read',
      handle: ({ res, requestId, url, caller }) => storeAnswer(listThreads(res, requestId, store, url.searchParams, caller)),
    },
    {
      method: 'GET',
      pattern: THREAD_PATTERN,
      scope: 'checkpointer:read',
      thread: 'path',
      handle: ({ res, requestId, caller }, { id }) => storeAnswer(threadDetails(res, requestId, store, id!, caller)),
    },
    write('DELETE', THREAD_PATTERN, 'checkpointer:delete', ({ res, requestId, caller }, { id }) => deleteThread(res, requestId, store, id!, caller)),
    {
      method: 'GET',
      pattern: `${THREAD_PATTERN}/state`,
      scope: 'checkpointer:read',
      thread: 'path',
      handle: ({ res, requestId, caller }, { id }) => storeAnswer(threadState(res, requestId, store, id!, caller)),
    },
    write('PUT', `${THREAD_PATTERN}/state`, 'checkpointer:write', ({ res, requestId, caller }, { id }, body) => putState(res, requestId, store, id!, body, caller)),
    write('DELETE', `${THREAD_PATTERN}/state`, 'checkpointer:delete', ({ res, requestId, caller }, { id }) => clearState(res, requestId, store, id!, caller)),
    {
      method: 'GET',
      pattern: `${THREAD_PATTERN}/messages`,
      scope: 'checkpointer:read',
      thread: 'path',
      handle: ({ res, requestId, url, caller }, { id }) => storeAnswer(listMessages(res, requestId, store, id!, url.searchParams, caller)),
    },
    write('POST', `${THREAD_PATTERN}/messages`, 'checkpointer:write', ({ res, requestId, caller }, { id }, body) => putMessages(res, requestId, store, id!, body, caller)),
    {
      method: 'GET',
      pattern: M,
      scope: 'checkpointer:read',
      thread: 'path',
      handle: ({ res, requestId, caller }, { id, message_id }) => storeAnswer(oneMessage(res, requestId, store, id!, message_id!, caller)),
    },
    write('DELETE', M, 'checkpointer:delete', ({ res, requestId, caller }, { id, message_id }) => deleteMessage(res, requestId, store, id!, message_id!, caller)),
  ];
}

/** A store that cannot be reached is a 503 of the thread routes. */
async function storeAnswer(answer: Promise<void>): Promise<void> {
  try {
    await answer;
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw new ApiError(503, 'TRANSIENT_STORAGE_ERROR', error.message);
    throw error;
  }
}

/** A thread as the list and the details show it. */
function infoOf(thread: Pick<ThreadSummary, 'threadId' | 'updatedAt' | 'createdAt' | 'status' | 'running' | 'messageCount' | 'userId'>): ThreadInfo {
  return {
    thread_id: thread.threadId,
    thread_name: null,
    user_id: thread.userId ?? null,
    metadata: { status: thread.status, running: thread.running, message_count: thread.messageCount, created_at: thread.createdAt },
    updated_at: thread.updatedAt,
    run_id: null,
  };
}

async function listThreads(res: ServerResponse, requestId: string, store: ThreadStore, query: URLSearchParams, caller: Caller): Promise<void> {
  const { offset, limit, search } = readPage(query);
  const userId = caller.listOwner;
  const threads = await store.list({ ...(search ? { search } : {}), ...(userId === undefined ? {} : { userId }), offset, limit });
  sendData(res, requestId, { threads: threads.map(infoOf) }, `${threads.length} thread${threads.length === 1 ? '' : 's'} from ${offset}.`);
}

/** Reads a thread for a caller: refused (403) when it is another user's. */
async function loadFor(store: ThreadStore, threadId: string, caller: Caller): Promise<ThreadRecord | undefined> {
  const record = await store.load(threadId);
  await caller.authorize(threadId, record?.userId);
  return record;
}

async function threadDetails(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, caller: Caller): Promise<void> {
  const record = await loadFor(store, threadId, caller);
  sendData(res, requestId, { thread_data: { thread: record ? infoOf(record) : null } }, record ? `Thread '${threadId}'.` : `No thread '${threadId}'.`);
}

async function threadState(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, caller: Caller): Promise<void> {
  const record = await loadFor(store, threadId, caller);
  sendData(
    res,
    requestId,
    { state: record ? stateView(threadId, record.checkpoint, record.running ? 'running' : 'completed') : null },
    record ? `The state of thread '${threadId}'.` : `No thread '${threadId}'.`,
  );
}

async function listMessages(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, query: URLSearchParams, caller: Caller): Promise<void> {
  const { offset, limit, search } = readPage(query);
  let messages: Message[];
  if (search) {
    const record = await loadFor(store, threadId, caller);
    const needle = search.toLowerCase();
    messages = (record?.checkpoint.state.messages ?? []).filter((message) => textOf(message).toLowerCase().includes(needle)).slice(offset, offset + limit);
  } else {
    const page = await store.page(threadId, offset, limit);
    await caller.authorize(threadId, page?.userId);
    messages = page?.messages ?? [];
  }
  sendData(res, requestId, { messages: messages.map(wireMessage) }, `${messages.length} message${messages.length === 1 ? '' : 's'} of thread '${threadId}' from ${offset}.`);
}

async function oneMessage(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, messageId: string, caller: Caller): Promise<void> {
  const record = await loadFor(store, threadId, caller);
  const message = record?.checkpoint.state.messages.find((candidate) => candidate.message_id === messageId);
  if (!message) throw messageNotFound(threadId, messageId, record !== undefined);
  sendData(res, requestId, wireMessage(message), `Message '${messageId}' of thread '${threadId}'.`);
}

/**
 * Runs `change` on the thread under its run lock and commits what it returns, or answers 409
 * when a run holds the thread, 403 when it is another user's than `caller`'s. `create`: a thread
 * that does not exist is made, recorded as the caller's (else 404).
 */
async function withThread<T>(
  store: ThreadStore,
  threadId: string,
  caller: Caller,
  create: boolean,
  change: (record: ThreadRecord) => { checkpoint: Checkpoint; from: number; rewrite: boolean; result: T } | { result: T; unchanged: true },
): Promise<T> {
  const owner = `edit-${loadCrypto().randomUUID()}`;
  // The lock and the read are one step: a thread no run has stored comes back as a new, empty record.
  // Another user's thread is refused before its lock is taken (and checked again once it is, below).
  if (caller.access.enabled) await caller.authorize(threadId, await store.userOf(threadId));
  const creator = caller.creator;
  const record = await store.acquire(threadId, owner, creator === undefined ? {} : { userId: creator });
  if (!record) throw busy(threadId);
  let committed = false;
  try {
    await caller.authorize(threadId, record.userId);
    if (!create && record.status === 'new' && record.messageCount === 0) throw threadNotFound(threadId);
    const outcome = change(record);
    if ('unchanged' in outcome) return outcome.result;
    await store.commit(threadId, owner, {
      checkpoint: outcome.checkpoint,
      status: outcome.checkpoint.pending.length > 0 ? 'waiting' : 'completed',
      from: outcome.from,
      ...(outcome.rewrite ? { rewrite: true } : {}),
    });
    committed = true;
    return outcome.result;
  } finally {
    // A commit that failed may have left the lock held (a store that could not be reached): released here, if still ours.
    if (!committed) await store.release(threadId, owner).catch(() => {});
  }
}

/** Refuses messages whose ids the thread already has: an id names one message of a thread. */
function refuseKnownIds(record: ThreadRecord, messages: readonly Message[], loc: Array<string | number>): void {
  const known = new Set(record.checkpoint.state.messages.map((message) => message.message_id));
  const repeated = messages.findIndex((message) => known.has(message.message_id));
  if (repeated !== -1) {
    throw invalid(
      `Field '${loc.join('.')}[${repeated}].message_id' is '${messages[repeated]!.message_id.slice(0, 100)}', which a message of thread '${record.threadId}' already has; send another id, or "0" to let the server make one.`,
      [...loc, repeated, 'message_id'],
    );
  }
}

async function putState(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, body: Record<string, unknown>, caller: Caller): Promise<void> {
  const update = body.state;
  if (!isObject(update)) throw invalid(`Field 'state' must be an object of the values to set; got ${describe(update)}.`, ['state']);
  checkDepth(update, ['state']);
  const added = update.context === undefined || update.context === null ? [] : update.context;
  if (!Array.isArray(added)) throw invalid(`Field 'state.context' must be a list of messages to append; got ${describe(added)}.`, ['state', 'context']);
  const messages = added.map((message, i) => parseMessage(message, ['state', 'context', i]));
  // Tool results answer calls, through a run: appended here they would forge a tool's answer.
  const tool = messages.findIndex((message) => message.role === 'tool');
  if (tool !== -1)
    throw invalid(`Field 'state.context[${tool}]' is a tool message: tool results answer pending calls through /v1/graph/invoke, not here.`, ['state', 'context', tool]);
  const view = await withThread(store, threadId, caller, true, (record) => {
    refuseWhileWaiting(record, 'change its state');
    refuseKnownIds(record, messages, ['state', 'context']);
    const values: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(update)) {
      // `execution_meta` is the graph's; a null leaves a value as it is.
      if (key === 'context' || key === 'execution_meta' || key === 'messages' || value === null) continue;
      values[key] = value;
    }
    const checkpoint: Checkpoint = { ...record.checkpoint, state: { ...record.checkpoint.state, ...values, messages: [...record.checkpoint.state.messages, ...messages] } };
    return { checkpoint, from: record.messageCount, rewrite: false, result: stateView(threadId, checkpoint, 'completed') };
  });
  sendData(res, requestId, { state: view }, `The state of thread '${threadId}' is updated.`);
}

async function clearState(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, caller: Caller): Promise<void> {
  const removed = await withThread(store, threadId, caller, false, (record) => ({
    checkpoint: { state: { messages: [] }, pending: [] },
    from: 0,
    rewrite: true,
    result: record.messageCount,
  }));
  sendData(
    res,
    requestId,
    { success: true, message: 'State cleared successfully', data: { thread_id: threadId, removed_messages: removed } } satisfies ActionData,
    'State cleared successfully',
  );
}

async function putMessages(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, body: Record<string, unknown>, caller: Caller): Promise<void> {
  const list = body.messages;
  if (!Array.isArray(list) || list.length === 0) throw invalid("Field 'messages' must be a non-empty list of messages.", ['messages']);
  const messages = list.map((message, i) => parseMessage(message, ['messages', i]));
  if (messages.some((message) => message.role === 'tool')) {
    throw invalid("Field 'messages' holds a tool message: tool results answer pending calls through /v1/graph/invoke, not here.", ['messages']);
  }
  if (body.metadata !== undefined && body.metadata !== null && !isObject(body.metadata))
    throw invalid(`Field 'metadata' must be an object; got ${describe(body.metadata)}.`, ['metadata']);
  await withThread(store, threadId, caller, true, (record) => {
    refuseWhileWaiting(record, 'take new messages');
    refuseKnownIds(record, messages, ['messages']);
    const checkpoint: Checkpoint = { ...record.checkpoint, state: { ...record.checkpoint.state, messages: [...record.checkpoint.state.messages, ...messages] } };
    return { checkpoint, from: record.messageCount, rewrite: false, result: undefined };
  });
  sendData(
    res,
    requestId,
    { success: true, message: 'Messages put successfully', data: { thread_id: threadId, message_ids: messages.map((message) => message.message_id) } } satisfies ActionData,
    'Messages put successfully',
  );
}

async function deleteMessage(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, messageId: string, caller: Caller): Promise<void> {
  await withThread(store, threadId, caller, false, (record) => {
    const messages = record.checkpoint.state.messages;
    const index = messages.findIndex((message) => message.message_id === messageId);
    if (index === -1) throw messageNotFound(threadId, messageId, true);
    refuseWhileWaiting(record, 'lose a message');
    const checkpoint: Checkpoint = { ...record.checkpoint, state: { ...record.checkpoint.state, messages: [...messages.slice(0, index), ...messages.slice(index + 1)] } };
    return { checkpoint, from: index, rewrite: true, result: undefined };
  });
  sendData(res, requestId, { success: true, message: 'Message deleted successfully' } satisfies ActionData, 'Message deleted successfully');
}

async function deleteThread(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, caller: Caller): Promise<void> {
  const userId = caller.access.enabled ? await store.userOf(threadId) : undefined;
  await caller.authorize(threadId, userId);
  // Only the thread the caller was checked against: not one another user made under this id since.
  const outcome = await store.delete(threadId, caller.access.enabled ? { userId: userId ?? null } : {});
  if (outcome === 'missing') throw threadNotFound(threadId);
  if (outcome === 'busy') throw busy(threadId);
  sendData(
    res,
    requestId,
    { success: true, message: 'Thread deleted successfully', data: { thread_id: threadId, deleted: true } } satisfies ActionData,
    'Thread deleted successfully',
  );
}

/**
 * Answers every pending remote call of a waiting thread with a failed result saying it was
 * cancelled, in one commit, so the model reads why and the thread takes new messages. The ids
 * of the calls cancelled (none when it waited for nothing), `busy` when a run holds the thread,
 * undefined when there is no such thread.
 */
export async function cancelPending(store: ThreadStore, threadId: string, caller: Caller, guard: () => void): Promise<string[] | 'busy' | undefined> {
  guard();
  try {
    return await withThread(store, threadId, caller, false, (record) => {
      const calls = record.checkpoint.pending;
      if (record.status !== 'waiting' || calls.length === 0) return { unchanged: true, result: [] as string[] };
      const message = cancelledResults(calls);
      const checkpoint: Checkpoint = { state: { ...record.checkpoint.state, messages: [...record.checkpoint.state.messages, message] }, pending: [] };
      return { checkpoint, from: record.messageCount, rewrite: false, result: calls.map((call) => call.id) };
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'THREAD_BUSY') return 'busy';
    if (error instanceof ApiError && error.code === 'RESOURCE_NOT_FOUND') return undefined;
    throw error;
  }
}

/**
 * `POST /v1/graph/fix`: removes the messages whose tool calls were never answered (an assistant
 * message's `tool_call` blocks with no `tool_result` after it, and remote-call messages still
 * pending), so the thread takes new messages again.
 */
export async function fixThread(store: ThreadStore, threadId: string, caller: Caller, guard: () => void): Promise<FixData> {
  guard();
  try {
    return await withThread(store, threadId, caller, false, (record) => {
      const messages = record.checkpoint.state.messages;
      const answered = new Set<string>();
      for (const message of messages) for (const block of message.content) if (block.type === 'tool_result') answered.add(block.call_id);
      const dangling = (message: Message) => message.content.some((block) => (block.type === 'tool_call' || block.type === 'remote_tool_call') && !answered.has(block.id));
      const first = messages.findIndex(dangling);
      if (first === -1) {
        const state = JSON.stringify(stateView(threadId, record.checkpoint, 'completed'));
        return { unchanged: true, result: { success: true, message: 'No unanswered tool calls found.', removed_count: 0, state } };
      }
      // The results of the other calls of a removed message go with it: a result answers a call the thread has.
      const removedCalls = new Set<string>();
      for (const message of messages) {
        if (dangling(message)) for (const block of message.content) if (block.type === 'tool_call' || block.type === 'remote_tool_call') removedCalls.add(block.id);
      }
      const kept: Message[] = [];
      for (const message of messages) {
        if (dangling(message)) continue;
        const content = message.content.filter((block) => block.type !== 'tool_result' || !removedCalls.has(block.call_id));
        if (content.length === message.content.length) kept.push(message);
        else if (content.length > 0) kept.push({ ...message, content });
      }
      const checkpoint: Checkpoint = { state: { ...record.checkpoint.state, messages: kept }, pending: [] };
      const removed = messages.length - kept.length;
      return {
        checkpoint,
        from: first,
        rewrite: true,
        result: {
          success: true,
          message: `Removed ${removed} message${removed === 1 ? '' : 's'} with unanswered tool calls.`,
          removed_count: removed,
          state: JSON.stringify(stateView(threadId, checkpoint, 'completed')),
        },
      };
    });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'RESOURCE_NOT_FOUND')
      return { success: false, message: `No state found for thread: ${threadId}`, removed_count: 0, state: null };
    if (error instanceof StoreUnavailableError) throw new ApiError(503, 'TRANSIENT_STORAGE_ERROR', error.message);
    throw error;
  }
}

function refuseWhileWaiting(record: ThreadRecord, what: string): void {
  if (record.status === 'waiting' && record.checkpoint.pending.length > 0) {
    throw new ApiError(
      409,
      'THREAD_WAITING',
      `Thread '${record.threadId}' waits for the results of ${record.checkpoint.pending.length} remote call${record.checkpoint.pending.length === 1 ? '' : 's'} and cannot ${what}; send them (or POST /v1/graph/stop) first.`,
    );
  }
}

/** The page a list route's query asks for: `offset`, `limit` and a `search` text of at most 256 characters (undefined when empty). */
function readPage(query: URLSearchParams): { offset: number; limit: number; search: string | undefined } {
  const offset = readCount(query, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
  const limit = readCount(query, 'limit', 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE);
  const search = query.get('search') ?? '';
  if (search.length > 256) throw queryError('search', 'must be at most 256 characters');
  return { offset, limit, search: search === '' ? undefined : search };
}

function readCount(query: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const text = query.get(name);
  if (text === null) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw queryError(name, `must be a whole number from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'the item count' : max}; got '${text.slice(0, 40)}'`);
  }
  return value;
}

function queryError(name: string, why: string): ApiError {
  const message = `Query parameter '${name}' ${why}.`;
  return new ApiError(422, 'VALIDATION_ERROR', message, [{ loc: ['query', name], msg: message, type: 'value_error' }]);
}

function threadNotFound(threadId: string): ApiError {
  return new ApiError(404, 'RESOURCE_NOT_FOUND', `No thread '${threadId}' on this server; it was never used or has been deleted.`);
}

function messageNotFound(threadId: string, messageId: string, threadExists: boolean): ApiError {
  return threadExists ? new ApiError(404, 'RESOURCE_NOT_FOUND', `Thread '${threadId}' has no message '${messageId.slice(0, 100)}'.`) : threadNotFound(threadId);
}

/** The 409 of a thread a run holds. */
export function busy(threadId: string): ApiError {
  return new ApiError(409, 'THREAD_BUSY', `Thread '${threadId}' is running another request; wait for its end, then send this one again.`);
}
