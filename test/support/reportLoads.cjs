// Preloaded into a spawned language server (NODE_OPTIONS=--require …): says on standard error when
// the server reads the part of its bundle it loads on first use (server-ajv.js), and how many
// publishDiagnostics it had written to standard output by then.
'use strict';
const Module = require('node:module');
let published = 0;
const write = process.stdout.write;
process.stdout.write = function (chunk, ...rest) {
  published += String(chunk).split('"textDocument/publishDiagnostics"').length - 1;
  return write.call(this, chunk, ...rest);
};
const load = Module._load;
Module._load = function (request, ...rest) {
  if (/server-ajv\.js$/.test(request)) process.stderr.write(`10xgraph-test: loaded ${request} after ${published} publishDiagnostics\n`);
  return load.call(this, request, ...rest);
};
