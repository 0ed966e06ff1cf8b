/**
 * The summary of a config's text as the project reads it from disk: a tolerant parse (comments,
 * trailing commas), so a config that is not strict JSON still declares its tools to the project.
 * The language server's index and `10xgraph audit --project` read configs this one way.
 */
import { parseTree } from 'jsonc-parser';
import { configSummaryOfNode, type ConfigSummary, type JsonNode } from '../rules/index';

/** The tolerant tree of a config's text (the one the editor's features share for a text that is not strict JSON). */
export function tolerantTree(text: string): JsonNode | undefined {
  try {
    return parseTree(text, [], { allowTrailingComma: true, disallowComments: false }) as JsonNode | undefined;
  } catch {
    return undefined;
  }
}

/** What a config's text on disk says about the project (`agent`, each tool's `name` and `node`, with offsets). */
export function readConfigSummary(text: string): ConfigSummary {
  return configSummaryOfNode(tolerantTree(text), text);
}
