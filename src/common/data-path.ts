import { GatewayError, gatewayError } from './errors.ts';

/**
 * The one place a client-supplied data-store path becomes a canonical one (backends.md §2).
 *
 * Catalog paths look like `/<zone>/home/alice/dir/file.txt`. File bytes live on disk under the
 * object's UUID, never under its path, so nothing here touches the filesystem: the job is to refuse
 * malformed or hostile paths and give every good path exactly one spelling, so that SQL lookups,
 * prefix checks (`isWithin`) and uniqueness constraints cannot be fooled by a second spelling.
 *
 * Deliberately NOT done:
 * - Percent-decoding. Paths arrive already decoded once by the HTTP layer (query string, JSON
 *   body). Decoding again would be double-decoding, the classic way `%252e%252e` turns into `..`.
 *   So `%2e%2e` or `%00` is just an odd but harmless literal name.
 * - NFKC. Only NFC (canonical equivalence: macOS clients send `e\u0301`, others `é`). NFKC would
 *   merge distinct names (`ﬁ`/`fi`, `²`/`2`); fullwidth `．．` stays a literal name, not `..`.
 * - The configurable "bad characters" (`` ` ``, `'`, newline, tab by default). That policy applies
 *   when names are created; existing objects with such names must stay addressable. Only the
 *   newline and tab overlap, and those are refused here as control characters anyway.
 * - Unicode format characters (Cf: ZWJ, ZWNJ, bidi marks) are allowed: real names in Persian,
 *   Indic scripts and emoji need them. Spoofing by bidi overrides is a display concern.
 */

/** Per-segment limit, the usual filesystem NAME_MAX, counted in UTF-8 bytes. */
export const MAX_SEGMENT_BYTES = 255;
/** Whole-path limit in UTF-8 bytes; comfortably below index-key limits of the catalog tables. */
export const MAX_PATH_BYTES = 2048;

const BAD_FIELD = 'ERR_BAD_OR_MISSING_FIELD' as const;

/** C0 controls (incl. NUL, tab, newline, CR), DEL and C1 controls (incl. U+0085 NEL). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/**
 * U+2028/U+2029 are not Cc, but they are line terminators in JavaScript and many text tools, and
 * paths end up in line-oriented logs and path-list files; no legitimate name needs them.
 */
const LINE_SEPARATOR = /[\u2028\u2029]/;
/** An unpaired UTF-16 surrogate cannot be stored as UTF-8; it would silently become U+FFFD. */
const LONE_SURROGATE = /\p{Cs}/u;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Why `text` contains characters no path may hold, or undefined when it is clean. */
function characterProblem(text: string): string | undefined {
  if (CONTROL.test(text)) return 'must not contain control characters';
  if (LINE_SEPARATOR.test(text)) return 'must not contain line or paragraph separators';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode (unpaired surrogate)';
  // Never a separator in the catalog, but one on Windows clients and in some tools: `\..\`.
  if (text.includes('\\')) return 'must not contain backslashes';
  return undefined;
}

/** Why one path segment (already NFC, free of bad characters) is unacceptable, or undefined. */
function segmentProblem(segment: string): string | undefined {
  if (segment === '') return 'must not contain empty segments ("//")';
  if (segment === '.') return 'must not contain "." segments';
  if (segment === '..') return 'must not contain ".." segments';
  if (utf8Bytes(segment) > MAX_SEGMENT_BYTES)
    return `must not have a segment longer than ${MAX_SEGMENT_BYTES} bytes`;
  return undefined;
}

function badField(field: string, problem: string, key: string, input: unknown): GatewayError {
  const extra: Record<string, unknown> = { field };
  if (typeof input === 'string') extra[key] = input;
  return gatewayError(BAD_FIELD, `${field} ${problem}`, extra);
}

/**
 * Returns the canonical form of a client-supplied data-store path, or throws a 400
 * `ERR_BAD_OR_MISSING_FIELD` naming `field` (and echoing the raw input as `path`).
 * Canonical: NFC, absolute, no trailing slash, `/<zone>` or below it.
 */
