import { type Rule, Kind } from '../context';
import { pythonBool } from '../python';
import { badNetworks, forEachSetting, judgeImportPath, judgeRange, judgeType, judgeValue } from '../settings';

/**
 * `setting-invalid`: a setting the server does not judge at start-up (it reads it later, or a
 * CLI command reads it) holds a value it refuses or misreads. The server starts; the use that
 * reads the setting fails or does something other than what the file says.
 */
export const settingInvalid: Rule = {
  code: 'setting-invalid',
  check({ tree, report }) {
    forEachSetting(tree, (place) => {
      const { spec } = place;
      if (spec.stage !== 'later' || spec.unread) return;
      const reader = spec.readBy ?? 'the server';
      const why = judgeType(place, tree) ?? judgeRange(place, tree) ?? judgeImportPath(place, tree);
      const value = judgeValue(place, tree);
      if (why || value) {
        report({
          code: 'setting-invalid',
          message: `${why ?? value!.message}. The server starts, but ${reader} ${spec.onRefusal ?? 'refuses it'}.${value?.hint ?? ''}`,
          node: place.value,
          ...(value?.fixes ? { fixes: value.fixes } : {}),
        });
        return;
      }
      if (badNetworks(place, tree).length)
        report({ code: 'setting-invalid', message: `"${place.path.join('.')}" holds an item that is not an IP address or network.`, node: place.value });
      // A switch read as a truth value: the string "false" is not empty, so it turns the switch on.
      if (spec.type === 'truthy' && tree.kind[place.value] === Kind.String && pythonBool(tree.string(place.value)) === false) {
        report({
          code: 'setting-invalid',
          message: `"${place.path.join('.')}" is the string ${JSON.stringify(tree.string(place.value))}, which ${reader} reads as on (any non-empty string is true): write false.`,
          node: place.value,
          fixes: [{ title: 'Change to false', edits: [{ ...tree.span(place.value), newText: 'false' }], isPreferred: true, safe: true }],
        });
      }
    });
  },
};
