/**
 * The one table of the fields of `10xgraph.json` outside `remote_tools` (docs/spec.md §1): what
 * each holds, how the 10xGraph server reads it, its default, its allowed values and words for
 * people. The settings rules judge values by it, hover and completion show it, and
 * `schemas/10xgraph.schema.json` is built from it (`npm run schema`); no reader keeps a list of
 * its own.
 */
import type { ProblemCode } from './types';

/**
 * How the server reads a value:
 * - `section`: an object of the fields in `fields` (others are unknown keys);
 * - `bool`: a boolean, or one of the words 1/true/yes/on/0/false/no/off in any case;
 * - `strict-bool`: a boolean only; `truthy`: any value, read as Python's `bool()` reads it;
 * - `int`: what Python's `int()` takes (an integer, a number it truncates, a numeric string, a boolean);
 * - `limit`: `null`, `0` or `false` for no limit, else as `int`;
 * - `strict-int` / `number`: a JSON integer / any JSON number, not a boolean;
 * - `string`, `string-list`, `list`: a string; a list of strings; a list of anything;
 * - `enum`: one of `values`, compared exactly (or after lower-casing, with `lowercase`);
 * - `import-path`: a `module.path:attribute` string;
 * - `networks`: a list of IP addresses or networks;
 * - `redis`: a Redis URL string (with `$VAR` expanded) or `{url, prefix}`; anything empty means none;
 * - `auth`, `authorization`: their own forms (the `auth-invalid` and authorization rules);
 * - `any`: not judged by the settings rules (`agent` and `remote_tools` have rules of their own).
 */
export type SettingType =
  | 'section'
  | 'bool'
  | 'strict-bool'
  | 'truthy'
  | 'int'
  | 'limit'
  | 'strict-int'
  | 'number'
  | 'string'
  | 'string-list'
  | 'list'
  | 'enum'
  | 'import-path'
  | 'networks'
  | 'redis'
  | 'auth'
  | 'authorization'
  | 'any';

/**
 * When the server judges a value: `start`, while it starts (a value it refuses stops it: an
 * error); `later`, after it started or in a CLI command only (a value it refuses breaks that use
 * alone: the warning `setting-invalid`).
 */
export type SettingStage = 'start' | 'later';

/** One field of the file. */
export interface SettingSpec {
  type: SettingType;
  /** A short name for people, as 10xGraph's own config editor labels it. */
  label: string;
  /** A paragraph of Markdown: what it does and how the server reads it. */
  help: string;
  /** The value the server assumes when the field is absent, when there is one. */
  default?: unknown;
  /** The allowed values of an `enum` (also offered by completion for other types). */
  values?: readonly string[];
  /** An `enum` compared after lower-casing (the server lower-cases it first). */
  lowercase?: boolean;
  /** Bounds of a number, after the server's conversion. */
  min?: number;
  max?: number;
  /** `null` means "not set" (otherwise `null` is judged as a value, as the server does). */
  nullable?: boolean;
  /** Empty values (`""`, `false`, `0`, `[]`, `{}`) mean "not set", as Python's truthiness reads them. */
  emptyIsUnset?: boolean;
  stage: SettingStage;
  /** What reads the field when it is judged `later`, for messages ("every WebSocket handshake"). */
  readBy?: string;
  /** What that reader does with a value it cannot take (default "refuses it"). */
  onRefusal?: string;
  /** Never read by the server at all (`setting-not-applied` says so; its value is not judged). */
  unread?: boolean;
  /** The fields of a `section`. */
  fields?: Readonly<Record<string, SettingSpec>>;
  /** Rules other than the settings rules that judge this field, for hover. */
  rules?: readonly ProblemCode[];
  /** A completion snippet for the value, when the default is not a good one. */
  snippet?: string;
}

