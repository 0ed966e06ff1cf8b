import type { Rule } from '../context';
import { forEachSetting, judgeImportPath } from '../settings';

/** `invalid-import-path`: a `module:attribute` the server loads at start-up cannot be imported as written. */
export const invalidImportPath: Rule = {
  code: 'invalid-import-path',
  check({ tree, report }) {
    forEachSetting(tree, (place) => {
      if (place.spec.stage !== 'start') return;
      const why = judgeImportPath(place, tree);
      if (why) report({ code: 'invalid-import-path', message: `${why}. The server cannot load it and does not start.`, node: place.value });
    });
  },
};
