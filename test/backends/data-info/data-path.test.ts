// Data-store paths (data-info's data-path.ts): hostile paths refused with 400 naming the field,
// canonical forms (NFC, trailing slash dropped, escapes and odd dots kept as literal names), byte
// limits, and the helpers that join, split and compare paths by segment.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ancestorsOf,
  baseName,
  isWithin,
  joinDataPath,
  MAX_PATH_BYTES,
  MAX_SEGMENT_BYTES,
  normalizeDataPath,
  parentOf,
} from '../../../src/common/data-path.ts';
import { GatewayError } from '../../../src/common/errors.ts';

const ZONE = 'platform';
const HOME = '/platform/home/alice';

/** Asserts `run` throws the 400 bad-field error naming `field`, with a reason matching `reason`. */
function assertRefused(
  run: () => unknown,
  field: string,
  reason: RegExp,
  echo?: { key: string; value: unknown },
): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof GatewayError, `expected a GatewayError, got ${String(error)}`);
    assert.equal(error.statusCode, 400);
    assert.equal(error.errorCode, 'ERR_BAD_OR_MISSING_FIELD');
    assert.equal(error.extra.field, field);
    assert.ok(error.reason.startsWith(`${field} `), `reason names the field: ${error.reason}`);
    assert.match(error.reason, reason);
    if (echo) {
      if (typeof echo.value === 'string') assert.equal(error.extra[echo.key], echo.value);
      else assert.equal(echo.key in error.extra, false, 'non-strings are not echoed');
    }
    return true;
  });
}

const refusePath = (input: unknown, reason: RegExp, field = 'path') =>
  assertRefused(() => normalizeDataPath(input, ZONE, field), field, reason, {
    key: 'path',
    value: input,
  });

const ABSOLUTE = /absolute/;
const DOTDOT = /"\.\." segments/;
const DOT = /"\." segments/;
const EMPTY_SEGMENT = /empty segments/;
const BACKSLASH = /backslash/;
const CONTROL = /control characters/;
const OTHER_ZONE = /within "\/platform"/;