const BOOL_WORDS = 'a boolean (`true`/`false`, or one of the strings `"1"`, `"true"`, `"yes"`, `"on"`, `"0"`, `"false"`, `"no"`, `"off"` in any case)';
const INT_WORDS = 'an integer (a number is truncated, a numeric string such as `"100"` is read as its number)';

const RATE_LIMIT: Record<string, SettingSpec> = {
  enabled: {
    type: 'bool',
    label: 'Enabled',
    default: true,
    stage: 'start',
    help: `Whether limits are enforced; ${BOOL_WORDS}. Off keeps the settings without enforcing them, and they are still checked at start-up.`,
  },
  requests: { type: 'int', label: 'Requests per window', default: 100, min: 1, stage: 'start', help: `How many requests one key may make per window: ${INT_WORDS}, at least 1.` },
  window: { type: 'int', label: 'Window (seconds)', default: 60, min: 1, stage: 'start', help: `The length of the sliding window in seconds: ${INT_WORDS}, at least 1.` },
  by: {
    type: 'enum',
    label: 'Limit by',
    default: 'ip',
    values: ['ip', 'user', 'global'],
    stage: 'start',
    help: 'What a limit counts per: the client IP (`ip`), the authenticated user (`user`), or all requests together (`global`). Compared exactly: `"IP"` is refused.',
  },
  backend: {
    type: 'enum',
    label: 'Backend',
    default: 'memory',
    values: ['memory', 'redis', 'custom'],
    stage: 'start',
    help: 'Where counts are kept: `memory` counts per process (with N workers the real limit is N × requests), `redis` shares them (set `redis`), `custom` takes a `BaseRateLimitBackend` bound in the InjectQ container.',
  },
  redis: {
    type: 'redis',
    label: 'Redis',
    stage: 'start',
    help: 'The Redis of the `redis` backend: a URL string, or `{"url", "prefix"}`. `$VAR` and `${VAR}` in the URL are read from the environment (after `env` is loaded); a value that starts with `$` or holds `${` and names no variable that is set stops the server.',
    fields: {
      url: {
        type: 'string',
        label: 'Redis URL',
        nullable: true,
        emptyIsUnset: true,
        stage: 'start',
        help: 'The Redis URL, e.g. `"${REDIS_URL}"` or `"redis://localhost:6379/0"`; `$VAR` and `${VAR}` are expanded.',
      },
      prefix: { type: 'any', label: 'Redis key prefix', default: '10xgraph:rate-limit', stage: 'start', help: 'The prefix of the keys the limiter writes.' },
    },
  },
  exclude_paths: { type: 'list', label: 'Excluded paths', default: [], stage: 'start', help: 'Request paths that are never limited, e.g. `["/ping", "/docs"]`.' },
  trusted_proxy_headers: {
    type: 'bool',
    label: 'Trust X-Forwarded-For',
    default: false,
    stage: 'start',
    help: `Whether the client IP is read from \`X-Forwarded-For\`; ${BOOL_WORDS}. Only behind a proxy you control.`,
  },
  trusted_proxy_hops: {
    type: 'int',
    label: 'Trusted proxy hops',
    default: 1,
    min: 1,
    stage: 'start',
    help: `How many proxies of your own append to \`X-Forwarded-For\` (entries counted from the right): ${INT_WORDS}, at least 1.`,
  },
  trusted_proxies: {
    type: 'networks',
    label: 'Trusted proxy networks',
    default: [],
    stage: 'start',
    help: 'The IP addresses or networks (`10.0.0.0/8`) your proxies connect from; `X-Forwarded-For` from anyone else is ignored.',
  },
  fail_open: {
    type: 'bool',
    label: 'Fail open',
    default: true,
    stage: 'start',
    help: `Whether requests are allowed when the backend fails (\`false\` denies them); ${BOOL_WORDS}.`,
  },
};

const WEBSOCKET_READ = 'every WebSocket handshake';

