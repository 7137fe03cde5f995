// File I/O through the gateway (routes.md §12 fileio) on SQLite and PostgreSQL: uploads, downloads
// (ranges, Unicode names, anonymous reads of public files), saves and save-as, size limits, abandoned
// uploads leaving nothing behind, and every error code of the spec table with its context.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  eventually,
  multipart,
  multipartHead,
  multipartTail,
  multipartType,
  randomContent,
  rawRequest,
  startFileioGateway,
  type Answer,
  type FileioGateway,
} from '../support/fileio.ts';
import { requiredInCi } from '../support/gateway.ts';
import { pgDatabaseUrl } from '../support/postgres.ts';

const q = encodeURIComponent;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const MAX_UPLOAD = 8 * 1024 * 1024;
const MAX_EDIT = 2 * 1024 * 1024;

/** `filename*=UTF-8''…` of a Content-Disposition, decoded. */
function dispositionName(header: string | null): string | undefined {
  const match = /filename\*=UTF-8''([^;]+)/.exec(header ?? '');
  return match ? decodeURIComponent(match[1]!) : undefined;
}

function assertFileResult(answer: Answer, path: string, size: number): void {
  assert.equal(answer.status, 200, answer.text);
  const file = answer.body.file;
  assert.deepEqual(Object.keys(file).sort(), [
    'date-created',
    'date-modified',
    'file-size',
    'id',
    'label',
    'path',
    'permission',
  ]);
  assert.equal(file.id, path);
  assert.equal(file.path, path);
  assert.equal(file.label, path.slice(path.lastIndexOf('/') + 1));
  assert.equal(file.permission, 'own');
  assert.equal(file['file-size'], size);
}

const databaseUrl = requiredInCi('DATABASE_URL');

