/** `.gitignore` matching, the runtime's (`10xgraph/workspace`), the one the project index and `10xgraph audit --project` use. */
export { GitIgnore, MAX_PATTERNS, type IgnoreProblem } from '10xgraph/workspace';
