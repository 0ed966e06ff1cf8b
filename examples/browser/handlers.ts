/**
 * The handlers of the quick start's three remote tools, as a browser page runs them: the real
 * Geolocation API, the real asynchronous Clipboard API, and a SQLite database inside the page.
 * Each throws an Error whose message says what went wrong; the client sends that message to the
 * model as a failed result, and the conversation goes on.
 */
import type { ToolCallContext, ToolHandler } from '10xgraph-client';
import { MAX_QUERY_LENGTH, type NotesDatabase } from './notesDatabase';

/** The remote tools of examples/quickstart/10xgraph.json, in the order the page lists them. */
export const TOOL_NAMES = ['get_user_location', 'read_clipboard', 'search_local_database'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/** How long a position may take when the model gives no `timeout_ms`. */
const DEFAULT_LOCATION_TIMEOUT_MS = 10_000;
/** The longest wait for a position the page accepts, whatever the model asks. */
const MAX_LOCATION_TIMEOUT_MS = 60_000;

/** What `get_user_location` returns. */
export interface Location {
  latitude: number;
  longitude: number;
  /** The radius of uncertainty, in metres. */
  accuracy_m: number;
}

/**
 * `get_user_location`: `navigator.geolocation.getCurrentPosition`, honouring the model's
 * `timeout_ms` (bounded) and the call's abort signal. The browser asks the user for the
 * permission the first time; a refusal fails the call with a sentence the model can relay.
 */
export const getUserLocation: ToolHandler = (args, context: ToolCallContext) => {
  const geolocation = typeof navigator === 'undefined' ? undefined : navigator.geolocation;
  if (!geolocation) throw new Error('This browser has no Geolocation API, so the location cannot be read here.');
  const asked = args.timeout_ms;
  if (asked !== undefined && (typeof asked !== 'number' || !Number.isFinite(asked) || asked <= 0)) {
    throw new Error(`get_user_location's 'timeout_ms' must be a positive number of milliseconds, not ${JSON.stringify(asked)}.`);
  }
  const timeout = Math.min(asked ?? DEFAULT_LOCATION_TIMEOUT_MS, MAX_LOCATION_TIMEOUT_MS);
  return new Promise<Location>((resolve, reject) => {
    const onAbort = () => reject(new Error('get_user_location was cancelled before the browser gave a position.'));
    if (context.signal.aborted) return onAbort();
    context.signal.addEventListener('abort', onAbort, { once: true });
    geolocation.getCurrentPosition(
      (position) => {
        context.signal.removeEventListener('abort', onAbort);
        resolve({ latitude: position.coords.latitude, longitude: position.coords.longitude, accuracy_m: Math.round(position.coords.accuracy) });
      },
      (error) => {
        context.signal.removeEventListener('abort', onAbort);
        reject(new Error(describeGeolocationError(error, timeout)));
      },
      { timeout, maximumAge: 60_000, enableHighAccuracy: false },
    );
  });
};

function describeGeolocationError(error: GeolocationPositionError, timeout: number): string {
  switch (error.code) {
    case error.PERMISSION_DENIED:
      return `The user did not allow this page to read the location (geolocation permission denied${error.message ? `: ${error.message}` : ''}); they can allow it in the browser's site settings.`;
    case error.TIMEOUT:
      return `The browser gave no position within ${timeout} ms; try again with a longer timeout_ms.`;
    default:
      return `The browser could not determine the location (${error.message || 'position unavailable'}).`;
  }
}

/**
 * `read_clipboard`: `navigator.clipboard.readText()`. The browser asks the user for the
 * permission, and reads only while the page has the focus; its refusal (a `NotAllowedError`)
 * fails the call.
 */
export const readClipboard: ToolHandler = async () => {
  const clipboard = typeof navigator === 'undefined' ? undefined : navigator.clipboard;
  if (!clipboard || typeof clipboard.readText !== 'function') {
    throw new Error('This page cannot read the clipboard: the Clipboard API needs a secure context (https:// or http://localhost).');
  }
  try {
    return await clipboard.readText();
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`The browser refused to read the clipboard (${name}: ${message}); allow clipboard access for this page and keep it focused.`);
  }
};

/** `search_local_database`: a parameterised LIKE search of the page's SQLite notes. */
export function searchLocalDatabase(database: Promise<NotesDatabase>): ToolHandler {
  return async (args) => {
    const query = args.query;
    if (typeof query !== 'string' || query.trim() === '') {
      throw new Error(`search_local_database needs a non-empty 'query' string, not ${JSON.stringify(query ?? null)}.`);
    }
    if (query.length > MAX_QUERY_LENGTH) {
      throw new Error(`search_local_database's query is ${query.length} characters long; at most ${MAX_QUERY_LENGTH} are searched.`);
    }
    let notes: NotesDatabase;
    try {
      notes = await database;
    } catch (error) {
      throw new Error(`The page's SQLite database did not load (${error instanceof Error ? error.message : String(error)}), so it cannot be searched.`);
    }
    const matches = notes.find(query.trim());
    return { query: query.trim(), count: matches.length, matches };
  };
}

/** The handler of each tool. */
export function browserHandlers(database: Promise<NotesDatabase>): Record<ToolName, ToolHandler> {
  return { get_user_location: getUserLocation, read_clipboard: readClipboard, search_local_database: searchLocalDatabase(database) };
}
