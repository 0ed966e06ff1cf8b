/**
 * The route table of `10xgraph api` (runtime/src/api/router.ts), driven over loopback on a real
 * server: an unknown path is 404, a wrong method 405 with `Allow` listing exactly the table's
 * methods of that path, a CORS preflight of every route with a body is answered with the methods
 * and headers the table gives (refused for an origin not allowed), and thread routes with bad ids
 * are refused as before the table (401 first, then 400 or 422, then 405).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createApiServer, type ApiServer, type RouteSummary } from '../../runtime/src/api/index';
import { buildTestGraph } from './serverHelpers';
import { CapturedLog, send, type Answer } from './rawSocket';

const TOKEN = 'route-s3cret';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const ALLOWED_ORIGIN = 'https://app.example.com';
const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD'];

/** A path the pattern matches, its `{id}` a valid thread id. */
function pathOf(pattern: string): string {
  return pattern.replace('{id}', 't-1');
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
      'DELETE /v1/threads/{id}',
      'GET /ping',
      'GET /v1/graph',
      'GET /v1/graph/tools',
      'GET /v1/graph/ws',
      'GET /v1/threads/{id}',
      'POST /v1/graph/invoke',
      'POST /v1/graph/stream',
      'POST /v1/threads/{id}/cancel',
    ]);
    assert.equal(new Set(declared).size, declared.length);
    assert.deepEqual(
      api.routes.filter((route) => route.body).map((route) => route.pattern),
      ['/v1/graph/invoke', '/v1/graph/stream'],
    );
  });

  test('an unknown path is 404 not_found, with the token or without', async () => {
    for (const path of ['/v1/nothing', '/v1/graph/', '/v1//graph', '/PING', '/v1/threads/', '/v1/threads/t-1/resume', '/v1/threads/t-1/cancel/x']) {
      for (const headers of [AUTH, {}]) {
        const answer = await send(port, 'GET', path, headers);
        assert.equal(answer.status, 404, `GET ${path}`);
        assert.equal(errorCode(answer), 'not_found', `GET ${path}`);
      }
    }
  });

  test("a wrong method is 405 with Allow listing exactly the table's methods of the path", async () => {
    for (const [pattern, methods] of methodsByPattern(api.routes)) {
      for (const method of METHODS.filter((m) => !methods.includes(m))) {
        const answer = await send(port, method, pathOf(pattern), AUTH);
        assert.equal(answer.status, 405, `${method} ${pattern}`);
        assert.equal(answer.headers.allow, methods.join(', '), `${method} ${pattern}`);
        if (method !== 'HEAD') assert.equal(errorCode(answer), 'method_not_allowed', `${method} ${pattern}`);
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
      assert.equal(errorCode(refused), 'origin_not_allowed');
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
        ['POST', `/v1/threads/${id}/cancel`],
        ['PUT', `/v1/threads/${id}`],
      ] as const) {
        const anonymous = await send(port, method, path);
        assert.equal(anonymous.status, 401, `${method} ${path} without the token`);
        assert.equal(anonymous.headers['www-authenticate'], 'Bearer realm="10xgraph"');
        const answer = await send(port, method, path, AUTH);
        assert.equal(answer.status, id === '%ZZ' ? 400 : 422, `${method} ${path}`);
        assert.equal(errorCode(answer), 'invalid_request', `${method} ${path}`);
      }
    }
    const missing = await send(port, 'GET', '/v1/threads/never-used', AUTH);
    assert.equal(missing.status, 404);
    assert.equal(errorCode(missing), 'thread_not_found');
  });

  test('a WebSocket upgrade goes only to the table routes that serve one', async () => {
    const plain = await send(port, 'GET', '/v1/graph/ws', AUTH);
    assert.equal(plain.status, 426);
    const elsewhere = await send(port, 'GET', '/v1/graph', {
      ...AUTH,
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    });
    assert.equal(elsewhere.status, 404);
    assert.equal(errorCode(elsewhere), 'not_found');
  });
});
