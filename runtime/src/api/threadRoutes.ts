/**
 * The thread routes of `10xgraph api`: read a thread (`GET /v1/threads/{id}`, its messages a page
 * at a time), cancel what it waits for (`POST /v1/threads/{id}/cancel`) and delete it
 * (`DELETE /v1/threads/{id}`). Declared here as routes of the server's route table (router.ts),
 * which authorises a request and checks its `{id}` (`readThreadIdParam`) before it comes here.
 */
import type { ServerResponse } from 'node:http';
import { toolResultMessage } from '../graph/messages';
import { ApiError } from './errors';
import { sendData } from './http';
import { loadCrypto } from './lazy';
import { StoreUnavailableError, type ThreadStore } from './store/index';
import type { Route } from './router';
import { checkThreadId } from './validate';

/** Messages per page when the request does not say. */
export const DEFAULT_PAGE_SIZE = 100;
/** The most messages one page holds. */
export const MAX_PAGE_SIZE = 1000;

/** What a cancelled call's failed result says (the model reads it). */
export const CANCELLED_RESULT = 'Cancelled: the client stopped waiting for this call, so it has no result. Do not wait for it; carry on without it or ask the user.';

/** The pattern of a thread (`GET`, `DELETE`). */
const THREAD_PATTERN = '/v1/threads/{id}';
/** The pattern of a thread's cancel (`POST`). */
const THREAD_CANCEL_PATTERN = '/v1/threads/{id}/cancel';

/** Reads the `{id}` of a thread route: percent-decoded (400 when it cannot be), then checked as every thread id is (422). */
function readThreadIdParam(raw: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new ApiError(400, 'invalid_request', `The thread id '${raw.slice(0, 100)}' in the path is not valid percent-encoding.`);
  }
  return checkThreadId(decoded, `Path parameter 'id' of ${THREAD_PATTERN}`);
}

/** The parameter readers the thread routes need in a route table. */
export const THREAD_PARAMS = { id: readThreadIdParam } as const;

/**
 * The thread routes, for a route table with `THREAD_PARAMS`. `guard` is called before anything
 * is written, so the server can refuse new work while it shuts down. No route here reads a body:
 * a refusal closes a connection whose body is still coming (http.ts).
 */
export function createThreadRoutes(store: ThreadStore, guard: () => void): Route[] {
  return [
    { method: 'GET', pattern: THREAD_PATTERN, handle: ({ res, requestId, url }, { id }) => storeAnswer(readThread(res, requestId, store, id!, url.searchParams)) },
    { method: 'DELETE', pattern: THREAD_PATTERN, handle: ({ res, requestId }, { id }) => storeAnswer(deleteThread(res, requestId, store, id!, guard)) },
    { method: 'POST', pattern: THREAD_CANCEL_PATTERN, handle: ({ res, requestId }, { id }) => storeAnswer(cancelThread(res, requestId, store, id!, guard)) },
  ];
}

/** A store that cannot be reached is a 503 of the thread routes. */
async function storeAnswer(answer: Promise<void>): Promise<void> {
  try {
    await answer;
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw new ApiError(503, 'store_unavailable', error.message);
    throw error;
  }
}

async function readThread(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, query: URLSearchParams): Promise<void> {
  const offset = readCount(query, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
  const limit = readCount(query, 'limit', 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE);
  const page = await store.page(threadId, offset, limit);
  if (!page) throw notFound(threadId);
  const end = offset + page.messages.length;
  sendData(
    res,
    requestId,
    {
      thread_id: page.threadId,
      status: page.status,
      running: page.running,
      message_count: page.messageCount,
      messages: page.messages,
      pending_remote_calls: page.pending,
      last_error: page.lastError ?? null,
      created_at: page.createdAt,
      updated_at: page.updatedAt,
      page: { offset, limit, next_offset: end < page.messageCount ? end : null },
    },
    `Thread '${threadId}' is ${page.running ? 'running' : page.status} with ${page.messageCount} message${page.messageCount === 1 ? '' : 's'}; messages ${page.messages.length ? `${offset}..${end - 1}` : 'none'} on this page.`,
  );
}

/**
 * Answers every pending remote call of a waiting thread with a failed result saying it was
 * cancelled, in one commit, so the model reads why and the thread takes new messages.
 */
async function cancelThread(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, guard: () => void): Promise<void> {
  guard();
  const exists = await store.load(threadId);
  if (!exists) throw notFound(threadId);
  const owner = `cancel-${loadCrypto().randomUUID()}`;
  const record = await store.acquire(threadId, owner);
  if (!record) throw busy(threadId);
  let committed = false;
  try {
    if (record.status !== 'waiting' || record.checkpoint.pending.length === 0) {
      return sendData(
        res,
        requestId,
        { thread_id: threadId, status: record.status, cancelled_calls: [], message: null },
        `Thread '${threadId}' waits for no remote call; nothing to cancel.`,
      );
    }
    const calls = record.checkpoint.pending;
    const message = toolResultMessage(calls.map((call) => ({ type: 'tool_result', call_id: call.id, output: null, status: 'failed', error: CANCELLED_RESULT })));
    const { messages, ...values } = record.checkpoint.state;
    await store.commit(threadId, owner, { checkpoint: { state: { ...values, messages: [...messages, message] }, pending: [] }, status: 'completed', from: record.messageCount });
    committed = true;
    sendData(
      res,
      requestId,
      { thread_id: threadId, status: 'completed', cancelled_calls: calls.map((call) => call.id), message },
      `Cancelled ${calls.length} remote call${calls.length === 1 ? '' : 's'} of thread '${threadId}'; it takes new messages.`,
    );
  } finally {
    if (!committed) await store.release(threadId, owner).catch(() => {});
  }
}

async function deleteThread(res: ServerResponse, requestId: string, store: ThreadStore, threadId: string, guard: () => void): Promise<void> {
  guard();
  const outcome = await store.delete(threadId);
  if (outcome === 'missing') throw notFound(threadId);
  if (outcome === 'busy') throw busy(threadId);
  sendData(res, requestId, { thread_id: threadId, deleted: true }, `Thread '${threadId}' and its messages are deleted.`);
}

function readCount(query: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const text = query.get(name);
  if (text === null) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new ApiError(
      400,
      'invalid_request',
      `Query parameter '${name}' must be a whole number from ${min} to ${max === Number.MAX_SAFE_INTEGER ? 'the message count' : max}; got '${text.slice(0, 40)}'.`,
    );
  }
  return value;
}

function notFound(threadId: string): ApiError {
  return new ApiError(404, 'thread_not_found', `No thread '${threadId}' on this server; it was never used or has been deleted.`);
}

/** The 409 of a thread a run holds. */
export function busy(threadId: string): ApiError {
  return new ApiError(409, 'thread_busy', `Thread '${threadId}' is running another request; wait for its end, then send this one again.`);
}
