import { type Rule, Kind } from '../context';
import { pythonModuleExists } from '../environment';
import { isImportPath } from '../python';
import { forEachSetting, isUnset } from '../settings';

/** The modules `10xgraph api` loads besides Python's (the agent loader's extensions). */
const SCRIPT_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

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
      // `10xgraph api` loads these two from a TypeScript or JavaScript module beside the config, as it loads the agent.
      const loadedByApi = place.path[0] === 'authorization' || (place.path[0] === 'auth' && place.path[1] === 'path');
      if (loadedByApi && SCRIPT_EXTENSIONS.some((extension) => options.files!.fileExists!(`${module}${extension}`))) return;
      const file = module.split('.').join('/');
      report({
        code: 'module-not-found',
        message: `"${place.path.join('.')}" names the module "${module}", but neither ${file}.py nor ${file}/__init__.py is beside this file: the server cannot import it unless it is installed.`,
        node: value,
      });
    });
  },
};
