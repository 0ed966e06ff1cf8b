// Preloaded into the language server by the storm test (NODE_OPTIONS="--expose-gc --require
// this file"): on SIGUSR2 it collects garbage twice (the second pass frees what finalizers of the
// first released) and reports the heap on stderr, so the test reads memory after a real GC
// rather than whenever V8 happens to collect. It changes nothing else in the server.
'use strict';
if (typeof globalThis.gc === 'function') {
  let runs = 0;
  process.on('SIGUSR2', () => {
    globalThis.gc();
    setImmediate(() => {
      globalThis.gc();
      const memory = process.memoryUsage();
      process.stderr.write(`gc-done ${++runs} heapUsed=${memory.heapUsed} rss=${memory.rss}\n`);
    });
  });
}