/** [description, input, expected reason]. Every entry must be refused with 400 for field `path`. */
const hostile: Array<[string, string, RegExp]> = [
  ['bare ..', '..', ABSOLUTE],
  ['relative ../', '../platform/home', ABSOLUTE],
  ['/.. at the root', '/..', DOTDOT],
  ['leading /../ before the zone', '/../platform/home', DOTDOT],
  ['trailing /..', '/platform/home/alice/..', DOTDOT],
  ['trailing /../ (slash dropped, .. remains)', '/platform/home/alice/../', DOTDOT],
  ['zone/..', '/platform/..', DOTDOT],
  ['sibling escape', '/platform/home/alice/../bob', DOTDOT],
  ['deep escape', '/platform/home/alice/../../../etc/passwd', DOTDOT],
  ['escape out of trash', '/platform/trash/../home/bob', DOTDOT],
  ['single dot inside', '/platform/home/alice/./x', DOT],
  ['trailing /.', '/platform/home/alice/.', DOT],
  ['/./ before the zone', '/./platform/home', DOT],
  ['double slash inside', '/platform//home', EMPTY_SEGMENT],
  ['leading double slash', '//platform/home', EMPTY_SEGMENT],
  ['two trailing slashes', '/platform/home//', EMPTY_SEGMENT],
  ['only slashes', '//', EMPTY_SEGMENT],
  ['backslash traversal', '/platform/home/alice/..\\..\\bob', BACKSLASH],
  ['backslash segment', '/platform/home/\\..\\', BACKSLASH],
  ['backslash as separator', '/platform\\home', BACKSLASH],
  ['relative backslash traversal', '\\..\\', ABSOLUTE],
  ['Windows drive path', 'C:\\x', ABSOLUTE],
  ['Windows drive with slashes', 'C:/platform/home', ABSOLUTE],
  ['UNC path', '\\\\server\\share', ABSOLUTE],
  ['NUL at the end', '/platform/home/alice/\u0000', CONTROL],
  ['NUL truncation trick', '/platform/home/alice/a.txt\u0000.png', CONTROL],
  ['NUL before traversal', '/platform/home/alice\u0000/../../x', CONTROL],
  ['newline', '/platform/home/alice/a\nb', CONTROL],
  ['tab', '/platform/home/alice/a\tb', CONTROL],
  ['carriage return', '/platform/home/alice/a\rb', CONTROL],
  ['CRLF log injection', '/platform/home/alice/x\r\nINFO forged', CONTROL],
  ['escape (ANSI)', '/platform/home/alice/\u001b[31mred', CONTROL],
  ['DEL', '/platform/home/alice/a\u007fb', CONTROL],
  ['C1 NEL U+0085', '/platform/home/alice/a\u0085b', CONTROL],
  ['C1 CSI U+009B', '/platform/home/alice/a\u009bb', CONTROL],
  ['C1 U+0080', '/platform/home/alice/\u0080', CONTROL],
  ['line separator U+2028', '/platform/home/alice/a\u2028b', /line or paragraph separators/],
  ['paragraph separator U+2029', '/platform/home/alice/a\u2029b', /line or paragraph separators/],
  ['lone high surrogate', '/platform/home/alice/a\ud800b', /unpaired surrogate/],
  ['lone low surrogate', '/platform/home/alice/\udc00', /unpaired surrogate/],
  ['other zone', '/other/home', OTHER_ZONE],
  ['zone prefix trick', '/platformx/home', OTHER_ZONE],
  ['zone truncated', '/plat/home', OTHER_ZONE],
  ['zone in another case', '/Platform/home', OTHER_ZONE],
  ['zone with a trailing space', '/platform /home', OTHER_ZONE],
  ['zone one level down', '/home/platform', OTHER_ZONE],
  ['relative path', 'platform/home', ABSOLUTE],
  ['home-relative', '~/x', ABSOLUTE],
  ['leading space', ' /platform/home', ABSOLUTE],
  ['empty string', '', /must not be empty/],
  ['root', '/', /root/],
  ['http URL', 'http://x/platform', ABSOLUTE],
  ['file URL', 'file:///platform/x', ABSOLUTE],
  ['URL-ish inside a path', '/platform/http://x', EMPTY_SEGMENT],
  ['256-byte ASCII segment', `${HOME}/${'a'.repeat(256)}`, /segment longer than 255 bytes/],
  [
    '256-byte segment of 128 two-byte chars',
    `${HOME}/${'é'.repeat(128)}`,
    /segment longer than 255 bytes/,
  ],
  ['257-byte segment of emoji', `${HOME}/${'📁'.repeat(64)}a`, /segment longer than 255 bytes/],
  [
    'path over 2048 bytes',
    `${HOME}/${Array.from({ length: 10 }, () => 'd'.repeat(250)).join('/')}`,
    /longer than 2048 bytes/,
  ],
];

describe('normalizeDataPath: refusals', () => {
  test('the corpus is big enough', () =>
    assert.ok(hostile.length >= 40, `${hostile.length} hostile paths`));

  for (const [description, input, reason] of hostile) {
    test(`refuses ${description}: ${JSON.stringify(input)}`, () => refusePath(input, reason));
  }

  for (const [description, input] of [
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['a boolean', true],
    ['an array', ['/platform/home']],
    ['an object', { path: '/platform/home' }],
    ['a String object', new String('/platform/home')],
  ] as Array<[string, unknown]>) {
    test(`refuses ${description} without echoing it`, () => refusePath(input, /must be a string/));
  }

  test('names the given field in the error and its reason', () => {
    refusePath('/platform/home/alice/../bob', DOTDOT, 'dest');
    refusePath(null, /^source must be a string$/, 'source');
  });

  test('echoes the raw input, not its normalized form', () => {
    const input = '/other/re\u0301sume\u0301';
    assert.throws(
      () => normalizeDataPath(input, ZONE),
      (error: unknown) => error instanceof GatewayError && error.extra.path === input,
    );
  });

  test('accepts a path of exactly 2048 bytes and refuses one byte more', () => {
    let atLimit = HOME;
    while (atLimit.length + 251 < MAX_PATH_BYTES) atLimit += `/${'d'.repeat(250)}`;
    atLimit += `/${'e'.repeat(MAX_PATH_BYTES - atLimit.length - 1)}`;
    assert.equal(Buffer.byteLength(atLimit), MAX_PATH_BYTES);
    assert.equal(normalizeDataPath(atLimit, ZONE), atLimit);
    refusePath(`${atLimit}b`, /longer than 2048 bytes/);
  });
});

