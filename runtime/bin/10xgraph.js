#!/usr/bin/env node
'use strict';
// The CLI bundle ships in this package's dist/ (built by esbuild.mjs).
const cli = require('../dist/cli.js');
cli.main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error) => { process.stderr.write(`10xgraph: ${error && error.message ? error.message : String(error)}\n`); process.exitCode = 2; },
);
