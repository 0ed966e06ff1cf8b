import type { Rule } from '../context';
import { forEachSetting, judgeRange } from '../settings';

/** `setting-out-of-range`: a number read at start-up is outside what the server accepts. */
export const settingOutOfRange: Rule = {
  code: 'setting-out-of-range',
  check({ tree, report }) {
    forEachSetting(tree, (place) => {
      if (place.spec.stage !== 'start') return;
      const why = judgeRange(place, tree);
      if (why) report({ code: 'setting-out-of-range', message: `${why}: the server refuses it and does not start.`, node: place.value });
    });
  },
};