const WEBSOCKET: Record<string, SettingSpec> = {
  max_connections: {
    type: 'limit',
    label: 'Max connections',
    default: 1000,
    min: 0,
    stage: 'later',
    readBy: WEBSOCKET_READ,
    help: `The most WebSocket connections one server process accepts: ${INT_WORDS}, not negative; \`0\` or \`null\` means no limit.`,
  },
  max_connections_per_user: {
    type: 'limit',
    label: 'Max connections per user',
    default: 10,
    min: 0,
    stage: 'later',
    readBy: WEBSOCKET_READ,
    help: `The most of those one user may hold: ${INT_WORDS}, not negative; \`0\` or \`null\` means no limit.`,
  },
  realtime_models: {
    type: 'string-list',
    label: 'Realtime models clients may pick',
    default: [],
    nullable: true,
    stage: 'later',
    readBy: WEBSOCKET_READ,
    help: "The models a `/v1/graph/live` client may ask for; any other request uses the agent's own model. Empty: clients cannot choose.",
  },
};

const AG_UI: Record<string, SettingSpec> = {
  enabled: {
    type: 'bool',
    label: 'Enabled',
    default: false,
    stage: 'start',
    help: `Whether \`POST /v1/ag-ui\` is served (for AG-UI clients such as CopilotKit; needs the server's \`ag-ui\` extra); ${BOOL_WORDS}.`,
  },
  allow_client_tools: {
    type: 'bool',
    label: 'Allow client tools',
    default: true,
    stage: 'start',
    help: `Whether the tools an AG-UI client sends with a run are offered to the model for that run (\`false\`: only \`remote_tools\`); ${BOOL_WORDS}.`,
  },
};

const TRACE_ENABLED = 'Read as Python reads any value as a truth value: a non-empty string, even `"false"`, turns it on. Write `true` or `false`.';

const OBSERVABILITY: Record<string, SettingSpec> = {
  level: {
    type: 'enum',
    label: 'Level',
    default: 'standard',
    values: ['spans', 'standard', 'full'],
    lowercase: true,
    stage: 'later',
    readBy: 'the tracing set-up',
    onRefusal: 'falls back to "standard" (with a warning)',
    help: 'How much a trace records: `spans`, `standard`, or `full` (prompts and tool input and output, which may hold personal data).',
  },
  logfire: {
    type: 'section',
    label: 'Logfire',
    nullable: true,
    emptyIsUnset: true,
    stage: 'start',
    help: 'Tracing to Logfire. Its token stays in the environment (`LOGFIRE_TOKEN`), never in this file.',
    fields: {
      enabled: { type: 'truthy', label: 'Logfire', default: false, stage: 'later', readBy: 'the tracing set-up', help: `Whether runs are traced to Logfire. ${TRACE_ENABLED}` },
      service_name: { type: 'string', label: 'Logfire service name', nullable: true, stage: 'later', readBy: 'the tracing set-up', help: 'The service name traces carry.' },
      send_to_logfire: { type: 'truthy', label: 'Send to Logfire', default: true, stage: 'later', readBy: 'the tracing set-up', help: 'Whether spans are sent to Logfire.' },
      console: { type: 'truthy', label: 'Print spans to console', default: false, stage: 'later', readBy: 'the tracing set-up', help: 'Whether spans are also printed.' },
    },
  },
  langsmith: {
    type: 'section',
    label: 'LangSmith',
    nullable: true,
    emptyIsUnset: true,
    stage: 'start',
    help: 'Tracing to LangSmith. Its key stays in the environment (`LANGSMITH_API_KEY`), never in this file.',
    fields: {
      enabled: { type: 'truthy', label: 'LangSmith', default: false, stage: 'later', readBy: 'the tracing set-up', help: `Whether runs are traced to LangSmith. ${TRACE_ENABLED}` },
      project: { type: 'string', label: 'LangSmith project', nullable: true, stage: 'later', readBy: 'the tracing set-up', help: 'The LangSmith project traces go to.' },
      endpoint: {
        type: 'string',
        label: 'LangSmith endpoint',
        nullable: true,
        stage: 'later',
        readBy: 'the tracing set-up',
        help: 'The OTLP endpoint, by default `https://api.smith.langchain.com/otel`.',
      },
    },
  },
};