describe('normalizeDataPath: canonical forms', () => {
  const accepted: Array<[string, string, string]> = [
    ['the zone root', '/platform', '/platform'],
    ['the zone root with a trailing slash', '/platform/', '/platform'],
    ['one trailing slash dropped', `${HOME}/`, HOME],
    ['a plain file', `${HOME}/dir/file.txt`, `${HOME}/dir/file.txt`],
    ['spaces and parentheses', `${HOME}/my file (1).txt`, `${HOME}/my file (1).txt`],
    ['trailing space in a name', `${HOME}/name `, `${HOME}/name `],
    ['unicode names', `${HOME}/データ/résumé.pdf`, `${HOME}/データ/résumé.pdf`],
    ['emoji (surrogate pairs)', `${HOME}/📁/🎉.txt`, `${HOME}/📁/🎉.txt`],
    ['dotfiles', `${HOME}/.bashrc`, `${HOME}/.bashrc`],
    ['names starting with two dots', `${HOME}/..hidden`, `${HOME}/..hidden`],
    ['three dots', `${HOME}/...`, `${HOME}/...`],
    ['a name ending with a dot', `${HOME}/x.`, `${HOME}/x.`],
    // Not percent-decoded: the HTTP layer already decoded once; decoding again would be the
    // double-decoding bug. These are odd but harmless literal names (bytes are stored by UUID).
    ['literal %2e%2e', `${HOME}/%2e%2e`, `${HOME}/%2e%2e`],
    ['literal %2e%2e with more below', `${HOME}/%2e%2e/%2e%2e/x`, `${HOME}/%2e%2e/%2e%2e/x`],
    ['literal %2F..', `${HOME}/%2F..`, `${HOME}/%2F..`],
    ['literal %00', `${HOME}/%00`, `${HOME}/%00`],
    ['literal %5c', `${HOME}/..%5c..`, `${HOME}/..%5c..`],
    // NFC does not fold compatibility characters; fullwidth dots are a name, not `..`.
    ['fullwidth dots', `${HOME}/．．`, `${HOME}/．．`],
    ['one-dot leader pair', `${HOME}/\u2024\u2024`, `${HOME}/\u2024\u2024`],
    // Configurable "bad characters" are a creation-time policy, not a path-safety one.
    ['quote and backtick', `${HOME}/it's \`here\``, `${HOME}/it's \`here\``],
    ['colon and tilde', `${HOME}/a:b~`, `${HOME}/a:b~`],
    // Format characters (Cf) are needed by real names, e.g. ZWNJ in Persian.
    ['zero-width non-joiner', `${HOME}/می\u200Cخواهم`, `${HOME}/می\u200Cخواهم`],
    ['NFD normalized to NFC', `${HOME}/re\u0301sume\u0301.txt`, `${HOME}/r\u00e9sum\u00e9.txt`],
    ['NFD with trailing slash', `${HOME}/cafe\u0301/`, `${HOME}/caf\u00e9`],
    ['Hangul jamo composed', `${HOME}/\u1100\u1161`, `${HOME}/\uac00`],
    ['255-byte segment', `${HOME}/${'a'.repeat(255)}`, `${HOME}/${'a'.repeat(255)}`],
    ['255-byte multibyte segment', `${HOME}/${'é'.repeat(127)}a`, `${HOME}/${'é'.repeat(127)}a`],
    // 300 bytes as NFD, 200 as NFC: limits apply to what is stored.
    [
      'long NFD segment that fits once composed',
      `${HOME}/${'e\u0301'.repeat(100)}`,
      `${HOME}/${'é'.repeat(100)}`,
    ],
  ];

  for (const [description, input, expected] of accepted) {
    test(`accepts ${description}`, () => assert.equal(normalizeDataPath(input, ZONE), expected));
  }

  test('NFD and NFC spellings canonicalize to the same path', () => {
    const nfd = `${HOME}/e\u0301`;
    const nfc = `${HOME}/\u00e9`;
    assert.notEqual(nfd, nfc);
    assert.equal(normalizeDataPath(nfd, ZONE), normalizeDataPath(nfc, ZONE));
  });

  test('is idempotent', () => {
    for (const [, input] of accepted) {
      const once = normalizeDataPath(input, ZONE);
      assert.equal(normalizeDataPath(once, ZONE), once);
    }
  });

  test('uses the configured zone', () => {
    assert.equal(normalizeDataPath('/other/home/bob/', 'other'), '/other/home/bob');
    assertRefused(
      () => normalizeDataPath('/platform/home', 'other'),
      'path',
      /^path must be within "\/other"$/,
    );
  });
});