for (const engine of ['sqlite', 'postgres'] as const)
  describe(
    `file I/O (${engine})`,
    { skip: engine === 'postgres' && !databaseUrl ? 'DATABASE_URL is not set' : false },
    () => {
      let gw: FileioGateway;
      let alice: string;
      let pgDatabase: Awaited<ReturnType<typeof pgDatabaseUrl>> | undefined;

      before(async () => {
        pgDatabase = engine === 'postgres' ? await pgDatabaseUrl(databaseUrl!) : undefined;
        gw = await startFileioGateway({
          MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
          FILEIO_MAX_EDIT_BYTES: String(MAX_EDIT),
          ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}),
        });
        alice = gw.home('alice');
        // First sight of a user makes their home.
        await gw.call('alice', 'GET', '/secured/bootstrap');
        await gw.call('bob', 'GET', '/secured/bootstrap');
      });
      after(async () => {
        await gw.close();
        await pgDatabase?.drop();
      });

      test('upload answers the file result with times in seconds, and download gives the bytes back', async () => {
        const content = Buffer.from('hello, file I/O\n');
        const before = Math.floor(Date.now() / 1000);
        const answer = await gw.upload('alice', alice, 'hello.txt', content);
        const afterwards = Math.ceil(Date.now() / 1000);
        assertFileResult(answer, `${alice}/hello.txt`, content.length);
        const { file } = answer.body;
        for (const key of ['date-created', 'date-modified']) {
          assert.ok(Number.isInteger(file[key]), `${key} is whole seconds`);
          assert.ok(
            file[key] >= before - 1 && file[key] <= afterwards,
            `${key} ${file[key]} is seconds since the epoch, not ms`,
          );
        }
        const [row] = (await gw.rows(`${alice}/hello.txt`)) as Array<{
          created_at: number;
          modified_at: number;
        }>;
        assert.equal(
          file['date-created'],
          Math.floor(Number(row!.created_at) / 1000),
          'the store keeps ms; the result floors to seconds',
        );
        assert.equal(file['date-modified'], Math.floor(Number(row!.modified_at) / 1000));

        const download = await gw.call(
          'alice',
          'GET',
          `/secured/fileio/download?path=${q(`${alice}/hello.txt`)}`,
        );
        assert.equal(download.status, 200);
        assert.deepEqual(download.bytes, content);
        assert.equal(download.headers.get('content-type'), 'application/octet-stream');
        assert.match(
          download.headers.get('content-disposition') ?? '',
          /^attachment; filename="hello.txt"; filename\*=UTF-8''hello.txt$/,
        );
        assert.equal(download.headers.get('content-length'), String(content.length));
      });

      test('the unprefixed download takes anonymous callers (who read only what is public) and users', async () => {
        await gw.upload('alice', alice, 'private.txt', 'secret');
        const anonymous = await gw.call(
          null,
          'GET',
          `/fileio/download?path=${q(`${alice}/private.txt`)}`,
        );
        assert.equal(anonymous.status, 500);
        assert.equal(anonymous.body.error_code, 'ERR_NOT_READABLE');
        const owner = await gw.call(
          'alice',
          'GET',
          `/fileio/download?path=${q(`${alice}/private.txt`)}`,
        );
        assert.equal(owner.text, 'secret');
        const secured = await gw.call(
          null,
          'GET',
          `/secured/fileio/download?path=${q(`${alice}/private.txt`)}`,
        );
        assert.equal(
          secured.status,
          401,
          'the /secured form always wants a user, and 401 keeps its status',
        );
        const upload = await gw.upload(null, alice, 'x.txt', 'x', '/fileio/upload');
        assert.equal(upload.status, 401);
      });

      test('unicode names round-trip byte-exact, through upload, download and the disposition header', async () => {
        for (const name of [
          'résumé ✓ 日本語.txt',
          'emoji 🧬 data.fa',
          "it's & (1) + [2].csv",
          '100% 50% done.txt',
          'e\u0301 nfd.txt'.normalize('NFC'),
        ]) {
          const content = Buffer.from(`${name}\n`, 'utf8');
          const answer = await gw.upload('alice', alice, name, content);
          assertFileResult(answer, `${alice}/${name}`, content.length);
          const download = await gw.call(
            'alice',
            'GET',
            `/secured/fileio/download?path=${q(`${alice}/${name}`)}`,
          );
          assert.equal(download.status, 200, download.text);
          assert.deepEqual(download.bytes, content, name);
          assert.equal(dispositionName(download.headers.get('content-disposition')), name);
          assert.match(
            download.headers.get('content-disposition') ?? '',
            /^attachment; filename="[\x20-\x7e]*"; /,
            'the plain filename is ASCII',
          );
        }
      });

      test('a few MB stream through upload and download unchanged', async () => {
        const content = randomContent(5 * 1024 * 1024 + 3);
        const answer = await gw.upload('alice', alice, 'big.bin', content);
        assertFileResult(answer, `${alice}/big.bin`, content.length);
        const download = await gw.call(
          'alice',
          'GET',
          `/secured/fileio/download?path=${q(`${alice}/big.bin`)}`,
        );
        assert.equal(sha(download.bytes), sha(content));
      });

      test('download answers byte ranges', async () => {
        const content = Buffer.from('0123456789abcdefghij');
        await gw.upload('alice', alice, 'ranges.txt', content);
        const route = `/secured/fileio/download?path=${q(`${alice}/ranges.txt`)}`;
        const partial = await gw.call('alice', 'GET', route, { headers: { range: 'bytes=2-5' } });
        assert.equal(partial.status, 206);
        assert.equal(partial.text, '2345');
        assert.equal(partial.headers.get('content-range'), `bytes 2-5/${content.length}`);
        assert.equal(partial.headers.get('content-type'), 'application/octet-stream');
        const suffix = await gw.call('alice', 'GET', route, { headers: { range: 'bytes=-3' } });
        assert.equal(suffix.status, 206);
        assert.equal(suffix.text, 'hij');
        const whole = await gw.call('alice', 'GET', route);
        assert.equal(whole.headers.get('accept-ranges'), 'bytes');
        const outside = await gw.call('alice', 'GET', route, {
          headers: { range: 'bytes=100-200' },
        });
        assert.equal(outside.status, 416);
        assert.equal(outside.headers.get('content-range'), `bytes */${content.length}`);
      });

      test('display-download: attachment by default, inline with attachment=0, the stored content type either way', async () => {
        await gw.upload('alice', alice, 'page.html', '<h1>hi</h1>');
        const route = `/filesystem/display-download?path=${q(`${alice}/page.html`)}`;
        const attached = await gw.call('alice', 'GET', route);
        assert.equal(attached.status, 200);
        assert.equal(attached.text, '<h1>hi</h1>');
        assert.match(attached.headers.get('content-disposition') ?? '', /^attachment; /);
        assert.match(attached.headers.get('content-type') ?? '', /^text\/html/);
        const inline = await gw.call('alice', 'GET', `/secured${route}&attachment=0`);
        assert.match(inline.headers.get('content-disposition') ?? '', /^inline; /);
        assert.equal(inline.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(
          inline.headers.get('content-security-policy'),
          'sandbox',
          'stored HTML cannot run as a page of the gateway',
        );
      });

      test('a GET body of {} (as the web UI sends) is harmless, and may carry the path', async () => {
        await gw.upload('alice', alice, 'ui.txt', 'from the ui');
        const token = await gw.token('alice');
        for (const [route, body] of [
          [`/secured/fileio/download?path=${q(`${alice}/ui.txt`)}`, '{}'],
          ['/secured/fileio/download', JSON.stringify({ path: `${alice}/ui.txt` })],
        ] as const) {
          const result = await rawRequest(
            gw.running.url + route,
            {
              method: 'GET',
              headers: {
                authorization: `Bearer ${token}`,
                'content-type': 'application/json',
                'content-length': String(body.length),
              },
            },
            (request) => void request.end(body),
          );
          assert.equal(result.status, 200, result.body);
          assert.equal(result.body, 'from the ui');
        }
      });

      test('a folder is not downloadable', async () => {
        const answer = await gw.call('alice', 'GET', `/secured/fileio/download?path=${q(alice)}`);
        assert.equal(answer.status, 500);
        assert.equal(answer.body.error_code, 'ERR_NOT_A_FILE');
      });

      test('save overwrites, save-as creates, overwrite replaces with an upload', async () => {
        const created = await gw.call('alice', 'POST', '/secured/fileio/saveas', {
          json: { dest: `${alice}/notes.md`, content: '# v1 ✓\n' },
        });
        assertFileResult(created, `${alice}/notes.md`, Buffer.byteLength('# v1 ✓\n'));
        const saved = await gw.call('alice', 'POST', '/secured/fileio/save', {
          json: { dest: `${alice}/notes.md`, content: '# v2\n' },
        });
        assertFileResult(saved, `${alice}/notes.md`, 5);
        assert.equal(
          (await gw.call('alice', 'GET', `/fileio/download?path=${q(`${alice}/notes.md`)}`)).text,
          '# v2\n',
        );

        const replaced = await gw.call(
          'alice',
          'POST',
          `/secured/fileio/overwrite?dest=${q(`${alice}/notes.md`)}`,
          { raw: multipart('ignored.bin', 'v3 bytes'), headers: { 'content-type': multipartType } },
        );
        assertFileResult(replaced, `${alice}/notes.md`, 8);
        assert.equal(
          (await gw.call('alice', 'GET', `/fileio/download?path=${q(`${alice}/notes.md`)}`)).text,
          'v3 bytes',
        );

        const empty = await gw.call('alice', 'POST', '/fileio/saveas', {
          json: { dest: `${alice}/empty.txt`, content: '' },
        });
        assertFileResult(empty, `${alice}/empty.txt`, 0);
        const emptyDownload = await gw.call(
          'alice',
          'GET',
          `/fileio/download?path=${q(`${alice}/empty.txt`)}`,
        );
        assert.equal(emptyDownload.status, 200);
        assert.equal(emptyDownload.bytes.length, 0);
      });

      test('the maximum edit size counts UTF-8 bytes', async () => {
        await gw.call('alice', 'POST', '/secured/fileio/saveas', {
          json: { dest: `${alice}/limit.txt`, content: 'x' },
        });
        const fits = 'é'.repeat(MAX_EDIT / 2);
        assert.equal(
          (
            await gw.call('alice', 'POST', '/secured/fileio/save', {
              json: { dest: `${alice}/limit.txt`, content: fits },
            })
          ).status,
          200,
        );
        const over = await gw.call('alice', 'POST', '/secured/fileio/save', {
          json: { dest: `${alice}/limit.txt`, content: `${fits}x` },
        });
        assert.equal(over.status, 500);
        assert.equal(over.body.error_code, 'ERR_FILE_SIZE_TOO_LARGE');
        const wayOver = await gw.call('alice', 'POST', '/secured/fileio/save', {
          json: { dest: `${alice}/limit.txt`, content: '\u0001'.repeat(MAX_EDIT * 2) },
        });
        assert.equal(
          wayOver.status,
          500,
          'a body over every limit is still the content being too large',
        );
        assert.equal(wayOver.body.error_code, 'ERR_FILE_SIZE_TOO_LARGE');
        const download = await gw.call(
          'alice',
          'GET',
          `/fileio/download?path=${q(`${alice}/limit.txt`)}`,
        );
        assert.equal(download.text, fits, 'refused saves change nothing');
      });

      test('two concurrent saves to one path never tear the file', async () => {
        const a = 'A'.repeat(MAX_EDIT - 10);
        const b = 'b'.repeat(MAX_EDIT - 10);
        await gw.call('alice', 'POST', '/secured/fileio/saveas', {
          json: { dest: `${alice}/race.txt`, content: 'start' },
        });
        for (let round = 0; round < 5; round++) {
          const answers = await Promise.all(
            [a, b, a, b].map((content) =>
              gw.call('alice', 'POST', '/secured/fileio/save', {
                json: { dest: `${alice}/race.txt`, content },
              }),
            ),
          );
          for (const answer of answers) assert.equal(answer.status, 200, answer.text);
          const { text } = await gw.call(
            'alice',
            'GET',
            `/fileio/download?path=${q(`${alice}/race.txt`)}`,
          );
          assert.ok(
            text === a || text === b,
            `round ${round}: the file is exactly one of the saved contents`,
          );
        }
      });

      test('an upload over MAX_UPLOAD_BYTES is 413 and leaves nothing behind', async () => {
        const exact = await gw.upload('alice', alice, 'exactly-max.bin', randomContent(MAX_UPLOAD));
        assertFileResult(exact, `${alice}/exactly-max.bin`, MAX_UPLOAD);
        const before = gw.blobFiles();
        // One byte over: the multipart framing fits the gateway's allowance, the store finds the file too large.
        const justOver = await gw.upload(
          'alice',
          alice,
          'too-big.bin',
          randomContent(MAX_UPLOAD + 1),
        );
        assert.equal(justOver.status, 413, justOver.text);
        assert.equal(justOver.body.error_code, 'ERR_REQUEST_BODY_TOO_LARGE');
        const content = randomContent(MAX_UPLOAD + 2 * 1024 * 1024);
        const declared = await gw.upload('alice', alice, 'too-big.bin', content);
        assert.equal(declared.status, 413);
        assert.equal(declared.body.error_code, 'ERR_REQUEST_BODY_TOO_LARGE');

        // Without a Content-Length the limit is found while streaming.
        const token = await gw.token('alice');
        const streamed = await rawRequest(
          `${gw.running.url}/secured/fileio/upload?dest=${q(alice)}`,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': multipartType,
              'transfer-encoding': 'chunked',
            },
          },
          async (request) => {
            request.write(multipartHead('too-big.bin'));
            for (let sent = 0; sent < content.length; sent += 256 * 1024) {
              if (!request.write(content.subarray(sent, sent + 256 * 1024)))
                await new Promise((resolve) => request.once('drain', resolve));
              if (request.destroyed) return;
            }
            request.end(multipartTail);
          },
        );
        assert.ok(
          streamed.status === 413 || streamed.error,
          `413 or a closed connection, got ${streamed.status}`,
        );
        if (streamed.status)
          assert.equal(JSON.parse(streamed.body).error_code, 'ERR_REQUEST_BODY_TOO_LARGE');

        assert.deepEqual(await gw.rows(`${alice}/too-big.bin`), []);
        await eventually(() => gw.blobFiles().tmp === 0, 5_000, 'temporary files to go');
        assert.deepEqual(gw.blobFiles(), before);
      });

      test('an upload the client abandons midway leaves no catalog row and no blob', async () => {
        const before = gw.blobFiles();
        const token = await gw.token('alice');
        const result = await rawRequest(
          `${gw.running.url}/secured/fileio/upload?dest=${q(alice)}`,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': multipartType,
              'content-length': String(4 * 1024 * 1024),
            },
          },
          async (request) => {
            request.write(multipartHead('abandoned.bin'));
            request.write(randomContent(1024 * 1024));
            await new Promise((resolve) => setTimeout(resolve, 200));
            request.destroy();
          },
        );
        assert.ok(result.error, 'the client went away');
        // The store notices the aborted body; give it a moment.
        await eventually(
          async () =>
            gw.blobFiles().tmp === 0 && (await gw.rows(`${alice}/abandoned.bin`)).length === 0,
          5_000,
          'the abandoned upload to be cleaned up',
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.deepEqual(await gw.rows(`${alice}/abandoned.bin`), []);
        assert.deepEqual(gw.blobFiles(), before);
        // The gateway still works.
        assert.equal((await gw.upload('alice', alice, 'after-abandon.txt', 'fine')).status, 200);
      });

      describe('every error code of the spec table, answered 500 with {error_code, ...context}', () => {
        type Case = [
          endpoint: string,
          code: string,
          send: () => Promise<Answer>,
          context?: Record<string, unknown>,
        ];
        const cases: Case[] = [];
        const bad = { raw: '{"dest": ', headers: { 'content-type': 'application/json' } };
        // fetch refuses GET bodies; the web UI's proxy sends one (`{}`) with every call.
        const getWithBody = async (user: string, route: string, body: string): Promise<Answer> => {
          const result = await rawRequest(
            gw.running.url + route,
            {
              method: 'GET',
              headers: {
                authorization: `Bearer ${await gw.token(user)}`,
                'content-type': 'application/json',
                'content-length': String(Buffer.byteLength(body)),
              },
            },
            (request) => void request.end(body),
          );
          return {
            status: result.status ?? 0,
            headers: new Headers(result.headers as Record<string, string>),
            text: result.body,
            bytes: Buffer.from(result.body),
            body: JSON.parse(result.body || 'null'),
          };
        };
        before(async () => {
          await gw.upload('alice', alice, 'exists.txt', 'exists');
          await gw.upload('alice', alice, 'readable.txt', 'bob may read this');
          const shared = await gw.call('alice', 'POST', '/secured/share', {
            json: {
              sharing: [
                { user: 'bob', paths: [{ path: `${alice}/readable.txt`, permission: 'read' }] },
              ],
            },
          });
          assert.equal(shared.body?.sharing?.[0]?.sharing?.[0]?.success, true, shared.text);
          assert.equal(
            (await gw.call('bob', 'GET', `/fileio/download?path=${q(`${alice}/readable.txt`)}`))
              .text,
            'bob may read this',
          );
        });

        for (const [endpoint, route] of [
          ['download', '/secured/fileio/download'],
          ['display-download', '/secured/filesystem/display-download'],
        ] as const) {
          cases.push(
            [
              endpoint,
              'ERR_INVALID_JSON',
              () => getWithBody('alice', `${route}?path=${q(`${alice}/exists.txt`)}`, '{"path": '),
            ],
            [
              endpoint,
              'ERR_BAD_OR_MISSING_FIELD',
              () => gw.call('alice', 'GET', `${route}?path=${q('/elsewhere/home/alice/x')}`),
            ],
            [
              endpoint,
              'ERR_BAD_OR_MISSING_FIELD',
              () => gw.call('alice', 'GET', `${route}?path=${q(`${alice}/../bob/x`)}`),
            ],
            [endpoint, 'ERR_MISSING_QUERY_PARAMETER', () => gw.call('alice', 'GET', route)],
            [
              endpoint,
              'ERR_NOT_A_USER',
              () => gw.call('shared', 'GET', `${route}?path=${q(`${alice}/exists.txt`)}`),
            ],
            [
              endpoint,
              'ERR_DOES_NOT_EXIST',
              () => gw.call('alice', 'GET', `${route}?path=${q(`${alice}/missing.txt`)}`),
            ],
            [
              endpoint,
              'ERR_NOT_READABLE',
              () => gw.call('bob', 'GET', `${route}?path=${q(`${alice}/exists.txt`)}`),
            ],
          );
        }
        cases.push(
          [
            'upload',
            'ERR_MISSING_FORM_FIELD',
            () =>
              gw.call('alice', 'POST', `/secured/fileio/upload?dest=${q(alice)}`, {
                raw: multipart('x.txt', 'x', 'other'),
                headers: { 'content-type': multipartType },
              }),
          ],
          [
            'upload',
            'ERR_MISSING_FORM_FIELD',
            () =>
              gw.call('alice', 'POST', `/secured/fileio/upload?dest=${q(alice)}`, {
                raw: 'plain bytes',
                headers: { 'content-type': 'text/plain' },
              }),
          ],
          [
            'upload',
            'ERR_MISSING_QUERY_PARAMETER',
            () =>
              gw.call('alice', 'POST', '/secured/fileio/upload', {
                raw: multipart('x.txt', 'x'),
                headers: { 'content-type': multipartType },
              }),
          ],
          ['upload', 'ERR_NOT_A_USER', () => gw.upload('shared', alice, 'x.txt', 'x')],
          [
            'upload',
            'ERR_DOES_NOT_EXIST',
            () => gw.upload('alice', `${alice}/no-such-folder`, 'x.txt', 'x'),
          ],
          ['upload', 'ERR_NOT_WRITEABLE', () => gw.upload('bob', alice, 'x.txt', 'x')],
          ['upload', 'ERR_EXISTS', () => gw.upload('alice', alice, 'exists.txt', 'again')],
          ['save', 'ERR_INVALID_JSON', () => gw.call('alice', 'POST', '/secured/fileio/save', bad)],
          [
            'save',
            'ERR_BAD_OR_MISSING_FIELD',
            () =>
              gw.call('alice', 'POST', '/secured/fileio/save', {
                json: { dest: `${alice}/exists.txt` },
              }),
          ],
          [
            'save',
            'ERR_BAD_OR_MISSING_FIELD',
            () =>
              gw.call('alice', 'POST', '/secured/fileio/save', {
                json: { dest: 'exists.txt', content: 'x' },
              }),
          ],
          [
            'save',
            'ERR_NOT_A_USER',
            () =>
              gw.call('shared', 'POST', '/secured/fileio/save', {
                json: { dest: `${alice}/exists.txt`, content: 'x' },
              }),
          ],
          [
            'save',
            'ERR_DOES_NOT_EXIST',
            () =>
              gw.call('alice', 'POST', '/secured/fileio/save', {
                json: { dest: `${alice}/missing.txt`, content: 'x' },
              }),
          ],
          [
            'save',
            'ERR_NOT_WRITEABLE',
            () =>
              gw.call('bob', 'POST', '/secured/fileio/save', {
                json: { dest: `${alice}/readable.txt`, content: 'x' },
              }),
          ],
          [
            'save',
            'ERR_NOT_WRITEABLE',
            () =>
              gw.call('bob', 'POST', '/secured/fileio/save', {
                json: { dest: `${alice}/exists.txt`, content: 'x' },
              }),
          ],
          [
            'save',
            'ERR_FILE_SIZE_TOO_LARGE',
            () =>
              gw.call('alice', 'POST', '/secured/fileio/save', {
                json: { dest: `${alice}/exists.txt`, content: 'x'.repeat(MAX_EDIT + 1) },
              }),
          ],
          [
            'saveas',
            'ERR_INVALID_JSON',
            () => gw.call('alice', 'POST', '/secured/fileio/saveas', bad),
          ],
          [
            'saveas',
            'ERR_BAD_OR_MISSING_FIELD',
            () => gw.call('alice', 'POST', '/secured/fileio/saveas', { json: { content: 'x' } }),
          ],
          [
            'saveas',
            'ERR_BAD_OR_MISSING_FIELD',
            () =>
              gw.call('alice', 'POST', '/secured/fileio/saveas', {
                json: { dest: `${alice}/bad\u0000name`, content: 'x' },
              }),
          ],
          [
            'saveas',
            'ERR_NOT_A_USER',
            () =>
              gw.call('shared', 'POST', '/secured/fileio/saveas', {
                json: { dest: `${alice}/new.txt`, content: 'x' },
              }),
          ],
          [
            'saveas',
            'ERR_DOES_NOT_EXIST',
            () =>
              gw.call('alice', 'POST', '/secured/fileio/saveas', {
                json: { dest: `${alice}/no-such-folder/new.txt`, content: 'x' },
              }),
          ],
          [
            'saveas',
            'ERR_NOT_WRITEABLE',
            () =>
              gw.call('bob', 'POST', '/secured/fileio/saveas', {
                json: { dest: `${alice}/new.txt`, content: 'x' },
              }),
          ],
          [
            'saveas',
            'ERR_EXISTS',
            () =>
              gw.call('alice', 'POST', '/secured/fileio/saveas', {
                json: { dest: `${alice}/exists.txt`, content: 'x' },
              }),
          ],
          [
            'overwrite',
            'ERR_MISSING_QUERY_PARAMETER',
            () =>
              gw.call('alice', 'POST', '/secured/fileio/overwrite', {
                raw: multipart('x', 'x'),
                headers: { 'content-type': multipartType },
              }),
          ],
          [
            'overwrite',
            'ERR_DOES_NOT_EXIST',
            () =>
              gw.call(
                'alice',
                'POST',
                `/secured/fileio/overwrite?dest=${q(`${alice}/missing.txt`)}`,
                { raw: multipart('x', 'x'), headers: { 'content-type': multipartType } },
              ),
          ],
          [
            'overwrite',
            'ERR_NOT_WRITEABLE',
            () =>
              gw.call(
                'bob',
                'POST',
                `/secured/fileio/overwrite?dest=${q(`${alice}/readable.txt`)}`,
                { raw: multipart('x', 'x'), headers: { 'content-type': multipartType } },
              ),
          ],
          [
            'overwrite',
            'ERR_NOT_WRITEABLE',
            () =>
              gw.call('bob', 'POST', `/secured/fileio/overwrite?dest=${q(`${alice}/exists.txt`)}`, {
                raw: multipart('x', 'x'),
                headers: { 'content-type': multipartType },
              }),
          ],
          [
            'overwrite',
            'ERR_MISSING_FORM_FIELD',
            () =>
              gw.call(
                'alice',
                'POST',
                `/secured/fileio/overwrite?dest=${q(`${alice}/exists.txt`)}`,
                { raw: multipart('x', 'x', 'other'), headers: { 'content-type': multipartType } },
              ),
          ],
          [
            'overwrite',
            'ERR_NOT_A_USER',
            () =>
              gw.call(
                'shared',
                'POST',
                `/secured/fileio/overwrite?dest=${q(`${alice}/exists.txt`)}`,
                { raw: multipart('x', 'x'), headers: { 'content-type': multipartType } },
              ),
          ],
        );

        for (const [endpoint, code, send, context] of cases) {
          test(`${endpoint}: ${code}`, async () => {
            const answer = await send();
            assert.equal(answer.status, 500, `${endpoint} ${code}: ${answer.text}`);
            assert.equal(answer.headers.get('content-type')?.split(';')[0], 'application/json');
            assert.equal(answer.body.error_code, code, answer.text);
            for (const [key, value] of Object.entries(context ?? {}))
              assert.deepEqual(answer.body[key], value);
          });
        }

        test('the failed writes changed nothing', async () => {
          assert.equal(
            (await gw.call('alice', 'GET', `/fileio/download?path=${q(`${alice}/exists.txt`)}`))
              .text,
            'exists',
          );
          assert.equal(
            (await gw.call('alice', 'GET', `/fileio/download?path=${q(`${alice}/readable.txt`)}`))
              .text,
            'bob may read this',
          );
          assert.deepEqual(await gw.rows(`${alice}/new.txt`), []);
          assert.deepEqual(await gw.rows(`${alice}/x.txt`), []);
        });
      });
    },
  );
