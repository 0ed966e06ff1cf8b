#!/usr/bin/env node
'use strict';
// The bundled language server ships in this package's dist/ (built by esbuild.mjs): one file
// that carries its dependencies (and two parts beside it that it reads on first use), so the
// package needs none.
require('../dist/server.js');
