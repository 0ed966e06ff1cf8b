import { missingAttributeSentence, type ConfigProjectRule } from '../project';
import { byCloseness, isLikelyTypo } from '../similarity';
import type { Fix } from '../types';

// Names longer than this are not compared for a likely typo (the comparison grows with the square of the lengths).
const MAX_COMPARED = 64;

/**
 * `module-attribute-missing`: a `module:attribute` the server imports at start-up (`injectq`,
 * `store`, `thread_name_generator`, an `authorization` backend, `auth.path`) names a Python module
 * beside the config that binds no such top-level name, so the import fails and the server stops.
 * Judged only where the front end read the module whole (`PythonModuleNames`): a module not
 * found, not parsed, or binding names no statement shows is not judged. The closest name the
 * module binds is offered as the fix.
 */
export const moduleAttributeMissing: ConfigProjectRule = {
  code: 'module-attribute-missing',
  on: 'config',
  check({ config, modules }, report) {
    if (!modules) return;
    for (const { key, value, module, attribute } of config.imports ?? []) {
      const names = modules(module);
      if (!names || names.names.includes(attribute) || names.submodules?.includes(attribute)) continue;
      const [closest] =
        attribute.length <= MAX_COMPARED
          ? byCloseness(
              attribute,
              [...names.names, ...(names.submodules ?? [])].filter((n) => n.length <= MAX_COMPARED),
            )
          : [];
      const likely = closest !== undefined && isLikelyTypo(attribute, closest) ? closest : undefined;
      const fixes: Fix[] = [];
      if (likely && value.exact)
        fixes.push({ title: `Change to '${likely}'`, edits: [{ offset: value.offset + 1 + module.length + 1, length: attribute.length, newText: likely }], isPreferred: true });
      report({
        code: 'module-attribute-missing',
        message: `"${key}" names ${module}:${attribute}, but ${missingAttributeSentence(names.shown, module, attribute)}${likely ? ` Did you mean '${likely}'?` : ''}`,
        offset: value.offset,
        length: value.length,
        fixes,
      });
    }
  },
};
