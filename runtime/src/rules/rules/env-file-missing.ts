import { type Rule, Kind, NONE, shown } from '../context';
import { envFileOf } from '../environment';

/** `env-file-missing`: the `env` file the config names does not exist beside it, or is no regular file (the server skips it silently). */
export const envFileMissing: Rule = {
  code: 'env-file-missing',
  check({ tree, root, options, report }) {
    if (tree.kind[root] !== Kind.Object || !options.files?.fileExists) return;
    const path = envFileOf(tree, root);
    if (path === undefined || options.files.fileExists(path)) return;
    // python-dotenv reads only a regular file: anything else there is skipped as a missing one is.
    const what = options.files.notRegular?.(path);
    const where = what ? `is ${what}, not a regular file` : 'does not exist beside this file';
    report({
      code: 'env-file-missing',
      message: `The env file "${shown(path)}" ${where}: the server skips it silently, so none of its variables are set.`,
      node: tree.get(root, 'env') === NONE ? root : tree.get(root, 'env'),
    });
  },
};
