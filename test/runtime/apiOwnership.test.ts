/**
 * Who may touch a thread when `10xgraph api` authenticates its callers (docs/spec.md §4): with
 * `"auth": "jwt"` and `"authorization": "ownership"` a thread is its creator's, and another user
 * is refused with the real server's 403 (`HTTPException`, "Not authorized to <action> <resource>")
 * on every thread route and every run that names it, over HTTP and on the WebSocket (an error
 * chunk, and the socket stays open). The table of attempts is checked against the server's own
 * route list, so a thread route added without a check fails here. In-process on both stores
 * (SQLite in a file, a PostgreSQL cluster of the test's own); then as real processes: two
 * `10xgraph api` sharing one PostgreSQL database, and the default of `authorization` with and
 * without `MODE=production`.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { allowAllBackend, ownershipBackend, rbacBackend, SCOPES } from '../../runtime/src/api/access';
import { customAuthenticator, jwtAuthenticator } from '../../runtime/src/api/auth';
import { createApiServer, type ApiServer } from '../../runtime/src/api/server';
import { openThreadStore, type ThreadStore } from '../../runtime/src/api/store/index';
import { ApiProcess } from '../hardening/netSupport/apiProcess';
import { bearerHeader, makeJwtSecret, signJwt } from '../support/jwt';
import { TestPostgres } from '../support/postgres';
import { buildTestGraph, isDone, ROOT, userText, WsSession } from './serverHelpers';

const SECRET = makeJwtSecret();
const JWT_ENV = { JWT_SECRET_KEY: SECRET, JWT_ALGORITHM: 'HS256', JWT_ISSUER: '', JWT_AUDIENCE: '' };

/** The tokens of the two users, signed once the test starts. */
const tokens = { alice: '', bob: '' };

/** The test's own PostgreSQL cluster, shared by the in-process suite and the processes. */
let cluster: TestPostgres;

before(async () => {
  tokens.alice = await signJwt(SECRET, { user_id: 'alice' });
  tokens.bob = await signJwt(SECRET, { user_id: 'bob' });
  cluster = await TestPostgres.start();
});
after(() => cluster?.stop());

/** An answer: its status, its content type, and its body (parsed when JSON). */
interface Answer {
  status: number;
  contentType: string | null;
  body: any;
}

