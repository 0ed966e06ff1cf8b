/**
 * How the 10xGraph server, a Python program, reads the values of `10xgraph.json`: Python's
 * `str.strip()`, `int()`, its boolean strings, `os.path.expandvars` and `ipaddress.ip_network`.
 * The settings rules judge a value as these do, so a value the server accepts is never an error
 * here (docs/spec.md §1).
 */

/** Whether `ch` (a UTF-16 code unit) is white space to Python's `str.isspace()`. */
export function isPythonSpace(ch: number): boolean {
  return (
    (ch >= 9 && ch <= 13) ||
    (ch >= 0x1c && ch <= 0x20) ||
    ch === 0x85 ||
    ch === 0xa0 ||
    ch === 0x1680 ||
    (ch >= 0x2000 && ch <= 0x200a) ||
    ch === 0x2028 ||
    ch === 0x2029 ||
    ch === 0x202f ||
    ch === 0x205f ||
    ch === 0x3000
  );
}

/** `text.strip()` as Python does it (JavaScript's `trim()` differs: it strips U+FEFF and keeps U+001C–U+001F and U+0085). */
export function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPythonSpace(text.charCodeAt(start))) start++;
  while (end > start && isPythonSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** The strings the server's boolean settings accept, in any case and with white space around. */
const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off']);

/** A boolean setting as the server reads it: a boolean or one of its words; undefined when it refuses the value. */
export function pythonBool(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const word = pythonStrip(value).toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  return undefined;
}

/**
 * A base-10 integer string as Python's `int()` takes it: sign, digits, single underscores
 * between digits. Python also takes the decimal digits of other scripts (`"١٠٠"`); those are
 * refused here, as the schema's patterns refuse them.
 */
const INT_STRING = /^[+-]?\d+(?:_\d+)*$/;

/**
 * `int(value)` as Python computes it for a value read from JSON: booleans are 1 and 0, numbers
 * are truncated toward zero, strings must be a base-10 integer (white space around allowed).
 * Undefined when Python raises. Very long digit strings come back as ±Infinity, which compare
 * as the huge integers they are.
 */
export function pythonInt(value: unknown): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = pythonStrip(value);
  if (!INT_STRING.test(text)) return undefined;
  return Number(text.replace(/_/g, ''));
}

/** One `$NAME` or `${NAME}` reference in a string, as `os.path.expandvars` finds them. */
const ENV_REFERENCE = /\$(?:(\w+)|\{([^}]*)\})/gu;

/** The variables `text` refers to with `$NAME` or `${NAME}`, in order. */
export function envReferences(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(ENV_REFERENCE)) names.push(m[1] ?? m[2]);
  return names;
}

/**
 * The variable names that make the server refuse `text` when none of them is defined: it expands
 * `$VAR` and `${VAR}` and refuses a value that stays as it was while it starts with `$` or holds
 * `${`. Empty when the value is accepted whatever the environment, or when one reference is set.
 */
export function unresolvedEnvReferences(text: string, defined: (name: string) => boolean): string[] {
  if (!(text.startsWith('$') || text.includes('${'))) return [];
  const names = envReferences(text);
  if (names.some(defined)) return [];
  return names.length ? names : ['$'];
}

/** Whether `text` (already stripped) is an IPv4 address in Python's strict dotted form. */
function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const octets: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part.startsWith('0'))) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    octets.push(n);
  }
  return octets;
}

/** Whether `text` is an IPv6 address as Python's `ipaddress` parses it (a `%scope` allowed). */
function isIpv6(text: string): boolean {
  const percent = text.indexOf('%');
  let address = text;
  if (percent >= 0) {
    if (percent === text.length - 1 || text.indexOf('%', percent + 1) >= 0) return false;
    address = text.slice(0, percent);
  }
  if (address.length === 0 || address.length > 45) return false;
  let groups = address.split(':');
  let limit = 8;
  const last = groups[groups.length - 1];
  if (last.includes('.')) {
    if (!parseIpv4(last)) return false;
    groups = groups.slice(0, -1);
    groups.push('0', '0');
  }
  if (groups.length < 3 || groups.length > limit + 1) return false;
  const empty = groups.slice(1, -1).filter((g) => g === '').length;
  if (empty > 1) return false;
  if (empty === 0) {
    if (groups[0] === '' || groups[groups.length - 1] === '') return false;
    if (groups.length !== limit) return false;
  } else {
    if (groups[0] === '' && groups[1] !== '') return false;
    if (groups[groups.length - 1] === '' && groups[groups.length - 2] !== '') return false;
    limit -= 1;
    if (groups.filter((g) => g !== '').length > limit) return false;
  }
  return groups.every((g) => g === '' || /^[0-9A-Fa-f]{1,4}$/.test(g));
}

/** Whether four octets are a netmask (ones then zeros) or a host mask (zeros then ones). */
function isMask(octets: number[]): boolean {
  const bits = octets.map((o) => o.toString(2).padStart(8, '0')).join('');
  return /^1*0*$/.test(bits) || /^0*1*$/.test(bits);
}

/** Whether `raw` is what `ipaddress.ip_network(raw.strip(), strict=False)` accepts: an address or a network. */
export function isIpNetwork(raw: string): boolean {
  const text = pythonStrip(raw);
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const prefix = slash < 0 ? undefined : text.slice(slash + 1);
  if (prefix !== undefined && prefix.includes('/')) return false;
  const v4 = parseIpv4(address);
  if (v4) {
    if (prefix === undefined) return true;
    if (/^\d+$/.test(prefix)) return Number(prefix) <= 32;
    const mask = parseIpv4(prefix);
    return mask !== undefined && isMask(mask);
  }
  if (!isIpv6(address)) return false;
  if (prefix === undefined) return true;
  return /^\d+$/.test(prefix) && Number(prefix) <= 128;
}

/**
 * An import path `module.path:attribute` as the server and its config editor accept it: ASCII
 * letter or `_` first in each part, then word characters and dots (Python's `$` also lets one
 * trailing line break through).
 */
const IMPORT_PATH = /^[A-Za-z_][\p{L}\p{N}_.]*:[A-Za-z_][\p{L}\p{N}_.]*\n?$/u;

/** Whether `text` is a `module:attribute` import path the server can load. */
export function isImportPath(text: string): boolean {
  return IMPORT_PATH.test(text);
}