const TEST_READ = '`10xgraph test`';
const EVAL_READ = '`10xgraph eval`';

const TEST: Record<string, SettingSpec> = {
  path: { type: 'string', label: 'Tests path', stage: 'later', readBy: TEST_READ, help: 'Where `10xgraph test` looks for tests (pytest finds them itself when absent).' },
  coverage: { type: 'strict-bool', label: 'Coverage', default: false, stage: 'later', readBy: TEST_READ, help: 'Whether `10xgraph test` measures coverage: `true` or `false`.' },
  coverage_threshold: {
    type: 'strict-int',
    label: 'Coverage threshold (%)',
    min: 0,
    max: 100,
    nullable: true,
    stage: 'later',
    readBy: TEST_READ,
    help: 'The coverage below which `10xgraph test` fails: a whole number from 0 to 100, used when `coverage` is on.',
  },
};

const EVALUATION: Record<string, SettingSpec> = {
  directory: { type: 'string', label: 'Eval directory', default: 'evals', stage: 'later', readBy: EVAL_READ, help: 'Where `10xgraph eval` finds its evaluations.' },
  output_dir: { type: 'string', label: 'Report directory', default: 'eval_reports', stage: 'later', readBy: EVAL_READ, help: 'Where `10xgraph eval` writes its reports.' },
  threshold: {
    type: 'number',
    label: 'Pass threshold',
    min: 0,
    max: 1,
    nullable: true,
    stage: 'later',
    readBy: EVAL_READ,
    help: 'The pass rate below which `10xgraph eval` fails: a number from 0 to 1.',
  },
  parallel: {
    type: 'strict-bool',
    label: 'Run in parallel',
    default: false,
    stage: 'later',
    readBy: EVAL_READ,
    help: 'Whether `10xgraph eval` runs cases in parallel: `true` or `false`.',
  },
  max_concurrency: {
    type: 'strict-int',
    label: 'Max concurrency',
    default: 4,
    min: 1,
    nullable: true,
    stage: 'later',
    readBy: EVAL_READ,
    help: 'How many cases `10xgraph eval` runs at once when `parallel` is on: a whole number, at least 1.',
  },
  timestamp_files: { type: 'any', label: 'Timestamp report files', default: true, stage: 'later', help: 'Named by the docs; `10xgraph eval` always timestamps its reports.' },
};

/** The fields of an RBAC `authorization` object. */
export const RBAC_FIELDS: Readonly<Record<string, SettingSpec>> = {
  backend: {
    type: 'any',
    label: 'Backend',
    values: ['rbac', 'role_based', 'roles'],
    stage: 'start',
    help: 'The built-in role-based backend: `rbac` (or `role_based`, `roles`). `type` is read when `backend` is absent.',
  },
  type: { type: 'any', label: 'Backend', values: ['rbac', 'role_based', 'roles'], stage: 'start', help: 'Another name of `backend`.' },
  roles: { type: 'any', label: 'Roles', stage: 'start', help: 'Role name → list of scopes (`"*"` is every scope), e.g. `{"admin": ["*"], "viewer": ["graph:read"]}`.' },
  role_scopes: { type: 'any', label: 'Roles', stage: 'start', help: 'Another name of `roles`, read when `roles` is absent.' },
  default_scopes: { type: 'string-list', label: 'Default scopes', default: [], nullable: true, stage: 'start', help: 'The scopes every authenticated user has.' },
  isolation: {
    type: 'enum',
    label: 'Isolation',
    default: 'owner',
    values: ['owner', 'none'],
    stage: 'later',
    readBy: 'the authorization check',
    onRefusal: 'reads it as "owner"',
    help: 'Whether users see only their own threads (`owner`) or all (`none`).',
  },
};

