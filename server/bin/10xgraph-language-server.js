#!/usr/bin/env node
'use strict';
// The bundled language server (built by `npm install` through `prepare`).
require(require('node:path').join(__dirname, '..', '..', 'dist', 'server.js'));
