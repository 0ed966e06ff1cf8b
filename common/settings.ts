/**
 * The `10xgraph` settings section, normalised. Clients send anything (missing keys, wrong
 * types, dotted keys from a flat configuration); each setting goes through one small parser
 * that keeps a valid value and falls back to the default otherwise, so the rest of the server
 * only ever sees a complete, typed `Settings`.
 */

/** Settings of the live graph. */
export interface ServerSettings {
  url: string;
  enabled: boolean;
  timeoutMs: number;
  refreshSeconds: number;
  token?: string;
}

/** The complete settings of one scope (a document or a workspace folder). */
export interface Settings {
  server: ServerSettings;
  files: string[];
}

/** The defaults of docs/spec.md §5. */
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  server: Object.freeze({ url: 'http://localhost:8000', enabled: true, timeoutMs: 2000, refreshSeconds: 30 }),
  files: Object.freeze(['**/10xgraph.json']) as string[],
});

type Parser<T> = (value: unknown, fallback: T) => T;

const parseUrl: Parser<string> = (value, fallback) => {
  if (typeof value !== 'string') return fallback;
  const trimmed = value.trim().replace(/\/+$/, '');
  try {
    const url = new URL(trimmed);
    return url.protocol === 'http:' || url.protocol === 'https:' ? trimmed : fallback;
  } catch {
    return fallback;
  }
};

const parseBoolean: Parser<boolean> = (value, fallback) => {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return fallback;
};

/** A number parser bounded to [min, max]; numeric strings count, as some clients send them. */
function boundedNumber(min: number, max: number): Parser<number> {
  return (value, fallback) => {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isFinite(n)) return fallback;
    return Math.min(max, Math.max(min, n));
  };
}

const parseTimeout = boundedNumber(50, 120_000);
// A timer below five seconds would poll a server harder than any person needs; 0 turns it off.
const parseRefresh: Parser<number> = (value, fallback) => {
  const n = boundedNumber(0, 86_400)(value, fallback);
  return n === 0 ? 0 : Math.max(5, n);
};

const parseToken: Parser<string | undefined> = (value, fallback) =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;

const parseGlobs: Parser<string[]> = (value, fallback) => {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) return fallback;
  const globs = list.filter((g): g is string => typeof g === 'string' && g.trim() !== '').map((g) => g.trim());
  return globs.length > 0 ? globs : fallback;
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads `a.b` from a nested object, or from a flat one keyed `"a.b"`. */
function pick(raw: Record<string, unknown>, path: string): unknown {
  if (path in raw) return raw[path];
  const [head, ...rest] = path.split('.');
  const inner = raw[head];
  if (rest.length === 0) return inner;
  return isRecord(inner) ? pick(inner, rest.join('.')) : undefined;
}

/**
 * Normalises one raw `10xgraph` section (whatever a client sent, possibly nothing) into
 * complete settings, falling back per field to `base` (the defaults unless given).
 */
export function parseSettings(raw: unknown, base: Settings = DEFAULT_SETTINGS): Settings {
  const section = isRecord(raw) ? raw : {};
  return {
    server: {
      url: parseUrl(pick(section, 'server.url'), base.server.url),
      enabled: parseBoolean(pick(section, 'server.enabled'), base.server.enabled),
      timeoutMs: parseTimeout(pick(section, 'server.timeoutMs'), base.server.timeoutMs),
      refreshSeconds: parseRefresh(pick(section, 'server.refreshSeconds'), base.server.refreshSeconds),
      token: parseToken(pick(section, 'server.token'), base.server.token),
    },
    files: parseGlobs(pick(section, 'files'), base.files),
  };
}

/**
 * Finds the `10xgraph` section in `initializationOptions`: `settings` shaped like the section
 * (what the extension sends), or a `10xgraph` key (what editors that pass their whole
 * language-server config send, Helix among them).
 */
export function sectionFromInitializationOptions(options: unknown): unknown {
  if (!isRecord(options)) return undefined;
  if (isRecord(options.settings)) {
    const settings = options.settings;
    return isRecord(settings['10xgraph']) ? settings['10xgraph'] : settings;
  }
  if (isRecord(options['10xgraph'])) return options['10xgraph'];
  return undefined;
}

/** Reads `initializationOptions.trusted`; anything but an explicit `false` means trusted. */
export function trustedFromInitializationOptions(options: unknown): boolean {
  return !(isRecord(options) && options.trusted === false);
}

/** Reads `initializationOptions.storagePath` when it is a non-blank string. */
export function storagePathFromInitializationOptions(options: unknown): string | undefined {
  return isRecord(options) && typeof options.storagePath === 'string' && options.storagePath.trim() !== ''
    ? options.storagePath
    : undefined;
}