/** Sends one request, the token as `Authorization: Bearer`, and reads the whole answer. */
async function call(base: string, method: string, path: string, token: string | undefined, body?: unknown): Promise<Answer> {
  const response = await fetch(base + path, {
    method,
    headers: { ...bearerHeader(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  return { status: response.status, contentType, body: contentType?.startsWith('application/json') && text ? JSON.parse(text) : text };
}

/** Asserts the real server's refusal of a caller the backend does not allow: 403, `HTTPException`, the message. */
function assertRefused(answer: Answer, message: string, what: string): void {
  assert.equal(answer.status, 403, `${what}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body?.error?.code, 'HTTPException', what);
  assert.equal(answer.body?.error?.message, message, what);
}

/** Something one may try on a thread: a route of the server, with what it is sent, and the refusal a stranger gets. */
interface Attempt {
  method: string;
  /** The route's pattern as the server's route table declares it. */
  pattern: string;
  /** Appended to the path (a query string). */
  query?: string;
  body?: (threadId: string) => unknown;
  /** What the 403 says: "Not authorized to <action> <resource>". */
  refusal: string;
}

/**
 * Every HTTP way to read, change or run a thread, in an order its owner can follow to the end
 * (reads, then writes and runs, then deletions).
 */
const ATTEMPTS: readonly Attempt[] = [
  { method: 'GET', pattern: '/v1/threads/{id}', refusal: 'Not authorized to read checkpointer' },
  { method: 'GET', pattern: '/v1/threads/{id}/state', refusal: 'Not authorized to read checkpointer' },
  { method: 'GET', pattern: '/v1/threads/{id}/messages', refusal: 'Not authorized to read checkpointer' },
  { method: 'GET', pattern: '/v1/threads/{id}/messages', query: '?search=hello', refusal: 'Not authorized to read checkpointer' },
  { method: 'GET', pattern: '/v1/threads/{id}/messages/{message_id}', refusal: 'Not authorized to read checkpointer' },
  { method: 'PUT', pattern: '/v1/threads/{id}/state', body: () => ({ state: { context: [userText('a note')] } }), refusal: 'Not authorized to write checkpointer' },
  { method: 'POST', pattern: '/v1/threads/{id}/messages', body: () => ({ messages: [userText('a message')] }), refusal: 'Not authorized to write checkpointer' },
  {
    method: 'POST',
    pattern: '/v1/graph/invoke',
    body: (threadId) => ({ messages: [userText('hello again')], config: { thread_id: threadId } }),
    refusal: 'Not authorized to invoke graph',
  },
  {
    method: 'POST',
    pattern: '/v1/graph/stream',
    body: (threadId) => ({ messages: [userText('hello once more')], config: { thread_id: threadId } }),
    refusal: 'Not authorized to stream graph',
  },
  { method: 'POST', pattern: '/v1/graph/stop', body: (threadId) => ({ thread_id: threadId }), refusal: 'Not authorized to stop graph' },
  { method: 'POST', pattern: '/v1/graph/fix', body: (threadId) => ({ thread_id: threadId }), refusal: 'Not authorized to fix graph' },
  { method: 'DELETE', pattern: '/v1/threads/{id}/messages/{message_id}', refusal: 'Not authorized to delete checkpointer' },
  { method: 'DELETE', pattern: '/v1/threads/{id}/state', refusal: 'Not authorized to delete checkpointer' },
  { method: 'DELETE', pattern: '/v1/threads/{id}', refusal: 'Not authorized to delete checkpointer' },
];

/** The path of `pattern` for `threadId` and `messageId` (`{item_id}`: any id). */
function pathOf(pattern: string, threadId: string, messageId: string, query = ''): string {
  return pattern.replace('{id}', encodeURIComponent(threadId)).replace('{message_id}', encodeURIComponent(messageId)).replace('{item_id}', 'item-1') + query;
}

/** What `attempt` answers to the caller of `token`. */
function attempt(base: string, step: Attempt, token: string, threadId: string, messageId: string): Promise<Answer> {
  return call(base, step.method, pathOf(step.pattern, threadId, messageId, step.query), token, step.body?.(threadId));
}

function describeAttempt(step: Attempt): string {
  return `${step.method} ${step.pattern}${step.query ?? ''}`;
}

/** A thread as its details show it (`GET /v1/threads/{id}`), to the caller of `token`. */
async function threadOf(base: string, threadId: string, token: string | undefined): Promise<any> {
  const answer = await call(base, 'GET', `/v1/threads/${encodeURIComponent(threadId)}`, token);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.data.thread_data.thread;
}

/** The thread ids the caller of `token` sees in `GET /v1/threads`. */
async function listedThreads(base: string, token: string): Promise<string[]> {
  const answer = await call(base, 'GET', '/v1/threads?limit=1000', token);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.data.threads.map((thread: any) => thread.thread_id);
}

/** The messages of a thread, to the caller of `token`. */
async function messagesOf(base: string, threadId: string, token: string | undefined): Promise<any[]> {
  const answer = await call(base, 'GET', `/v1/threads/${encodeURIComponent(threadId)}/messages`, token);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.data.messages;
}

/** Makes a thread by a run of the caller of `token` (a plain answer: two messages). */
async function makeThread(base: string, threadId: string, token: string | undefined): Promise<void> {
  const answer = await call(base, 'POST', '/v1/graph/invoke', token, { messages: [userText('hello')], config: { thread_id: threadId } });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

/** Opens a WebSocket on `/v1/graph/ws` that the server closes at once; resolves to the close code and reason. */
async function closedHandshake(base: string, token: string): Promise<{ code: number; reason: string }> {
  const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/v1/graph/ws`, { headers: bearerHeader(token) });
  socket.on('error', () => {});
  const [code, reason] = (await once(socket, 'close')) as [number, Buffer];
  return { code, reason: reason.toString() };
}

/** The store of one suite, fresh, and how to remove what it left. */
interface StoreFixture {
  store: ThreadStore;
  cleanup(): void | Promise<void>;
}

/**
 * The ownership rule on one store: one store behind several servers (JWT with ownership, allow
 * all and RBAC, one without authentication, and a custom authenticator whose user has no id).
 */
function ownershipSuite(name: string, open: () => Promise<StoreFixture>): void {
  describe(`ownership on the ${name} store`, () => {
    let fixture: StoreFixture;
    let owned: ApiServer;
    const servers: ApiServer[] = [];
    /** Base URLs: ownership, no authentication, allow all, RBAC, the nameless custom user. */
    const base = { owned: '', open: '', allowAll: '', rbac: '', nameless: '' };
    const namelessLog: string[] = [];
    let nextThread = 0;
    /** A thread id of this suite not used before. */
    const freshThread = (what: string) => `${name}-${what}-${++nextThread}`;

    before(async () => {
      fixture = await open();
      const graph = buildTestGraph();
      const jwt = jwtAuthenticator({ secret: SECRET, algorithm: 'HS256' });
      const serve = async (server: ApiServer) => {
        servers.push(server);
        return server.listen(0);
      };
      owned = createApiServer({ graph, db: fixture.store, auth: jwt, authorization: ownershipBackend() });
      base.owned = await serve(owned);
      base.open = await serve(createApiServer({ graph, db: fixture.store }));
      base.allowAll = await serve(createApiServer({ graph, db: fixture.store, auth: jwt, authorization: allowAllBackend() }));
      base.rbac = await serve(
        createApiServer({
          graph,
          db: fixture.store,
          auth: jwt,
          authorization: rbacBackend({ kind: 'rbac', roles: { admin: ['*'], viewer: ['graph:read', 'checkpointer:read'] }, defaultScopes: [], isolation: 'owner' }),
        }),
      );
      // A custom authenticator whose user carries no `user_id`.
      const nameless = customAuthenticator(
        (request: { credential?: string }) => (request.credential === 'nameless' ? { name: 'Nameless', roles: ['admin'] } : undefined),
        "'auth:nameless'",
        (line) => namelessLog.push(line),
      );
      base.nameless = await serve(createApiServer({ graph, db: fixture.store, auth: nameless, authorization: ownershipBackend() }));
    });
    after(async () => {
      await Promise.all(servers.map((server) => server.close()));
      await fixture?.store.close();
      await fixture?.cleanup();
    });

    test('every route whose pattern names a thread ({id}) is in the table of attempts, and every attempt is a route of the server', () => {
      const routes = owned.routes.map((route) => `${route.method} ${route.pattern}`);
      const tried = new Set(ATTEMPTS.map((step) => `${step.method} ${step.pattern}`));
      const threadRoutes = routes.filter((route) => route.includes('{id}'));
      assert.ok(threadRoutes.length >= 9, `the server declares ${threadRoutes.length} thread routes: ${threadRoutes.join(', ')}`);
      assert.deepEqual(
        threadRoutes.filter((route) => !tried.has(route)),
        [],
        'a thread route that nobody tries here: add it to ATTEMPTS (with the refusal a stranger gets)',
      );
      assert.deepEqual(
        [...tried].filter((route) => !routes.includes(route)),
        [],
      );
    });

    test("bob is refused (403 HTTPException) on every thread route and every run on alice's thread; her thread is unchanged and she can still do each", async () => {
      const threadId = freshThread('alice');
      await makeThread(base.owned, threadId, tokens.alice);
      const before = await messagesOf(base.owned, threadId, tokens.alice);
      assert.equal(before.length, 2);
      const messageId = before[0].message_id as string;
      const stateBefore = (await call(base.owned, 'GET', `/v1/threads/${threadId}/state`, tokens.alice)).body.data.state;

      for (const step of ATTEMPTS) {
        assertRefused(await attempt(base.owned, step, tokens.bob, threadId, messageId), step.refusal, `bob: ${describeAttempt(step)}`);
      }
      // A message id the thread does not have is refused the same (nothing of the thread is told).
      assertRefused(
        await call(base.owned, 'GET', `/v1/threads/${threadId}/messages/no-such-message`, tokens.bob),
        'Not authorized to read checkpointer',
        'bob: an unknown message',
      );

      const thread = await threadOf(base.owned, threadId, tokens.alice);
      assert.equal(thread.user_id, 'alice');
      assert.equal(thread.metadata.message_count, 2);
      assert.deepEqual(await messagesOf(base.owned, threadId, tokens.alice), before);
      assert.deepEqual((await call(base.owned, 'GET', `/v1/threads/${threadId}/state`, tokens.alice)).body.data.state, stateBefore);

      for (const step of ATTEMPTS) {
        const answer = await attempt(base.owned, step, tokens.alice, threadId, messageId);
        assert.equal(answer.status, 200, `alice: ${describeAttempt(step)}: ${JSON.stringify(answer.body)}`);
        if (step.pattern === '/v1/graph/stream') assert.match(answer.contentType ?? '', /^text\/event-stream/);
      }
      // Her last step deleted the thread.
      assert.equal((await threadOf(base.owned, threadId, tokens.alice)) ?? null, null);
    });

    test("bob's run on alice's thread over the WebSocket gets the error chunk and a done, and the socket takes his next frame", async () => {
      const threadId = freshThread('alice-ws');
      await makeThread(base.owned, threadId, tokens.alice);
      const session = await WsSession.open(base.owned, { token: tokens.bob });
      try {
        const refused = await session.run({ invoke_type: 'fresh', messages: [userText('hello')], config: { thread_id: threadId } });
        assert.deepEqual(
          refused.map((chunk) => chunk.event),
          ['error', 'updates'],
          JSON.stringify(refused),
        );
        assert.equal(refused[0].data.reason, `Not authorized to stream thread ${threadId}`);
        assert.equal(refused[0].thread_id, threadId);
        assert.ok(isDone(refused[1]));
        assert.equal(session.socket.readyState, WebSocket.OPEN);

        const own = freshThread('bob-ws');
        const chunks = await session.run({ invoke_type: 'fresh', messages: [userText('hello')], config: { thread_id: own } });
        assert.ok(!chunks.some((chunk) => chunk.event === 'error'), JSON.stringify(chunks));
        assert.ok(chunks.some((chunk) => chunk.event === 'message' && chunk.message?.role === 'assistant'));
        assert.equal((await threadOf(base.owned, own, tokens.bob)).user_id, 'bob');
      } finally {
        await session.close();
      }
      assert.equal((await threadOf(base.owned, threadId, tokens.alice)).metadata.message_count, 2);

      const hers = await WsSession.open(base.owned, { token: tokens.alice });
      try {
        const chunks = await hers.run({ invoke_type: 'fresh', messages: [userText('hello')], config: { thread_id: threadId } });
        assert.ok(!chunks.some((chunk) => chunk.event === 'error'), JSON.stringify(chunks));
      } finally {
        await hers.close();
      }
      assert.equal((await threadOf(base.owned, threadId, tokens.alice)).metadata.message_count, 4);
    });

    test("GET /v1/threads lists each user's own threads only; the details show user_id", async () => {
      const hers = freshThread('alice-listed');
      const his = freshThread('bob-listed');
      await makeThread(base.owned, hers, tokens.alice);
      await makeThread(base.owned, his, tokens.bob);
      const aliceSees = await listedThreads(base.owned, tokens.alice);
      const bobSees = await listedThreads(base.owned, tokens.bob);
      assert.ok(aliceSees.includes(hers));
      assert.ok(!aliceSees.includes(his));
      assert.ok(bobSees.includes(his));
      assert.ok(!bobSees.includes(hers));
      const search = await call(base.owned, 'GET', `/v1/threads?search=${encodeURIComponent(hers)}`, tokens.bob);
      assert.deepEqual(search.body.data.threads, []);
      assert.equal((await threadOf(base.owned, hers, tokens.alice)).user_id, 'alice');
      assert.equal((await threadOf(base.owned, his, tokens.bob)).user_id, 'bob');
    });

    test('a thread made without authentication (no recorded user) is open to both users', async () => {
      const threadId = freshThread('nobody');
      await makeThread(base.open, threadId, undefined);
      assert.equal((await threadOf(base.open, threadId, undefined)).user_id, null);
      for (const token of [tokens.alice, tokens.bob]) {
        assert.equal((await threadOf(base.owned, threadId, token)).user_id, null);
        assert.equal((await messagesOf(base.owned, threadId, token)).length, 2);
      }
      await makeThread(base.owned, threadId, tokens.bob);
      await makeThread(base.owned, threadId, tokens.alice);
      assert.equal((await threadOf(base.owned, threadId, tokens.alice)).metadata.message_count, 6);
    });

    test('a custom authenticator whose user has no user_id: 403 on every route but /ping, and the WebSocket is closed 1008', async () => {
      const threadId = freshThread('nobody-else');
      await makeThread(base.open, threadId, undefined);
      const messageId = (await messagesOf(base.open, threadId, undefined))[0].message_id as string;
      const bodies = new Map(ATTEMPTS.filter((step) => step.body).map((step) => [`${step.method} ${step.pattern}`, step.body!]));
      const routes = servers[servers.length - 1]!.routes;
      for (const route of routes) {
        const what = `${route.method} ${route.pattern}`;
        const body = bodies.get(what)?.(threadId) ?? (route.body ? {} : undefined);
        const answer = await call(base.nameless, route.method, pathOf(route.pattern, threadId, messageId), 'nameless', body);
        if (route.public) {
          assert.equal(answer.status, 200, what);
          continue;
        }
        assert.equal(answer.status, 403, `${what}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error.code, 'HTTPException', what);
        const refusal = /^Not authorized to ([a-z]+) ([a-z]+)$/.exec(answer.body.error.message);
        assert.ok(refusal, `${what}: ${answer.body.error.message}`);
        assert.ok((SCOPES as readonly string[]).includes(`${refusal[2]}:${refusal[1]}`), `${what}: ${answer.body.error.message}`);
      }
      assert.deepEqual(await closedHandshake(base.nameless, 'nameless'), { code: 1008, reason: 'Not authorized to stream graph' });
      assert.equal((await threadOf(base.open, threadId, undefined)).metadata.message_count, 2);
      assert.ok(
        namelessLog.some((line) => line.includes("returned a user without 'user_id'")),
        namelessLog.join('\n'),
      );
    });

    test("allow_all lets bob read and run alice's thread (the contrast)", async () => {
      const threadId = freshThread('alice-open');
      await makeThread(base.owned, threadId, tokens.alice);
      assertRefused(await call(base.owned, 'GET', `/v1/threads/${threadId}`, tokens.bob), 'Not authorized to read checkpointer', 'ownership');
      const thread = await threadOf(base.allowAll, threadId, tokens.bob);
      assert.equal(thread.user_id, 'alice');
      assert.equal((await messagesOf(base.allowAll, threadId, tokens.bob)).length, 2);
      assert.ok((await listedThreads(base.allowAll, tokens.bob)).includes(threadId));
      await makeThread(base.allowAll, threadId, tokens.bob);
      // The thread stays alice's.
      assert.equal((await threadOf(base.owned, threadId, tokens.alice)).user_id, 'alice');
      assert.equal((await threadOf(base.owned, threadId, tokens.alice)).metadata.message_count, 4);
    });

    test('RBAC: a viewer reads but may not invoke, an admin invokes, a user with no roles reads nothing; the ownership rule holds besides', async () => {
      const viewer = await signJwt(SECRET, { user_id: 'vera', roles: ['viewer'] });
      const admin = await signJwt(SECRET, { user_id: 'adam', roles: ['admin'] });
      const roleless = await signJwt(SECRET, { user_id: 'nora' });
      assertRefused(await call(base.rbac, 'POST', '/v1/graph/invoke', viewer, { messages: [userText('hello')] }), 'Missing required scope: graph:invoke', 'viewer invokes');
      assert.equal((await call(base.rbac, 'GET', '/v1/graph', viewer)).status, 200);
      assertRefused(await call(base.rbac, 'GET', '/v1/graph', roleless), 'Missing required scope: graph:read', 'no roles');
      const threadId = freshThread('adam');
      await makeThread(base.rbac, threadId, admin);
      assert.equal((await threadOf(base.rbac, threadId, admin)).user_id, 'adam');
      // The viewer may read threads, but not adam's.
      assertRefused(await call(base.rbac, 'GET', `/v1/threads/${threadId}`, viewer), 'Not authorized to read checkpointer', "viewer reads adam's thread");
      const hers = freshThread('alice-rbac');
      await makeThread(base.owned, hers, tokens.alice);
      assertRefused(await call(base.rbac, 'GET', `/v1/threads/${hers}`, admin), 'Not authorized to read checkpointer', "admin reads alice's thread");
    });

    test('a scopes claim limits an allow_all caller', async () => {
      const reader = await signJwt(SECRET, { user_id: 'bob', scopes: ['graph:read'] });
      assertRefused(
        await call(base.allowAll, 'POST', '/v1/graph/invoke', reader, { messages: [userText('hello')] }),
        'Missing required scope: graph:invoke',
        'scopes: graph:read invokes',
      );
      assert.equal((await call(base.allowAll, 'GET', '/v1/graph', reader)).status, 200);
      assertRefused(await call(base.allowAll, 'GET', '/v1/threads', reader), 'Missing required scope: checkpointer:read', 'scopes: graph:read lists threads');
    });
  });
}

ownershipSuite('SQLite', async () => {
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-ownership-'));
  return { store: await openThreadStore(join(folder, 'threads.sqlite')), cleanup: () => rmSync(folder, { recursive: true, force: true }) };
});

ownershipSuite('PostgreSQL', async () => ({ store: await openThreadStore(cluster.url), cleanup() {} }));

describe('10xgraph api processes (the built CLI) with "auth": "jwt"', () => {
  // The quick start's graph beside the configs, with a node_modules link so that its `import '10xgraph'` resolves.
  const folder = mkdtempSync(join(tmpdir(), '10xgraph-ownership-cli-'));
  copyFileSync(join(ROOT, 'examples', 'quickstart', 'graph.ts'), join(folder, 'graph.ts'));
  symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'), 'dir');
  const quickstart = JSON.parse(readFileSync(join(ROOT, 'examples', 'quickstart', '10xgraph.json'), 'utf8')) as Record<string, unknown>;
  const processes: ApiProcess[] = [];
  after(async () => {
    await Promise.all(processes.map((instance) => instance.stop()));
    rmSync(folder, { recursive: true, force: true });
  });

  /** Writes a config (the quick start's, with `extra`) and starts a process on it. */
  async function start(configName: string, extra: Record<string, unknown>, db: string, env: NodeJS.ProcessEnv): Promise<ApiProcess> {
    const config = join(folder, configName);
    writeFileSync(config, JSON.stringify({ ...quickstart, ...extra }, null, 2));
    const instance = new ApiProcess({ config, db, env: { ...JWT_ENV, ...env } });
    processes.push(instance);
    return instance.start();
  }

  test("two processes on one PostgreSQL: alice's thread made on A is refused to bob on B, and read by alice on B", async () => {
    const settings = { auth: 'jwt', authorization: 'ownership' };
    const [a, b] = await Promise.all([start('shared.json', settings, cluster.url, { MODE: '' }), start('shared.json', settings, cluster.url, { MODE: '' })]);
    for (const instance of [a!, b!]) {
      assert.match(instance.stdout, /Authentication: JWT \(HS256\)/);
      assert.match(instance.stdout, /Authorization: ownership\n/);
    }
    const threadId = 'cross-process-alice';
    await makeThread(a!.url, threadId, tokens.alice);
    assertRefused(await call(b!.url, 'GET', `/v1/threads/${threadId}`, tokens.bob), 'Not authorized to read checkpointer', 'bob reads on B');
    assertRefused(await call(b!.url, 'GET', `/v1/threads/${threadId}/messages`, tokens.bob), 'Not authorized to read checkpointer', 'bob reads messages on B');
    assertRefused(
      await call(b!.url, 'POST', '/v1/graph/invoke', tokens.bob, { messages: [userText('hello')], config: { thread_id: threadId } }),
      'Not authorized to invoke graph',
      'bob invokes on B',
    );
    assert.ok(!(await listedThreads(b!.url, tokens.bob)).includes(threadId));
    const thread = await threadOf(b!.url, threadId, tokens.alice);
    assert.equal(thread.user_id, 'alice');
    assert.equal(thread.metadata.message_count, 2);
    assert.ok((await listedThreads(b!.url, tokens.alice)).includes(threadId));
    // Without a token the processes answer 401.
    const anonymous = await call(b!.url, 'GET', `/v1/threads/${threadId}`, undefined);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'REVOKED_TOKEN');
  });

  test('MODE=production without "authorization" is ownership: bob is refused', async () => {
    const instance = await start('production.json', { auth: 'jwt' }, ':memory:', { MODE: 'production' });
    assert.match(instance.stdout, /Authorization: ownership \(the default of MODE=production; set "authorization" to choose\)/);
    await makeThread(instance.url, 'production-alice', tokens.alice);
    const refused = await call(instance.url, 'GET', '/v1/threads/production-alice', tokens.bob);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'HTTPException');
    assert.equal((await threadOf(instance.url, 'production-alice', tokens.alice)).user_id, 'alice');
  });

  test('without MODE, no "authorization" is allow all: bob reads alice\'s thread', async () => {
    const instance = await start('development.json', { auth: 'jwt' }, ':memory:', { MODE: '' });
    assert.match(instance.stdout, /Authorization: allow all \(the default outside MODE=production; set "authorization" to choose\)/);
    await makeThread(instance.url, 'development-alice', tokens.alice);
    const thread = await threadOf(instance.url, 'development-alice', tokens.bob);
    assert.equal(thread.user_id, 'alice');
    assert.equal(thread.metadata.message_count, 2);
  });
});

describe('a check and the act it allows are one: no other user slips in between', () => {
  test('a DELETE of an id nobody has deletes nothing that another user creates under it while the delete is checked', async () => {
    const folder = mkdtempSync(join(tmpdir(), '10xgraph-race-'));
    const store = await openThreadStore(join(folder, 'threads.sqlite'));
    // The store's read for bob's check waits until alice's run has made the thread.
    let releaseLoad!: () => void;
    const loadHeld = new Promise<void>((resolve) => (releaseLoad = resolve));
    let holdNext = true;
    let reachedHold!: () => void;
    const holding = new Promise<void>((resolve) => (reachedHold = resolve));
    const held: ThreadStore = Object.create(store) as ThreadStore;
    held.userOf = async (threadId: string) => {
      const userId = await store.userOf(threadId);
      if (threadId === 'race' && holdNext) {
        holdNext = false;
        reachedHold();
        await loadHeld;
      }
      return userId;
    };
    const api = createApiServer({ graph: buildTestGraph(), db: held, auth: jwtAuthenticator({ secret: SECRET, algorithm: 'HS256' }), authorization: ownershipBackend() });
    try {
      const base = await api.listen(0, '127.0.0.1');
      const deleting = call(base, 'DELETE', '/v1/threads/race', tokens.bob);
      // Bob's check has read that nobody owns the id; only then does alice make the thread.
      await holding;
      const made = await call(base, 'POST', '/v1/graph/invoke', tokens.alice, { messages: [userText('mine')], config: { thread_id: 'race' } });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      releaseLoad();
      const deleted = await deleting;
      assert.equal(deleted.status, 404, JSON.stringify(deleted.body));
      assert.equal(deleted.body.error.code, 'RESOURCE_NOT_FOUND');
      const kept = await call(base, 'GET', '/v1/threads/race', tokens.alice);
      assert.equal(kept.body.data.thread_data.thread.user_id, 'alice');
    } finally {
      await api.close();
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
