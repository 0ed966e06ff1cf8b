/**
 * The `10xgraph` settings section, normalised. Clients send anything (missing keys, wrong
 * types, dotted keys from a flat configuration); each setting goes through one small parser
 * that keeps a valid value and falls back to the default otherwise, so the rest of the server
 * only ever sees a complete, typed `Settings`.
 */
import { originOf, trimTrailingSlashes } from '10xgraph/live';

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
  /** The project index (sources and configs of the workspace). */
  project: ProjectSettings;
}

/** Settings of the project index. */
export interface ProjectSettings {
  /** Globs (relative to the workspace folder) of files and folders the index skips, besides node_modules and .gitignore. */
  exclude: string[];
}

/** The defaults of docs/spec.md §5. */
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  server: Object.freeze({ url: 'http://localhost:8000', enabled: true, timeoutMs: 2000, refreshSeconds: 30 }),
  // `agentflow.json` is the config's former name, which the 10xGraph server still reads.
  files: Object.freeze(['**/10xgraph.json', '**/agentflow.json']) as string[],
  project: Object.freeze({ exclude: Object.freeze([]) as unknown as string[] }),
});

type Parser<T> = (value: unknown, fallback: T) => T;

const parseUrl: Parser<string> = (value, fallback) => {
  if (typeof value !== 'string') return fallback;
  const trimmed = trimTrailingSlashes(value.trim());
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

const parseToken: Parser<string | undefined> = (value, fallback) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback);

const parseGlobs: Parser<string[]> = (value, fallback) => {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) return fallback;
  const globs = list.filter((g): g is string => typeof g === 'string' && g.trim() !== '').map((g) => g.trim());
  return globs.length > 0 ? globs : fallback;
};

function sameOrigin(a: string, b: string): boolean {
  const origin = originOf(a);
  return origin !== undefined && origin === originOf(b);
}

/**
 * `settings` with the token of the environment (`TENXGRAPH_TOKEN`) bound to their server's
 * origin, when they carry none of their own. The environment names no server, so its token
 * belongs to the one the initialisation settings name (default `http://localhost:8000`), and
 * through `parseSettings` only folders of that same origin inherit it.
 */
export function withEnvironmentToken(settings: Settings, token: string | undefined): Settings {
  const value = parseToken(token, undefined);
  if (settings.server.token !== undefined || value === undefined) return settings;
  return { ...settings, server: { ...settings.server, token: value } };
}

/**
 * The raw `section` as a client forwards it, carrying `token` bound to `url`: any token the
 * section held is dropped (a settings file cannot say which server its token was meant for),
 * and when `token` is given the section names `url` itself, so the server pairs the token with
 * exactly the URL it was looked up for, whatever else the section says.
 */
export function sectionWithToken(section: unknown, url: string, token: string | undefined): Record<string, unknown> {
  const copy: Record<string, unknown> = isRecord(section) ? { ...section } : {};
  delete copy['server.token'];
  delete copy['server.url'];
  const server: Record<string, unknown> = isRecord(copy.server) ? { ...copy.server } : {};
  delete server.token;
  const flatUrl = isRecord(section) ? section['server.url'] : undefined;
  // A flat `server.url` key wins over a nested one, as in `parseSettings`.
  if (flatUrl !== undefined) server.url = flatUrl;
  if (token !== undefined) {
    server.url = url;
    server.token = token;
  }
  copy.server = server;
  return copy;
}

// Unlike `files`, an empty list is a valid exclusion list.
const parseExclude: Parser<string[]> = (value, fallback) => {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) return fallback;
  return list.filter((g): g is string => typeof g === 'string' && g.trim() !== '').map((g) => g.trim());
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
  const url = parseUrl(pick(section, 'server.url'), base.server.url);
  // A token belongs to the origin of the URL it was given with. A section without a token of
  // its own inherits the base's only when both name the same origin (scheme, host and port):
  // a folder that points at another server never gets the token of the initialisation options.
  const inherited = sameOrigin(url, base.server.url) ? base.server.token : undefined;
  return {
    server: {
      url,
      enabled: parseBoolean(pick(section, 'server.enabled'), base.server.enabled),
      timeoutMs: parseTimeout(pick(section, 'server.timeoutMs'), base.server.timeoutMs),
      refreshSeconds: parseRefresh(pick(section, 'server.refreshSeconds'), base.server.refreshSeconds),
      token: parseToken(pick(section, 'server.token'), inherited),
    },
    files: parseGlobs(pick(section, 'files'), base.files),
    project: { exclude: parseExclude(pick(section, 'project.exclude'), base.project.exclude) },
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

/** Reads `initializationOptions.statusNotification`: true only when the client says it shows `10xgraph/status` itself. */
export function statusNotificationFromInitializationOptions(options: unknown): boolean {
  return isRecord(options) && options.statusNotification === true;
}

/** Reads `initializationOptions.storagePath` when it is a non-blank string. */
export function storagePathFromInitializationOptions(options: unknown): string | undefined {
  return isRecord(options) && typeof options.storagePath === 'string' && options.storagePath.trim() !== '' ? options.storagePath : undefined;
}
