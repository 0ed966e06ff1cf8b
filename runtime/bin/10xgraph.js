#!/usr/bin/env node
'use strict';
// The built CLI bundle lives in the repository's dist/ (built by `npm install` through `prepare`).
const path = require('node:path');
const cli = require(path.join(__dirname, '..', '..', 'dist', 'cli.js'));
cli.main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error) => { process.stderr.write(`10xgraph: ${error && error.message ? error.message : String(error)}\n`); process.exitCode = 2; },
);
