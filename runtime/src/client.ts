/**
 * `10xgraph/client`: the same client as the `10xgraph-client` package (one copy of its code),
 * re-exported for code that already depends on `10xgraph`. New code should install
 * `10xgraph-client`, which has no dependencies and runs in browsers.
 */
export * from '10xgraph-client';
