/**
 * Server URLs as settings give them: compared, shown, logged and stored. Pure string work, no
 * I/O, so the settings parser on both sides (the extension and the language server) can use it.
 */

/** The origin (`scheme://host:port`, default ports left out) of an http(s) URL, or undefined. */
export function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `url` as it may be shown, logged or stored: its origin and path, without the user name,
 * password, query and fragment that may carry a credential (and without a trailing slash).
 * An unparsable URL gives ''.
 */
export function urlWithoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${trimTrailingSlashes(parsed.pathname)}`;
  } catch {
    return '';
  }
}

/**
 * `text` without the slashes it ends with. A loop, not `/\/+$/`: that expression backtracks
 * quadratically on a long run of slashes that is not at the end, and URLs come from settings.
 */
export function trimTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}
