/**
 * The route table of `10xgraph api` (runtime/src/api/router.ts), driven over loopback on a real
 * server: an unknown path is 404, a wrong method 405 with `Allow` listing exactly the table's
 * methods of that path, a CORS preflight of every route with a body is answered with the methods
 * and headers the table gives (refused for an origin not allowed), thread routes with bad ids
 * are refused as before the table (401 first, then 400 or 422, then 405), and only the WebSocket
 * routes take an upgrade.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { createApiServer, type ApiServer, type RouteSummary } from '../../runtime/src/api/index';
import { buildTestGraph } from './serverHelpers';
import { CapturedLog, send, type Answer } from './rawSocket';

const TOKEN = 'route-s3cret';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const ALLOWED_ORIGIN = 'https://app.example.com';
const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD'];

/** A path the pattern matches, its `{id}` a valid thread id and its other parameters ids too. */
function pathOf(pattern: string): string {
  return pattern.replace('{id}', 't-1').replace('{message_id}', 'm-1').replace('{item_id}', 'i-1');
}

/** The table's methods of each pattern, in the table's order. */
function methodsByPattern(routes: readonly RouteSummary[]): Map<string, string[]> {
  const byPattern = new Map<string, string[]>();
  for (const route of routes) byPattern.set(route.pattern, [...(byPattern.get(route.pattern) ?? []), route.method]);
  return byPattern;
}

function errorCode(answer: Answer): string | undefined {
  return answer.body ? (JSON.parse(answer.body) as { error?: { code?: string } }).error?.code : undefined;
}

