import { CLIENT_ERROR_CODES, TenxGraphError } from './errors';
import { STREAM_EVENTS, type StreamChunk } from './wire';

/** Parses one line or frame of the stream into a chunk, or throws a TenxGraphError saying what was wrong. */
export function parseChunk(text: string, where: string): StreamChunk {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TenxGraphError(0, CLIENT_ERROR_CODES.unexpectedResponse, `The ${where} sent a line that is not JSON (${preview(text)}); is the URL a 10xgraph server?`);
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as { event?: unknown }).event !== 'string' ||
    !STREAM_EVENTS.has((value as { event: StreamChunk['event'] }).event) ||
    typeof (value as { data?: unknown }).data !== 'object'
  ) {
    throw new TenxGraphError(0, CLIENT_ERROR_CODES.unexpectedResponse, `The ${where} sent a chunk that is not a 10xgraph stream chunk (${preview(text)}).`);
  }
  return value as StreamChunk;
}

/** Shortens a text for an error message. */
export function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}

/** How long a body may take to end after its `end` chunk before it is cancelled. */
const END_OF_BODY_MS = 1_000;

/**
 * Reads an NDJSON body line by line. Decoding is streaming, so a line split across network
 * packets, or a multi-byte character split across them, arrives whole.
 */
export async function* readNdjson(body: ReadableStream<Uint8Array>, where: string): AsyncGenerator<StreamChunk> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let finished = false;
  let endSeen = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== '') {
          const chunk = parseChunk(line, where);
          endSeen ||= chunk.event === 'end';
          yield chunk;
        }
        newline = buffered.indexOf('\n');
      }
      if (done) break;
    }
    if (buffered.trim() !== '') yield parseChunk(buffered.trim(), where);
    finished = true;
  } finally {
    // After the end chunk the server ends the body at once: reading it to its end, rather than
    // cancelling it, keeps browsers from reporting every stream as aborted (net::ERR_ABORTED).
    if (!finished && endSeen) finished = await readToEnd(reader, END_OF_BODY_MS);
    // Stopped early (the caller broke out, an error, or a body that does not end): release the connection.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** Reads and drops what is left of a body; true when it ended within `ms`. */
async function readToEnd(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const drained = (async () => {
    for (;;) if ((await reader.read()).done) return true;
  })().catch(() => false);
  try {
    return await Promise.race([drained, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A queue that turns pushed chunks into an async iterator: the WebSocket's message events push,
 * the stream's consumer pulls. A failure ends the iteration by throwing.
 */
export class ChunkQueue implements AsyncIterable<StreamChunk> {
  private readonly items: StreamChunk[] = [];
  private waiting?: { resolve: (result: IteratorResult<StreamChunk>) => void; reject: (error: unknown) => void };
  private failure?: unknown;
  private closed = false;

  /** Adds a chunk. */
  push(chunk: StreamChunk): void {
    if (this.closed) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value: chunk, done: false });
    } else {
      this.items.push(chunk);
    }
  }

  /** Ends the iteration with an error once the buffered chunks are read. */
  fail(error: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.failure = error;
    if (this.waiting) {
      const { reject } = this.waiting;
      this.waiting = undefined;
      reject(error);
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamChunk> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.closed) return Promise.reject(this.failure);
        return new Promise((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
      },
    };
  }
}
