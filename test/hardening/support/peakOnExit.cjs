// Preloaded into the CLI by runMeasured (`node --require this-file cli.js ...`): when the process
// exits, it writes its own resident-set high-water mark (bytes) to file descriptor 3, a pipe the
// test reads. Sampling /proc from the test misses a process that lives less than one sampling
// pause of a busy test process; the process's own figure cannot be missed. It changes nothing
// else in the CLI.
'use strict';
const { writeSync } = require('node:fs');
process.on('exit', () => {
  try {
    writeSync(3, `${process.resourceUsage().maxRSS * 1024}\n`);
  } catch {
    // Run without the pipe: nothing to report to.
  }
});