describe('path helpers', () => {
  test('parentOf', () => {
    assert.equal(parentOf(`${HOME}/dir/file.txt`), `${HOME}/dir`);
    assert.equal(parentOf(HOME), '/platform/home');
    assert.equal(parentOf('/platform'), '/');
  });

  test('baseName', () => {
    assert.equal(baseName(`${HOME}/dir/file.txt`), 'file.txt');
    assert.equal(baseName(`${HOME}/.bashrc`), '.bashrc');
    assert.equal(baseName('/platform'), 'platform');
  });

  test('joinDataPath joins and canonicalizes one name', () => {
    assert.equal(joinDataPath(HOME, 'file.txt'), `${HOME}/file.txt`);
    assert.equal(joinDataPath(HOME, '.bashrc'), `${HOME}/.bashrc`);
    assert.equal(joinDataPath(HOME, '%2e%2e'), `${HOME}/%2e%2e`);
    assert.equal(joinDataPath(HOME, 'cafe\u0301'), `${HOME}/caf\u00e9`);
    assert.equal(
      joinDataPath(HOME, 'a'.repeat(MAX_SEGMENT_BYTES)),
      `${HOME}/${'a'.repeat(MAX_SEGMENT_BYTES)}`,
    );
  });

  test('joinDataPath refuses bad names, naming the field', () => {
    const refuseName = (name: unknown, reason: RegExp, field?: string) =>
      assertRefused(() => joinDataPath(HOME, name, field), field ?? 'name', reason, {
        key: 'name',
        value: name,
      });
    refuseName('', /must not be empty/);
    refuseName('.', /must not be "\."/);
    refuseName('..', /must not be "\.\."/);
    refuseName('../bob', /without "\/"/);
    refuseName('a/b', /without "\/"/);
    refuseName('x/', /without "\/"/);
    refuseName('/', /without "\/"/);
    refuseName('..\\bob', /backslash/);
    refuseName('a\u0000b', /control characters/);
    refuseName('a\nb', /control characters/);
    refuseName('a\u0085', /control characters/);
    refuseName('a\u2028', /line or paragraph separators/);
    refuseName('\ud800', /unpaired surrogate/);
    refuseName('a'.repeat(MAX_SEGMENT_BYTES + 1), /longer than 255 bytes/);
    refuseName(null, /must be a string/);
    refuseName(7, /must be a string/);
    refuseName('..', /^filename must not be "\.\."$/, 'filename');
    refuseName('a/b', /^dirname /, 'dirname');
  });

  test('joinDataPath refuses a join that makes the path too long', () => {
    const deep = `${HOME}/${Array.from({ length: 8 }, () => 'd'.repeat(250)).join('/')}`;
    assert.ok(Buffer.byteLength(deep) < MAX_PATH_BYTES);
    assertRefused(() => joinDataPath(deep, 'x'.repeat(100)), 'name', /longer than 2048 bytes/);
  });

  test('isWithin is segment-aware', () => {
    assert.equal(isWithin('/platform/home/a', '/platform/home/a'), true);
    assert.equal(isWithin('/platform/home/a/x', '/platform/home/a'), true);
    assert.equal(isWithin('/platform/home/a/x/y', '/platform/home'), true);
    assert.equal(isWithin('/platform/home/al', '/platform/home/a'), false);
    assert.equal(isWithin('/platform/home/a.bak/x', '/platform/home/a'), false);
    assert.equal(isWithin('/platform/home', '/platform/home/a'), false);
    assert.equal(isWithin('/platformx/home', '/platform'), false);
    assert.equal(isWithin('/platform/trash/home/a', '/platform/home/a'), false);
  });

  test('ancestorsOf lists /<zone> down to the parent', () => {
    assert.deepEqual(ancestorsOf(`${HOME}/dir/file.txt`), [
      '/platform',
      '/platform/home',
      '/platform/home/alice',
      '/platform/home/alice/dir',
    ]);
    assert.deepEqual(ancestorsOf('/platform/home'), ['/platform']);
    assert.deepEqual(ancestorsOf('/platform'), []);
  });
});
