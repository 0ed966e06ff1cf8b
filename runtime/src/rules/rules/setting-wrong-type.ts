import type { Rule } from '../context';
import { forEachSetting, judgeType } from '../settings';

/** `setting-wrong-type`: a setting read at start-up holds a value of a type the server refuses. */
export const settingWrongType: Rule = {
  code: 'setting-wrong-type',
  check({ tree, report }) {
    forEachSetting(tree, (place) => {
      if (place.spec.stage !== 'start') return;
      const why = judgeType(place, tree);
      if (why) report({ code: 'setting-wrong-type', message: `${why}: the server refuses it and does not start.`, node: place.value });
    });
  },
};