export function normalizeDataPath(input: unknown, zone: string, field = 'path'): string {
  const refuse = (problem: string) => badField(field, problem, 'path', input);
  if (typeof input !== 'string') throw refuse('must be a string');

  // Normalize first, so that every later check sees exactly what will be stored and compared.
  const path = input.normalize('NFC');
  if (path === '') throw refuse('must not be empty');
  if (!path.startsWith('/')) throw refuse('must be an absolute path starting with "/"');
  const badCharacters = characterProblem(path);
  if (badCharacters) throw refuse(badCharacters);
  if (path === '/') throw refuse('must not be the root "/"');

  // Tolerate the one trailing slash clients add to folders; a second one is an empty segment.
  const canonical = path.endsWith('/') ? path.slice(0, -1) : path;
  if (utf8Bytes(canonical) > MAX_PATH_BYTES)
    throw refuse(`must not be longer than ${MAX_PATH_BYTES} bytes`);
  const segments = canonical.slice(1).split('/');
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) throw refuse(problem);
  }
  // Exact, case-sensitive segment comparison: `/platformx` and `/Platform` are other zones.
  if (segments[0] !== zone) throw refuse(`must be within "/${zone}"`);
  return canonical;
}

/*
 * The helpers below take canonical paths (from normalizeDataPath or joinDataPath) and do plain
 * string work on them; they do not re-validate.
 */

/** Like POSIX dirname: `/z/a/b` → `/z/a`; `/z` → `/`, which is never a valid data path. */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

/** The last segment: `/z/a/b.txt` → `b.txt`. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * `parent` + `/` + `name`, where `name` is a client-supplied single segment (a new file or folder
 * name) validated with the same rules as path segments. Refusals name `field` and echo the raw
 * input as `name`.
 */
export function joinDataPath(parent: string, name: unknown, field = 'name'): string {
  const refuse = (problem: string) => badField(field, problem, 'name', name);
  if (typeof name !== 'string') throw refuse('must be a string');
  const segment = name.normalize('NFC');
  if (segment === '') throw refuse('must not be empty');
  if (segment.includes('/')) throw refuse('must be a single name without "/"');
  const badCharacters = characterProblem(segment);
  if (badCharacters) throw refuse(badCharacters);
  if (segment === '.' || segment === '..') throw refuse(`must not be "${segment}"`);
  if (utf8Bytes(segment) > MAX_SEGMENT_BYTES)
    throw refuse(`must not be longer than ${MAX_SEGMENT_BYTES} bytes`);
  const joined = `${parent}/${segment}`;
  if (utf8Bytes(joined) > MAX_PATH_BYTES)
    throw refuse(`would make a path longer than ${MAX_PATH_BYTES} bytes`);
  return joined;
}

/** True when `path` is `ancestor` or below it, by whole segments: `/z/home/al` is not within `/z/home/a`. */
export function isWithin(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

/** Every ancestor from `/<zone>` down to the parent, top first; `/z/a/b` → [`/z`, `/z/a`]; `/z` → []. */
export function ancestorsOf(path: string): string[] {
  const ancestors: string[] = [];
  for (let slash = path.indexOf('/', 1); slash > 0; slash = path.indexOf('/', slash + 1)) {
    ancestors.push(path.slice(0, slash));
  }
  return ancestors;
}

/** The data store's default bad characters: backquote, quote, newline, tab. */
export const defaultBadChars = "`'\n\t";

/** What makes a name bad (backends.md §2.3): characters it contains, whole names, whole paths. */
export interface BadNameRules {
  badChars: string;
  badNames: string[];
  badPaths: string[];
}

/** True when the listing should flag the name (backends.md §2.3 `badName`). */
export function isBadName(path: string, options: BadNameRules): boolean {
  const name = baseName(path);
  if (options.badPaths.includes(path) || options.badNames.includes(name)) return true;
  for (const character of options.badChars) if (name.includes(character)) return true;
  return false;
}