describe('the route table', () => {
  let api: ApiServer;
  let port: number;
  before(async () => {
    api = createApiServer({ graph: buildTestGraph(), token: TOKEN, corsOrigins: [ALLOWED_ORIGIN], allowedHosts: [], log: new CapturedLog() });
    port = Number(new URL(await api.listen(0, '127.0.0.1')).port);
  });
  after(() => api.close());

  test('the table holds the documented routes, one declaration each', () => {
    const declared = api.routes.map((route) => `${route.method} ${route.pattern}`);
    assert.deepEqual([...declared].sort(), [
      'DELETE /v1/store/memories/{item_id}',
      'DELETE /v1/threads/{id}',
      'DELETE /v1/threads/{id}/messages/{message_id}',
      'DELETE /v1/threads/{id}/state',
      'GET /ping',
      'GET /v1/config/multimodal',
      'GET /v1/files/{item_id}',
      'GET /v1/files/{item_id}/info',
      'GET /v1/files/{item_id}/url',
      'GET /v1/graph',
      'GET /v1/graph/live',
      'GET /v1/graph/tools',
      'GET /v1/graph/ws',
      'GET /v1/graph:StateSchema',
      'GET /v1/threads',
      'GET /v1/threads/{id}',
      'GET /v1/threads/{id}/messages',
      'GET /v1/threads/{id}/messages/{message_id}',
      'GET /v1/threads/{id}/state',
      'POST /v1/files/upload',
      'POST /v1/graph/fix',
      'POST /v1/graph/invoke',
      'POST /v1/graph/setup',
      'POST /v1/graph/stop',
      'POST /v1/graph/stream',
      'POST /v1/store/memories',
      'POST /v1/store/memories/forget',
      'POST /v1/store/memories/list',
      'POST /v1/store/memories/{item_id}',
      'POST /v1/store/search',
      'POST /v1/threads/{id}/messages',
      'PUT /v1/store/memories/{item_id}',
      'PUT /v1/threads/{id}/state',
    ]);
    assert.equal(new Set(declared).size, declared.length);
    // Every route that is not a read takes a body (the DELETE routes an optional `{config}`).
    assert.deepEqual(
      api.routes.filter((route) => !route.body).map((route) => route.method),
      api.routes.filter((route) => !route.body).map(() => 'GET'),
    );
  });

  test('an unknown path is 404 NOT_FOUND, with the token or without', async () => {
    for (const path of ['/v1/nothing', '/v1/graph/', '/v1//graph', '/PING', '/v1/threads/', '/v1/threads/t-1/resume', '/v1/threads/t-1/cancel', '/v1/threads/t-1/cancel/x']) {
      for (const headers of [AUTH, {}]) {
        const answer = await send(port, 'GET', path, headers);
        assert.equal(answer.status, 404, `GET ${path}`);
        assert.equal(errorCode(answer), 'NOT_FOUND', `GET ${path}`);
      }
    }
  });

  test("a wrong method is 405 with Allow listing exactly the table's methods of the path", async () => {
    for (const [pattern, methods] of methodsByPattern(api.routes)) {
      for (const method of METHODS.filter((m) => !methods.includes(m))) {
        const answer = await send(port, method, pathOf(pattern), AUTH);
        assert.equal(answer.status, 405, `${method} ${pattern}`);
        assert.equal(answer.headers.allow, methods.join(', '), `${method} ${pattern}`);
        if (method !== 'HEAD') assert.equal(errorCode(answer), 'METHOD_NOT_ALLOWED', `${method} ${pattern}`);
      }
    }
  });

  test('a preflight of every route with a body is answered with its methods and headers for an allowed origin, refused for another', async () => {
    const byPattern = methodsByPattern(api.routes);
    const withBody = api.routes.filter((route) => route.body);
    assert.ok(withBody.length > 0);
    for (const route of withBody) {
      const path = pathOf(route.pattern);
      const ask = { 'access-control-request-method': route.method, 'access-control-request-headers': 'authorization, content-type' };
      const answer = await send(port, 'OPTIONS', path, { origin: ALLOWED_ORIGIN, ...ask });
      assert.equal(answer.status, 204, `preflight ${route.pattern}`);
      assert.equal(answer.headers['access-control-allow-origin'], ALLOWED_ORIGIN);
      assert.equal(answer.headers['access-control-allow-methods'], byPattern.get(route.pattern)!.join(', '));
      assert.deepEqual(String(answer.headers['access-control-allow-headers']).toLowerCase().split(/, */).sort(), ['authorization', 'content-type']);
      const refused = await send(port, 'OPTIONS', path, { origin: 'https://evil.example', ...ask });
      assert.equal(refused.status, 403, `refused preflight ${route.pattern}`);
      assert.equal(errorCode(refused), 'ORIGIN_NOT_ALLOWED');
      assert.equal(refused.headers['access-control-allow-origin'], undefined);
      assert.equal(refused.headers['access-control-allow-methods'], undefined);
    }
  });

  test('a preflight of a route without a body allows its methods and the token header, not Content-Type', async () => {
    for (const [pattern, methods] of methodsByPattern(api.routes)) {
      if (api.routes.some((route) => route.pattern === pattern && route.body)) continue;
      const answer = await send(port, 'OPTIONS', pathOf(pattern), {
        origin: ALLOWED_ORIGIN,
        'access-control-request-method': methods[0]!,
        'access-control-request-headers': 'authorization',
      });
      assert.equal(answer.status, 204, `preflight ${pattern}`);
      assert.equal(answer.headers['access-control-allow-methods'], methods.join(', '));
      assert.equal(String(answer.headers['access-control-allow-headers']).toLowerCase(), 'authorization');
    }
    assert.equal((await send(port, 'OPTIONS', '/v1/nothing', { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'GET' })).status, 404);
  });

  test('thread routes with bad ids: 401 without the token, then 400 for bad percent-encoding and 422 for a bad id, before the method is judged', async () => {
    const badIds = ['a%20b', 'nul%00id', 'a%2Fb', 'caf%C3%A9', 'x'.repeat(129)];
    for (const id of [...badIds, '%ZZ']) {
      for (const [method, path] of [
        ['GET', `/v1/threads/${id}`],
        ['DELETE', `/v1/threads/${id}`],
        ['GET', `/v1/threads/${id}/state`],
        ['POST', `/v1/threads/${id}/messages`],
        ['DELETE', `/v1/threads/${id}/messages/m-1`],
        ['PUT', `/v1/threads/${id}`],
      ] as const) {
        const anonymous = await send(port, method, path);
        assert.equal(anonymous.status, 401, `${method} ${path} without the token`);
        assert.equal(anonymous.headers['www-authenticate'], 'Bearer realm="10xgraph"');
        const answer = await send(port, method, path, AUTH);
        assert.equal(answer.status, id === '%ZZ' ? 400 : 422, `${method} ${path}`);
        assert.equal(errorCode(answer), id === '%ZZ' ? 'BAD_REQUEST' : 'VALIDATION_ERROR', `${method} ${path}`);
      }
    }
    const missing = await send(port, 'GET', '/v1/threads/never-used/messages/m-1', AUTH);
    assert.equal(missing.status, 404);
    assert.equal(errorCode(missing), 'RESOURCE_NOT_FOUND');
  });

  test('a WebSocket upgrade goes only to the table routes that serve one', async () => {
    for (const path of ['/v1/graph/ws', '/v1/graph/live']) {
      const plain = await send(port, 'GET', path, AUTH);
      assert.equal(plain.status, 426, path);
      assert.equal(errorCode(plain), 'UPGRADE_REQUIRED', path);
    }
    // The realtime socket answers as the Python server's does for a graph that is not live.
    const live = new WebSocket(`ws://127.0.0.1:${port}/v1/graph/live`, ['10xgraph-bearer', TOKEN]);
    const frames: any[] = [];
    live.on('message', (data) => frames.push(JSON.parse(String(data))));
    const code = await new Promise<number>((resolve, reject) => {
      live.once('close', resolve);
      live.once('error', reject);
    });
    assert.equal(code, 1008);
    assert.deepEqual(
      frames.map((frame) => [frame.type, frame.code, frame.fatal]),
      [['error', 'not_live', true]],
    );
    const elsewhere = await send(port, 'GET', '/v1/graph', {
      ...AUTH,
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    });
    assert.equal(elsewhere.status, 404);
    assert.equal(errorCode(elsewhere), 'NOT_FOUND');
  });
});
