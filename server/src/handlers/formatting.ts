/** `textDocument/formatting` and `textDocument/rangeFormatting` in configs. */
import type { Connection, FormattingOptions, Range } from 'vscode-languageserver';
import type { ServerContext } from '../lsp/context';

/** Registers the formatting handlers. */
export function register(connection: Connection, context: ServerContext): void {
  const format = async (uri: string, options: FormattingOptions, range?: Range) => {
    const state = await context.states.checkedStateOf(uri);
    return state ? context.service.format(state, options, range) : [];
  };
  connection.onDocumentFormatting(context.guard('formatting', [], (params) => format(params.textDocument.uri, params.options)));
  connection.onDocumentRangeFormatting(context.guard('rangeFormatting', [], (params) => format(params.textDocument.uri, params.options, params.range)));
}
