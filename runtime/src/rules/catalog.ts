import type { ProblemCode, Severity } from './types';

/** What the documentation, hover and SARIF say of a rule. */
export interface RuleInfo {
  severity: Severity;
  /** One line: what the rule checks. */
  title: string;
}

/** Every rule code with its severity and title (docs/spec.md §2). */
export const RULES: Readonly<Record<ProblemCode, RuleInfo>> = {
  'invalid-json': { severity: 'error', title: 'The file is not strict JSON (syntax error, comment, trailing comma).' },
  'root-not-object': { severity: 'error', title: 'The root of the file is not an object.' },
  'agent-missing': { severity: 'error', title: 'The file has no `agent`.' },
  'agent-invalid': { severity: 'error', title: '`agent` is not a string `module:export` with both parts non-blank, naming a module inside the folder of the file.' },
  'remote-tools-not-list': { severity: 'error', title: '`remote_tools` is present and not an array.' },
  'tool-not-object': { severity: 'error', title: 'An item of `remote_tools` is not an object.' },
  'unknown-field': { severity: 'error', title: 'A remote tool has a field other than `node`, `name`, `description`, `parameters`.' },
  'missing-field': { severity: 'error', title: 'A remote tool lacks `node`, `name` or `description`.' },
  'not-a-string': { severity: 'error', title: '`node`, `name` or `description` is present but not a string.' },
  'blank-field': { severity: 'error', title: '`node`, `name` or `description` is empty or only white space.' },
  'duplicate-name': { severity: 'error', title: 'A remote tool `name` is already used by an earlier tool.' },
  'parameters-not-object': { severity: 'error', title: '`parameters` is an array, a scalar or null.' },
  'parameters-type-not-object': { severity: 'error', title: '`parameters.type` is absent or not `"object"`.' },
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
  'raw-typescript-keyword': { severity: 'warning', title: 'A schema in `parameters` uses `tsType` or `tsEnumNames`, which `10xgraph types` refuses.' },
  'internal-error': { severity: 'error', title: 'A rule failed while checking the file (a bug in the rule set).' },
};

/** The anchor of a rule's section in `docs/rules.md`. */
export function ruleDocsAnchor(code: ProblemCode): string {
  return code;
}
