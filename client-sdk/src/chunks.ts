import { CLIENT_ERROR_CODES, TenxGraphError } from './errors';
import { STREAM_EVENTS, type Message, type StreamChunk } from './wire';

/**
 * Parses one line or frame of the stream into a chunk, or throws a TenxGraphError saying what was
 * wrong. Keys a server left out are filled with null and a numeric `message_id` is made text,
 * so readers meet one shape.
 */
export function parseChunk(text: string, where: string): StreamChunk {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TenxGraphError(0, CLIENT_ERROR_CODES.unexpectedResponse, `The ${where} sent a line that is not JSON (${preview(text)}); is the URL a 10xgraph server?`);
  }
  const chunk = value as Partial<StreamChunk> | null;
  if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk) || typeof chunk.event !== 'string' || !STREAM_EVENTS.has(chunk.event)) {
    throw new TenxGraphError(0, CLIENT_ERROR_CODES.unexpectedResponse, `The ${where} sent a chunk that is not a 10xgraph stream chunk (${preview(text)}).`);
  }
  const message = isObject(chunk.message) ? normaliseMessage(chunk.message as Message) : null;
  return {
    event: chunk.event,
    message,
    state: isObject(chunk.state) ? chunk.state : null,
    data: isObject(chunk.data) ? chunk.data : null,
    thread_id: typeof chunk.thread_id === 'string' ? chunk.thread_id : typeof chunk.thread_id === 'number' ? String(chunk.thread_id) : null,
    run_id: typeof chunk.run_id === 'string' ? chunk.run_id : null,
    metadata: isObject(chunk.metadata) ? chunk.metadata : null,
    timestamp: typeof chunk.timestamp === 'number' ? chunk.timestamp : 0,
  };
}

/** A message as an answer carried it, its id made text and its content a list. */
export function normaliseMessage(message: Message): Message {
  const id = (message as { message_id?: unknown }).message_id;
  const content = Array.isArray(message.content) ? message.content : [];
  if (typeof id === 'string' && content === message.content) return message;
  return { ...message, message_id: typeof id === 'string' ? id : id === undefined || id === null ? '' : String(id), content };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Shortens a text for an error message. */
export function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}

/**
 * Reads an NDJSON body line by line, to its end (the stream has no end marker: it ends with the
 * body). Decoding is streaming, so a line split across network packets, or a multi-byte
 * character split across them, arrives whole.
 */
export async function* readNdjson(body: ReadableStream<Uint8Array>, where: string): AsyncGenerator<StreamChunk> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await readPart(reader, where);
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const line = buffered.slice(start, newline).trim();
        if (line !== '') yield parseChunk(line, where);
        start = newline + 1;
        newline = buffered.indexOf('\n', start);
      }
      buffered = buffered.slice(start);
      if (done) break;
    }
    if (buffered.trim() !== '') yield parseChunk(buffered.trim(), where);
    finished = true;
  } finally {
    // Stopped early (the caller broke out, or an error): release the connection.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** One read of a body; a connection that breaks mid-body is a `NETWORK_ERROR` saying where. */
async function readPart(reader: ReadableStreamDefaultReader<Uint8Array>, where: string): Promise<ReadableStreamReadResult<Uint8Array>> {
  try {
    return await reader.read();
  } catch (error) {
    throw brokenBody(error, where);
  }
}

/** The error of a body whose connection broke before its end (fetch's `TypeError: terminated`, a reset). */
export function brokenBody(error: unknown, where: string): unknown {
  // An abort is the caller's own: it stays as it is.
  if (error instanceof Error && error.name === 'AbortError') return error;
  const cause = error instanceof Error ? ((error as { cause?: { message?: string } }).cause?.message ?? error.message) : String(error);
  return new TenxGraphError(0, CLIENT_ERROR_CODES.network, `The connection broke while the ${where} was coming (${cause}); the server may have stopped. Retry on the same thread.`);
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