/** The built-in `authorization` backends, by name (compared after trimming and lower-casing). */
export const BUILTIN_AUTHORIZATION: readonly string[] = ['ownership', 'allow_all', 'default', 'none'];

/** Every top-level field of the file, in the order a new file lists them. */
export const FILE_FIELDS: Readonly<Record<string, SettingSpec>> = {
  agent: {
    type: 'any',
    label: 'Agent graph',
    stage: 'start',
    rules: ['agent-missing', 'agent-invalid', 'agent-not-importable'],
    help: 'The compiled graph the server runs, as `module:attribute`. The Python server imports the dotted module path from the project folder (`graph.react:app` is `graph/react.py`); `10xgraph api` loads `graph.ts`, `.mts`, `.js` or `.mjs` beside this file (`.ts` compiled with esbuild).',
  },
  env: {
    type: 'string',
    label: 'Env file',
    nullable: true,
    emptyIsUnset: true,
    stage: 'start',
    rules: ['env-file-missing'],
    help: 'A dotenv file loaded before the agent module, relative to the folder of this file; a missing file is skipped. Variables already set in the environment are kept.',
  },
  auth: {
    type: 'auth',
    label: 'Authentication',
    stage: 'start',
    rules: ['auth-invalid', 'env-var-not-set'],
    values: ['jwt'],
    help: 'Who may call the API: absent or empty for none, `"jwt"` (needs `JWT_SECRET_KEY` and `JWT_ALGORITHM` in the environment or the `env` file), or `{"method": "custom", "path": "module:attribute"}` naming a `BaseAuth` (for `10xgraph api`, the export of a TypeScript or JavaScript module beside this file).',
    fields: {
      method: { type: 'any', label: 'Method', values: ['custom'], stage: 'start', help: '`custom` (for JWT write `"auth": "jwt"`).' },
      path: { type: 'import-path', label: 'Auth class', stage: 'start', help: 'The `BaseAuth` subclass or instance, as `module:attribute`.' },
    },
  },
  authorization: {
    type: 'authorization',
    label: 'Authorization',
    nullable: true,
    emptyIsUnset: true,
    stage: 'start',
    values: BUILTIN_AUTHORIZATION,
    rules: ['rbac-no-roles'],
    help: 'What an authenticated user may do: `"ownership"` (only their own threads), `"allow_all"` (also `"default"`, `"none"`), a `module:attribute` `AuthorizationBackend` (for `10xgraph api`, a TypeScript or JavaScript module beside this file), or an RBAC object `{"backend": "rbac", "roles": {...}}`. Absent: ownership in production (`MODE=production`), allow all otherwise. Without `auth` nothing is checked.',
    fields: RBAC_FIELDS,
  },
  rate_limit: {
    type: 'section',
    label: 'Rate limiting',
    nullable: true,
    stage: 'start',
    rules: ['rate-limit-per-process', 'rate-limit-backend-unbound', 'env-var-not-set'],
    help: 'Sliding-window request limits on every REST call. Absent or `null`: no limits; `{}` turns them on with the defaults. Every field is checked at start-up, even with `"enabled": false`.',
    snippet: '{\n\t"enabled": true,\n\t"requests": ${1:100},\n\t"window": ${2:60},\n\t"by": "${3|ip,user,global|}"\n}',
    fields: RATE_LIMIT,
  },
  websocket: {
    type: 'section',
    label: 'WebSocket',
    nullable: true,
    stage: 'later',
    readBy: WEBSOCKET_READ,
    help: 'Caps on concurrent WebSocket connections, per server process: 1000 in all and 10 per user unless set. Read on every WebSocket handshake, not at start-up: a value the server refuses makes every handshake fail.',
    snippet: '{\n\t"max_connections": ${1:1000},\n\t"max_connections_per_user": ${2:10}\n}',
    fields: WEBSOCKET,
  },
  ag_ui: {
    type: 'section',
    label: 'AG-UI',
    nullable: true,
    stage: 'start',
    help: 'The AG-UI protocol endpoint `POST /v1/ag-ui`, for clients such as CopilotKit. Absent or `null`: off.',
    snippet: '{\n\t"enabled": ${1|true,false|}\n}',
    fields: AG_UI,
  },
  observability: {
    type: 'section',
    label: 'Observability',
    nullable: true,
    emptyIsUnset: true,
    stage: 'start',
    rules: ['nothing-traced'],
    help: 'Tracing of graph runs to Logfire and/or LangSmith. Tokens stay in the environment (`LOGFIRE_TOKEN`, `LANGSMITH_API_KEY`).',
    snippet: '{\n\t"level": "${1|standard,spans,full|}",\n\t"logfire": { "enabled": ${2|true,false|} }\n}',
    fields: OBSERVABILITY,
  },
  injectq: {
    type: 'import-path',
    label: 'InjectQ container',
    nullable: true,
    emptyIsUnset: true,
    stage: 'start',
    rules: ['module-not-found'],
    help: 'The InjectQ container the server uses, as `module:attribute`, loaded at start-up.',
  },
  store: {
    type: 'import-path',
    label: 'Memory store',
    nullable: true,
    emptyIsUnset: true,
    stage: 'start',
    rules: ['module-not-found'],
    help: 'A `BaseStore` instance for long-term memory, as `module:attribute`, loaded at start-up.',
  },
  checkpointer: {
    type: 'import-path',
    label: 'Checkpointer',
    nullable: true,
    emptyIsUnset: true,
    stage: 'later',
    unread: true,
    rules: ['setting-not-applied', 'module-not-found'],
    help: 'Not applied by the server: pass the checkpointer to `graph.compile()` instead.',
  },
  thread_name_generator: {
    type: 'import-path',
    label: 'Thread name generator',
    nullable: true,
    emptyIsUnset: true,
    stage: 'start',
    rules: ['module-not-found'],
    help: 'A class or instance that names new threads, as `module:attribute`, loaded at start-up.',
  },
  redis: {
    type: 'string',
    label: 'Redis URL',
    nullable: true,
    emptyIsUnset: true,
    stage: 'later',
    readBy: 'the ownership cache',
    onRefusal: 'falls back to its in-process cache',
    rules: ['setting-not-applied'],
    help: 'The Redis shared by the ownership checks of `authorization`. Used as written: `$VAR` is not expanded (leave it out to use `REDIS_URL` from the environment).',
  },
  remote_tools: {
    type: 'any',
    label: 'Remote tools',
    default: [],
    stage: 'start',
    rules: ['remote-tools-not-list', 'tool-not-object', 'duplicate-name'],
    help: "Tools the model may call but the client runs: when the model calls one, the run pauses until the client sends the tool's result. Absent means none; `null` is refused.",
  },
  test: { type: 'section', label: 'Testing', nullable: true, stage: 'later', readBy: TEST_READ, help: 'Defaults of `10xgraph test`; the server does not read them.', fields: TEST },
  evaluation: {
    type: 'section',
    label: 'Evaluation',
    nullable: true,
    stage: 'later',
    readBy: EVAL_READ,
    help: 'Defaults of `10xgraph eval`; the server does not read them.',
    fields: EVALUATION,
  },
};

/** The spec of the field at `path` (keys from the root), when the table has one. */
export function settingAt(path: readonly (string | number)[]): SettingSpec | undefined {
  let fields: Readonly<Record<string, SettingSpec>> | undefined = FILE_FIELDS;
  let spec: SettingSpec | undefined;
  for (const key of path) {
    if (typeof key !== 'string' || !fields || !Object.prototype.hasOwnProperty.call(fields, key)) return undefined;
    spec = fields[key];
    fields = spec.fields;
  }
  return spec;
}

/** The dotted name of a field for messages: `rate_limit.by`. */
export function settingName(path: readonly string[]): string {
  return path.join('.');
}
