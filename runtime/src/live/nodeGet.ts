/**
 * A GET with node:http(s) in the shape of `fetch`, for the live-graph fetcher. Node's built-in
 * fetch keeps a request's socket open after an abort until the server lets go; this one
 * destroys the socket at once, so a server that never answers holds nothing of ours.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** GETs `url` with `init.headers`; aborting `init.signal` destroys the request and its socket. */
export function nodeGet(url: URL | string, init: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
  const target = typeof url === 'string' ? new URL(url) : url;
  const signal = init.signal;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, { method: 'GET', headers: init.headers, agent: false }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (Array.isArray(value)) for (const v of value) headers.append(name, v);
        else if (value !== undefined) headers.set(name, value);
      }
      const noBody = status === 204 || status === 205 || status === 304;
      if (noBody) res.resume();
      try {
        resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage ?? '', headers }));
      } catch (error) {
        req.destroy();
        reject(error);
      }
    });
    const onAbort = () => {
      req.destroy();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (error) => reject(Object.assign(new Error(error.message), { cause: error })));
    req.on('close', () => signal?.removeEventListener('abort', onAbort));
    req.end();
  });
}
