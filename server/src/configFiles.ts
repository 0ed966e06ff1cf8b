/**
 * What the rule set may know of the files beside a config document (`AuditOptions.files`): the
 * same reading as `10xgraph audit`'s (`10xgraph/workspace`'s `configFilesOf`: only below the
 * config's folder, no `..`, no absolute path, no symbolic link out of that folder or of its
 * workspace folder, the env file read bounded, names kept and never a value), for a document URI.
 */
import { fileURLToPath } from 'node:url';
import type { ConfigFiles } from '10xgraph/rules';
import { configFilesOf as configFilesOfPath } from '10xgraph/workspace';
import { fsPathOf } from './paths';

export { MAX_ENV_FILE_BYTES } from '10xgraph/workspace';

/**
 * The files of the config document `uri` as the rule set asks for them, or undefined for a
 * document that is not a file (its rules that need files are then skipped). `workspaceFolders`
 * are URIs: a symbolic link below the config's folder may lead anywhere inside the workspace
 * folder that holds the config, and nowhere else.
 */
export function configFilesOf(uri: string, workspaceFolders: readonly string[]): ConfigFiles | undefined {
  const path = fsPathOf(uri);
  if (path === undefined) return undefined;
  const roots: string[] = [];
  for (const folder of workspaceFolders) {
    try {
      if (folder.startsWith('file:')) roots.push(fileURLToPath(folder));
    } catch {
      // Not a file URI a path can be had of: no folder to allow.
    }
  }
  return configFilesOfPath(path, { roots });
}
