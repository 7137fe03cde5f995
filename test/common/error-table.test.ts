// The error table (src/common/errors.ts): its constructors give each code the status the table
// names, the types refuse a code or variant it does not list, src/ writes no status of its own,
// and the errors page (docs/errors.md) says what the table says.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  allowedStatuses,
  errorAs,
  errorTable,
  gatewayError,
  isErrorCode,
  type ErrorCode,
  type ErrorDefinition,
} from '../../src/common/errors.ts';

const root = new URL('../..', import.meta.url).pathname;
const definitions = errorTable as Record<ErrorCode, ErrorDefinition>;
const codes = Object.keys(errorTable) as ErrorCode[];

/** The errors page, docs/errors.md. */
function errorsSection(): string {
  return readFileSync(join(root, 'docs', 'errors.md'), 'utf8');
}

/** The body rows of the markdown table whose header row starts with `firstHeader`, as cells. */
function tableRows(section: string, firstHeader: string): string[][] {
  const lines = section.split('\n');
  const header = lines.findIndex((line) => line.startsWith(`| ${firstHeader} |`));
  assert.ok(header >= 0, `the Errors section has a table headed "${firstHeader}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The errors page row of a code in the "Code" table: code, status, meaning, other statuses and why. */
function codeRow(code: ErrorCode): string {
  const definition = definitions[code];
  const others = Object.entries(definition.variants ?? {})
    .map(([name, variant]) => `${variant.status} (\`${name}\`): ${variant.because}`)
    .join('; ');
  return `| \`${code}\` | ${definition.status} | ${definition.reason} | ${others || '—'} |`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('error table', () => {
  test('a code gets its default status, a named variant its own', () => {
    const exists = gatewayError('ERR_EXISTS', 'there already', { path: '/a' });
    assert.deepEqual(
      [exists.statusCode, exists.errorCode, exists.reason, exists.extra],
      [400, 'ERR_EXISTS', 'there already', { path: '/a' }],
    );
    assert.equal(errorAs('ERR_EXISTS', 'fileio').statusCode, 500);
    assert.equal(errorAs('ERR_EXISTS', 'conflict').statusCode, 409);
    assert.equal(errorAs('ERR_UNAVAILABLE', 'backendTimedOut').statusCode, 504);
    assert.equal(gatewayError('ERR_NOT_FOUND').reason, errorTable.ERR_NOT_FOUND.reason);
    assert.deepEqual(allowedStatuses('ERR_EXISTS').sort(), [400, 409, 500]);
    assert.ok(isErrorCode('ERR_DOES_NOT_EXIST') && !isErrorCode('ERR_NO_SUCH_CODE'));
  });

  test('the types refuse a code or a variant the table does not list', () => {
    // Checked by `npm run typecheck`: each line below must fail to compile.
    const refused = () => [
      // @ts-expect-error not a code of the table
      gatewayError('ERR_NO_SUCH_CODE'),
      // @ts-expect-error ERR_NOT_FOUND has no variants
      errorAs('ERR_NOT_FOUND', 'fileio'),
      // @ts-expect-error ERR_EXISTS has no variant of this name
      errorAs('ERR_EXISTS', 'teapot'),
    ];
    assert.equal(typeof refused, 'function');
    assert.throws(
      () => errorAs('ERR_NOT_FOUND' as ErrorCode as 'ERR_EXISTS', 'fileio'),
      /no variant/,
    );
  });

  test('every variant names a status other than the default and says why', () => {
    for (const code of codes) {
      for (const [name, variant] of Object.entries(definitions[code].variants ?? {})) {
        assert.notEqual(variant.status, definitions[code].status, `${code}.${name}`);
        assert.ok(variant.because.length > 20, `${code}.${name} says why`);
      }
    }
  });

  test('src/ makes every GatewayError through the table (no status written beside a code)', () => {
    const offenders = sourceFiles(join(root, 'src'))
      .filter((path) => !path.endsWith(join('common', 'errors.ts')))
      .filter((path) => /new GatewayError\(/.test(readFileSync(path, 'utf8')));
    assert.deepEqual(offenders, []);
  });

  test("every code in the errors page's cases table is in the table, with a status the table allows", () => {
    for (const [caseText, statusCell, codeCell] of tableRows(errorsSection(), 'Case')) {
      const named = [...(codeCell ?? '').matchAll(/`(ERR_[A-Z_]+)`/g)].map((match) => match[1]!);
      assert.ok(named.length > 0, `the row "${caseText}" names a code`);
      const statuses = [...(statusCell ?? '').matchAll(/\b[1-5]\d\d\b/g)].map((match) =>
        Number(match[0]),
      );
      for (const code of named) {
        assert.ok(
          isErrorCode(code),
          `${code} (docs/errors.md, "${caseText}") is in the error table`,
        );
        for (const status of statuses) {
          assert.ok(
            allowedStatuses(code).includes(status),
            `docs/errors.md answers ${code} with ${status} for "${caseText}"; the table allows ${allowedStatuses(code).join(', ')}`,
          );
        }
      }
    }
  });

  test("the errors page's code table lists every code of the table, as the table says it", () => {
    const rows = tableRows(errorsSection(), 'Code').map((cells) => `| ${cells.join(' | ')} |`);
    const expected = codes.map(codeRow);
    assert.deepEqual(
      rows,
      expected,
      `the errors page's code table should read:\n${expected.join('\n')}`,
    );
  });
});
