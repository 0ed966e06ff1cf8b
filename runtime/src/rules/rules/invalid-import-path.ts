import { type Rule, Kind } from '../context';
import { forEachSetting, importPathMessage, judgeImportPath } from '../settings';

/** `invalid-import-path`: a `module:attribute` the server loads at start-up cannot be imported as written. */
export const invalidImportPath: Rule = {
  code: 'invalid-import-path',
  check({ tree, report }) {
    forEachSetting(tree, (place) => {
      if (place.spec.stage !== 'start') return;
      let why = judgeImportPath(place, tree);
      // An `authorization` string with ":" is a backend to import.
      if (place.spec.type === 'authorization' && tree.kind[place.value] === Kind.String) {
        const text = tree.string(place.value);
        if (text.includes(':') && !/^[A-Za-z_][\p{L}\p{N}_.]*:[A-Za-z_][\p{L}\p{N}_.]*\n?$/u.test(text)) why = importPathMessage('authorization', text);
      }
      if (why) report({ code: 'invalid-import-path', message: `${why}. The server cannot load it and does not start.`, node: place.value });
    });
  },
};
