import { type Rule, Kind } from '../context';
import { pythonModuleExists } from '../environment';
import { isImportPath } from '../python';
import { forEachSetting, isUnset } from '../settings';

/** `module-not-found`: the Python module of an import path (`injectq`, `store`, `auth.path`, …) is not beside the config. */
export const moduleNotFound: Rule = {
  code: 'module-not-found',
  check({ tree, options, report }) {
    if (!options.files?.fileExists) return;
    forEachSetting(tree, (place) => {
      const { spec, value } = place;
      const importing = spec.type === 'import-path' || (spec.type === 'authorization' && tree.kind[value] === Kind.String && tree.string(value).includes(':'));
      if (!importing || isUnset(spec, tree, value) || tree.kind[value] !== Kind.String) return;
      const text = tree.string(value);
      if (!isImportPath(text)) return;
      const module = text.slice(0, text.indexOf(':'));
      if (pythonModuleExists(module, options) !== false) return;
      const file = module.split('.').join('/');
      report({
        code: 'module-not-found',
        message: `"${place.path.join('.')}" names the module "${module}", but neither ${file}.py nor ${file}/__init__.py is beside this file: the server cannot import it unless it is installed.`,
        node: value,
      });
    });
  },
};
