/**
 * The 10xgraph version: the server reports it as `info.version`, the rule set as the version
 * whose start-up it reproduces. A test holds it equal to runtime/package.json's.
 */
export const VERSION = '0.1.0';
