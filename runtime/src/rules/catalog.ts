/** How bad a problem is: errors stop the server, warnings are logged, information is editor-only. */
export type Severity = 'error' | 'warning' | 'information';

/** What the documentation, hover and SARIF say of a rule. */
export interface RuleInfo {
  severity: Severity;
  /** One line: what the rule checks. */
  title: string;
}

/**
 * Every rule code with its severity and title (docs/spec.md §2), in the order problems at one
 * place are listed: the single list of codes. `ProblemCode` is derived from its keys, so a code
 * exists exactly when it has an entry here.
 */
export const RULES = {
  'invalid-json': { severity: 'error', title: 'The file is not strict JSON (syntax error, comment, trailing comma).' },
  'root-not-object': { severity: 'error', title: 'The root of the file is not an object.' },
  'agent-missing': { severity: 'error', title: 'The file has no `agent`.' },
  'agent-invalid': { severity: 'error', title: '`agent` is not a string `module:export` with both parts non-blank, naming a module inside the folder of the file.' },
  'agent-not-found': { severity: 'error', title: '`agent` names a module that is not beside the file, or an export its module does not have.' },
  'remote-tools-not-list': { severity: 'error', title: '`remote_tools` is present and not an array.' },
  'tool-not-object': { severity: 'error', title: 'An item of `remote_tools` is not an object.' },
  'unknown-field': {
    severity: 'error',
    title: 'A remote tool has a field other than `node` (or `node_name`), `name`, `description`, `parameters`, or both `node` and `node_name`.',
  },
  'missing-field': { severity: 'error', title: 'A remote tool lacks `node`, `name` or `description`.' },
  'not-a-string': { severity: 'error', title: '`node`, `name` or `description` is present but not a string.' },
  'blank-field': { severity: 'error', title: '`node`, `name` or `description` is empty or only white space (as Python trims it).' },
  'duplicate-name': { severity: 'error', title: 'A remote tool `name`, trimmed, is already used by an earlier tool.' },
  'parameters-not-object': { severity: 'error', title: '`parameters` is an array, a scalar or null.' },
  'parameters-type-not-object': { severity: 'error', title: '`parameters.type` is given and is not `"object"` (absent, the server fills it in).' },
  'properties-not-object': { severity: 'error', title: '`parameters.properties` is present and not an object.' },
  'required-not-string-list': { severity: 'error', title: '`parameters.required` is present and not a list of strings.' },
  'node-not-found': { severity: 'error', title: 'The graph has no node named `node`.' },
  'node-not-tool-node': { severity: 'error', title: '`node` names a node that is not a ToolNode.' },
  'name-conflicts-with-server-tool': { severity: 'error', title: 'The node already carries a server tool of that name.' },
  'duplicate-key': { severity: 'warning', title: 'A key appears twice in one object; only the last one counts.' },
  'required-not-in-properties': { severity: 'warning', title: 'A `required` parameter has no entry in `properties`.' },
  'invalid-tool-name': { severity: 'warning', title: '`name` does not match `^[A-Za-z0-9_-]{1,64}$`, the pattern model APIs accept.' },
  'invalid-property-schema': { severity: 'warning', title: 'A parameter schema is not valid JSON Schema.' },
  'vague-description': { severity: 'information', title: '`description` has fewer than three words.' },
  'tool-not-attached': { severity: 'information', title: 'The running server does not list this tool as a remote tool of its node.' },
  'setting-wrong-type': { severity: 'error', title: 'A setting the server reads at start-up has a value of a type it refuses.' },
  'setting-out-of-range': { severity: 'error', title: 'A number the server reads at start-up is outside what it accepts.' },
  'setting-unknown-value': { severity: 'error', title: 'A setting the server reads at start-up names a value it does not know.' },
  'invalid-import-path': { severity: 'error', title: 'An import path the server loads at start-up is not `module.path:attribute`.' },
  'invalid-network': { severity: 'error', title: 'An item of `rate_limit.trusted_proxies` is not an IP address or network.' },
  'auth-invalid': { severity: 'error', title: '`auth` is not empty, `"jwt"` or `{"method": "custom", "path"}`.' },
  'setting-invalid': { severity: 'warning', title: 'A setting read after start-up (or by a CLI command) has a value that use refuses or misreads.' },
  'unknown-key': { severity: 'warning', title: 'A key the server does not read, at the top level or in a settings object.' },
  'env-var-not-set': { severity: 'warning', title: 'The server needs an environment variable that the `env` file does not set.' },
  'env-file-missing': { severity: 'warning', title: 'The `env` file does not exist beside the config; the server skips it.' },
  'module-attribute-missing': {
    severity: 'error',
    title: 'A `module:attribute` the server imports at start-up names a Python module beside the config that binds no such name.',
  },
  'module-not-found': { severity: 'warning', title: 'The Python module of an import path is not beside the config.' },
  'setting-not-applied': { severity: 'warning', title: 'A setting the server does not apply as written (`checkpointer`, `$VAR` in the top-level `redis`).' },
  'rate-limit-per-process': { severity: 'warning', title: 'Rate limits use the `memory` backend, which counts per process.' },
  'rate-limit-backend-unbound': { severity: 'warning', title: 'The `redis` rate-limit backend has no URL, or the `custom` one no InjectQ container.' },
  'rbac-no-roles': { severity: 'warning', title: 'An RBAC `authorization` defines no roles.' },
  'nothing-traced': { severity: 'warning', title: '`observability` enables neither Logfire nor LangSmith.' },
  'agent-not-importable': { severity: 'information', title: '`agent` is a path the Python server cannot import (it takes `module.path:attribute`).' },
  'untrimmed-field': { severity: 'information', title: '`node`, `name` or `description` has white space around it, which the server trims.' },
  'raw-typescript-keyword': { severity: 'warning', title: 'A schema in `parameters` uses `tsType` or `tsEnumNames`, which `10xgraph types` refuses.' },
  'handler-missing': { severity: 'information', title: 'No source of the project registers a handler for a remote tool (`registerToolHandler` or `registerTool`).' },
  'handler-undeclared': { severity: 'information', title: 'A source registers a handler for a name no config of the project declares as a remote tool.' },
  'graph-not-read': { severity: 'information', title: 'The graph of the agent module cannot be read exactly from its source, so node names are not checked without a server.' },
  'internal-error': { severity: 'error', title: 'A rule failed while checking the file (a bug in the rule set).' },
} as const satisfies Readonly<Record<string, RuleInfo>>;

/** Every code the rule set can report (docs/spec.md §2), plus `internal-error` for a rule that threw: the keys of `RULES`. */
export type ProblemCode = keyof typeof RULES;

/** The anchor of a rule's section in `docs/rules.md`. */
export function ruleDocsAnchor(code: ProblemCode): string {
  return code;
}
