/** The `10xgraph.files` and `10xgraph.project.exclude` globs, matched by the runtime (`10xgraph/workspace`), as the project index matches them. */
export { GlobError, MAX_GLOBS, globProblem, matchAny, matchGlob } from '10xgraph/workspace';
