// Uploads to the embedded data-info service (backends.md §2.1, §2.7): multipart and raw bodies,
// the checks before any byte is stored, the size limit, and what a failed, aborted or racing
// upload leaves behind (nothing: no blob, no temporary file, no catalog row); overwrites that
// keep bytes and catalog in step under concurrency. Real HTTP, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { backendSecretHeader } from '../../../src/embedded/host.ts';
import { parseAnswer, secret, withUser, type HttpAnswer } from '../../support/backend-host.ts';
import { engines, home, multipartBody, type DataInfoHost } from '../../support/data-info-host.ts';

const enc = encodeURIComponent;
const md5 = (content: string | Buffer) => createHash('md5').update(content).digest('hex');
const LIMIT = 64 * 1024;

/** An upload whose body the test writes piece by piece (chunked transfer encoding). */
interface OpenUpload {
  request: ClientRequest;
  answer: Promise<HttpAnswer>;
}

function openUpload(
  service: DataInfoHost,
  method: string,
  url: string,
  user: string,
  headers: Record<string, string>,
): OpenUpload {
  let request!: ClientRequest;
  const answer = new Promise<HttpAnswer>((resolve, reject) => {
    request = httpRequest(
      {
        host: '127.0.0.1',
        port: service.port,
        method,
        path: withUser(`/data-info${url}`, user),
        headers: { [backendSecretHeader]: secret, ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve(parseAnswer(response.statusCode ?? 0, response.headers, Buffer.concat(chunks))),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
  return { request, answer };
}

async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

for (const engine of engines) {
  describe(`data-info uploads on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    const s = () => service!;
    const a = home('alice');
    const b = home('bob');

    const raw = (
      user: string,
      dest: string,
      filename: string,
      content: string | Buffer,
      contentType = 'application/octet-stream',
    ) =>
      s().send('POST', `/data?dest=${enc(dest)}&filename=${enc(filename)}`, user, {
        body: content,
        headers: { 'content-type': contentType },
      });
    const form = (
      user: string,
      dest: string,
      filename: string,
      content: string | Buffer,
      field = 'file',
    ) => {
      const { body, contentType } = multipartBody(filename, content, field);
      return s().send('POST', `/data?dest=${enc(dest)}`, user, {
        body,
        headers: { 'content-type': contentType },
      });
    };
    const rows = async (prefix: string) =>
      (await s().store.db.selectFrom('data_objects').select('path').execute())
        .map((row) => row.path)
        .filter((p) => p.startsWith(prefix));
    /** Bytes on disk of an object, read straight from DATA_STORE_DIR (its blob: blob_id, else its id). */
    const onDisk = async (id: string) => {
      const row = await s()
        .store.db.selectFrom('data_objects')
        .select('blob_id')
        .where('id', '=', id)
        .executeTakeFirst();
      const blob = row?.blob_id ?? id;
      return readFileSync(path.join(s().blobDir, 'objects', blob.slice(0, 2), blob));
    };
    const assertNothingLeft = async (filePath: string, objectsBefore: number) => {
      assert.equal(await s().object(filePath), undefined, 'no catalog row');
      const files = s().blobFiles();
      assert.deepEqual(files.tmp, [], 'no temporary file');
      assert.equal(files.objects.length, objectsBefore, 'no new blob');
    };

    before(async () => {
      service = await engine.open(LIMIT);
      if (!service) return;
      for (const user of ['alice', 'bob'])
        assert.equal((await s().send('GET', '/navigation/home', user)).status, 200);
      assert.equal(
        (
          await s().send('POST', '/data/directories', 'bob', {
            json: { paths: [`${b}/inbox`, `${b}/readonly`] },
          })
        ).status,
        200,
      );
      await s().grant(`${b}/inbox`, 'alice', 'write');
      await s().grant(`${b}/readonly`, 'alice', 'read');
    });
    after(async () => service?.close());

    test('multipart upload: UTF-8 name kept (NFC), bytes, checksum, types, owner', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const decomposed = 'Ergebnisse-Mu\u0308ller 東京 🧬.fastq';
      const content = '@read1\nACGT\n+\n!!!!\n';
      const answer = await form('alice', a, decomposed, content);
      assert.equal(answer.status, 200, answer.text);
      const stat = answer.json().file;
      const expectedPath = `${a}/${decomposed.normalize('NFC')}`;
      assert.equal(stat.path, expectedPath);
      assert.equal(stat.label, decomposed.normalize('NFC'));
      assert.equal(stat.type, 'file');
      assert.equal(stat['file-size'], Buffer.byteLength(content));
      assert.equal(stat.md5, md5(content));
      assert.equal(stat.infoType, 'fastq');
      assert.equal(stat['content-type'], 'text/plain');
      assert.equal(stat.permission, 'own');
      assert.equal(stat['share-count'], 0);
      for (const key of ['id', 'date-created', 'date-modified'])
        assert.ok(stat[key] !== undefined, key);
      assert.equal((await onDisk(stat.id)).toString(), content);
      const row = (await s().object(expectedPath))!;
      assert.equal(row.owner, 'alice');
      assert.equal(row.id, stat.id);
      assert.equal(await s().catalog.permission('alice', expectedPath), 'own');

      // Other fields and file parts under other names are skipped; only `file` counts.
      const boundary = 'xyzBOUNDARY';
      const body = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="other"; filename="other.txt"\r\n\r\nOTHER\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="picked.txt"\r\nContent-Type: text/plain\r\n\r\nPICKED\r\n--${boundary}--\r\n`,
      );
      const picked = await s().send('POST', `/data?dest=${enc(a)}`, 'alice', {
        body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      assert.equal(picked.status, 200, picked.text);
      assert.equal(picked.json().file.path, `${a}/picked.txt`);
      assert.equal((await onDisk(picked.json().file.id)).toString(), 'PICKED');
      assert.equal(await s().object(`${a}/other.txt`), undefined);
    });

    test('raw upload: any content type is the bytes, named by the filename parameter; empty files too', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const json = '{"not": "parsed"}';
      const answer = await raw('alice', a, 'data.json', json, 'application/json');
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json().file['content-type'], 'application/json');
      assert.equal(answer.json().file.infoType, 'json');
      assert.equal((await onDisk(answer.json().file.id)).toString(), json);

      const textBody = await raw('alice', a, 'notes.txt', 'some text', 'text/plain; charset=utf-8');
      assert.equal(textBody.status, 200, textBody.text);
      assert.equal(textBody.json().file.infoType, 'txt');

      const empty = await raw('alice', a, 'empty.csv', '');
      assert.equal(empty.status, 200, empty.text);
      assert.equal(empty.json().file['file-size'], 0);
      assert.equal(empty.json().file.md5, md5(''));
      assert.equal((await onDisk(empty.json().file.id)).length, 0);
      const emptyForm = await form('alice', a, 'empty-form.txt', '');
      assert.equal(emptyForm.status, 200, emptyForm.text);
      assert.equal(emptyForm.json().file['file-size'], 0);

      // Into bob's folder shared with write: the new file is alice's.
      const shared = await raw('alice', `${b}/inbox`, 'from-alice.txt', 'hi bob');
      assert.equal(shared.status, 200, shared.text);
      assert.equal(shared.json().file.permission, 'own');
      assert.equal((await s().object(`${b}/inbox/from-alice.txt`))?.owner, 'alice');
      assert.equal(
        await s().catalog.permission('bob', `${b}/inbox/from-alice.txt`),
        'own',
        'the home owner still owns what lies in the home',
      );
    });

    test('upload refusals: each check names what is wrong, and nothing is stored', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      await raw('alice', a, 'taken.txt', 'first');
      const before = s().blobFiles().objects.length;
      const cases: [string, () => Promise<HttpAnswer>, number, string, Record<string, unknown>?][] =
        [
          [
            'no dest',
            () => s().send('POST', '/data?filename=x.txt', 'alice', { body: 'x' }),
            400,
            'ERR_MISSING_QUERY_PARAMETER',
          ],
          [
            'dest missing',
            () => raw('alice', `${a}/nowhere`, 'x.txt', 'x'),
            404,
            'ERR_DOES_NOT_EXIST',
            { path: `${a}/nowhere` },
          ],
          [
            'dest a file',
            () => raw('alice', `${a}/taken.txt`, 'x.txt', 'x'),
            400,
            'ERR_NOT_A_FOLDER',
          ],
          [
            'dest not writeable',
            () => raw('alice', `${b}/readonly`, 'x.txt', 'x'),
            403,
            'ERR_NOT_WRITEABLE',
          ],
          ['dest of another', () => raw('alice', b, 'x.txt', 'x'), 403, 'ERR_NOT_WRITEABLE'],
          [
            'dest outside the zone',
            () => raw('alice', '/other/home', 'x.txt', 'x'),
            400,
            'ERR_BAD_OR_MISSING_FIELD',
          ],
          [
            'no filename',
            () =>
              s().send('POST', `/data?dest=${enc(a)}`, 'alice', {
                body: 'x',
                headers: { 'content-type': 'text/plain' },
              }),
            400,
            'ERR_MISSING_QUERY_PARAMETER',
          ],
          ['slash in name', () => raw('alice', a, 'a/b.txt', 'x'), 400, 'ERR_BAD_OR_MISSING_FIELD'],
          ['dot-dot name', () => raw('alice', a, '..', 'x'), 400, 'ERR_BAD_OR_MISSING_FIELD'],
          [
            'control character',
            () => raw('alice', a, 'a\u0001b', 'x'),
            400,
            'ERR_BAD_OR_MISSING_FIELD',
          ],
          [
            'target exists',
            () => raw('alice', a, 'taken.txt', 'second'),
            409,
            'ERR_EXISTS',
            { path: `${a}/taken.txt` },
          ],
          [
            'target exists (multipart)',
            () => form('alice', a, 'taken.txt', 'second'),
            409,
            'ERR_EXISTS',
            { path: `${a}/taken.txt` },
          ],
          [
            'no file part',
            () => form('alice', a, 'x.txt', 'x', 'upload'),
            400,
            'ERR_MISSING_FORM_FIELD',
          ],
          ['anonymous', () => raw('anonymous', a, 'x.txt', 'x'), 404, 'ERR_NOT_A_USER'],
          [
            'no user',
            () => s().send('POST', `/data?dest=${enc(a)}&filename=x.txt`, undefined, { body: 'x' }),
            400,
            'ERR_MISSING_QUERY_PARAMETER',
          ],
          [
            'broken multipart',
            () =>
              s().send('POST', `/data?dest=${enc(a)}`, 'alice', {
                body: 'garbage',
                headers: { 'content-type': 'multipart/form-data' },
              }),
            400,
            'ERR_BAD_OR_MISSING_FIELD',
          ],
        ];
      for (const [what, run, status, code, extra] of cases) {
        const answer = await run();
        assert.equal(answer.status, status, `${what}: ${answer.text}`);
        assert.equal(answer.json().error_code, code, what);
        for (const [key, value] of Object.entries(extra ?? {}))
          assert.deepEqual(answer.json()[key], value, `${what}: ${key}`);
      }
      assert.equal(
        (await onDisk((await s().object(`${a}/taken.txt`))!.id)).toString(),
        'first',
        'the existing file is untouched',
      );
      assert.equal(s().blobFiles().objects.length, before);
      assert.deepEqual(s().blobFiles().tmp, []);
      assert.deepEqual(await rows(`${a}/x.txt`), []);
    });

    test('the size limit: 413 up front by Content-Length, or while streaming; nothing kept', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const before = s().blobFiles().objects.length;
      const atLimit = await raw('alice', a, 'exactly.bin', Buffer.alloc(LIMIT, 1));
      assert.equal(atLimit.status, 200, atLimit.text);
      assert.equal(atLimit.json().file['file-size'], LIMIT);

      const declared = await raw('alice', a, 'declared.bin', Buffer.alloc(LIMIT + 1, 1));
      assert.equal(declared.status, 413);
      assert.equal(declared.json().error_code, 'ERR_REQUEST_BODY_TOO_LARGE');
      await assertNothingLeft(`${a}/declared.bin`, before + 1);

      // Chunked: no Content-Length, so the limit is found while the bytes stream in.
      const chunked = openUpload(
        s(),
        'POST',
        `/data?dest=${enc(a)}&filename=streamed.bin`,
        'alice',
        { 'content-type': 'application/octet-stream' },
      );
      for (let sent = 0; sent <= LIMIT; sent += 8192) chunked.request.write(Buffer.alloc(8192, 2));
      chunked.request.end();
      const streamed = await chunked.answer;
      assert.equal(streamed.status, 413, streamed.text);
      assert.equal(streamed.json().error_code, 'ERR_REQUEST_BODY_TOO_LARGE');
      await assertNothingLeft(`${a}/streamed.bin`, before + 1);

      // Multipart over the limit (its Content-Length is within the multipart allowance).
      const big = await form('alice', a, 'big-form.bin', Buffer.alloc(LIMIT + 100, 3));
      assert.equal(big.status, 413, big.text);
      assert.equal(big.json().error_code, 'ERR_REQUEST_BODY_TOO_LARGE');
      await assertNothingLeft(`${a}/big-form.bin`, before + 1);

      const file = (await s().object(`${a}/exactly.bin`))!;
      const overwrite = await s().send('PUT', `/data/${file.id}`, 'alice', {
        body: Buffer.alloc(LIMIT + 1, 4),
      });
      assert.equal(overwrite.status, 413);
      assert.deepEqual(
        await onDisk(file.id),
        Buffer.alloc(LIMIT, 1),
        'a refused overwrite keeps the old bytes',
      );
    });

    test('a client that disconnects mid-upload leaves no blob, temporary file or row', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const before = s().blobFiles().objects.length;
      for (const kind of ['raw', 'multipart'] as const) {
        const name = `aborted-${kind}.bin`;
        const boundary = 'abortBOUNDARY';
        const upload =
          kind === 'raw'
            ? openUpload(s(), 'POST', `/data?dest=${enc(a)}&filename=${name}`, 'alice', {
                'content-type': 'application/octet-stream',
              })
            : openUpload(s(), 'POST', `/data?dest=${enc(a)}`, 'alice', {
                'content-type': `multipart/form-data; boundary=${boundary}`,
              });
        upload.answer.catch(() => {}); // the connection dies
        if (kind === 'multipart') {
          upload.request.write(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n`,
          );
        }
        upload.request.write(Buffer.alloc(16 * 1024, 5));
        // The upload is under way once its temporary file exists.
        await until(`the ${kind} upload to start`, () => s().blobFiles().tmp.length === 1);
        upload.request.destroy();
        await until(`the ${kind} upload to be cleaned up`, () => s().blobFiles().tmp.length === 0);
        await sleep(50);
        await assertNothingLeft(`${a}/${name}`, before);
      }
      // The service is still fine.
      assert.equal((await raw('alice', a, 'after-abort.txt', 'ok')).status, 200);
    });

    test('two uploads racing for one name: one wins, the other leaves nothing', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const before = s().blobFiles().objects.length;
      const url = `/data?dest=${enc(a)}&filename=race.txt`;
      const uploads = [0, 1].map(() =>
        openUpload(s(), 'POST', url, 'alice', { 'content-type': 'text/plain' }),
      );
      uploads.forEach((upload, index) => upload.request.write(`upload ${index} `));
      // Both have passed every check and are writing their bytes when neither is finished.
      await until('both uploads to be streaming', () => s().blobFiles().tmp.length === 2);
      uploads.forEach((upload, index) => upload.request.end(`ends ${index}`));
      const answers = await Promise.all(uploads.map((upload) => upload.answer));
      assert.deepEqual(
        answers.map((answer) => answer.status).sort(),
        [200, 409],
        answers.map((answer) => answer.text).join(' | '),
      );
      const winner = answers.find((answer) => answer.status === 200)!.json().file;
      const loser = answers.find((answer) => answer.status === 409)!.json();
      assert.equal(loser.error_code, 'ERR_EXISTS');
      assert.equal(loser.path, `${a}/race.txt`);
      assert.deepEqual(await rows(`${a}/race.txt`), [`${a}/race.txt`]);
      assert.equal((await s().object(`${a}/race.txt`))!.id, winner.id);
      const files = s().blobFiles();
      assert.equal(files.objects.length, before + 1, "the loser's blob is gone");
      assert.deepEqual(files.tmp, []);
      assert.equal(md5(await onDisk(winner.id)), winner.md5);
    });

    test('overwrite: new bytes, size, checksum and modified time; the kind and level checked', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const created = (await raw('alice', a, 'edit.txt', 'version one')).json().file;
      const objectsBefore = s().blobFiles().objects.length;
      await sleep(5);
      const replaced = await s().send('PUT', `/data/${created.id}`, 'alice', {
        body: 'version two, longer',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(replaced.status, 200, replaced.text);
      const stat = replaced.json().file;
      assert.equal(stat.id, created.id);
      assert.equal(stat.path, created.path);
      assert.equal(stat['file-size'], 19);
      assert.equal(stat.md5, md5('version two, longer'));
      assert.ok(stat['date-modified'] > created['date-modified'], 'modified time bumped');
      assert.equal(stat['date-created'], created['date-created']);
      assert.equal((await onDisk(created.id)).toString(), 'version two, longer');
      assert.equal(
        s().blobFiles().objects.length,
        objectsBefore,
        'the new bytes are a blob of their own; the replaced one is removed',
      );

      const { body, contentType } = multipartBody('ignored-name.txt', 'version three');
      const viaForm = await s().send('PUT', `/data/${created.id}`, 'alice', {
        body,
        headers: { 'content-type': contentType },
      });
      assert.equal(viaForm.status, 200, viaForm.text);
      assert.equal(viaForm.json().file.path, created.path, 'an overwrite never renames');
      assert.equal((await onDisk(created.id)).toString(), 'version three');

      const emptied = await s().send('PUT', `/data/${created.id}`, 'alice', { body: '' });
      assert.equal(emptied.json().file['file-size'], 0);

      const folder = (await s().object(a))!;
      assert.equal(
        (await s().send('PUT', `/data/${folder.id}`, 'alice', { body: 'x' })).json().error_code,
        'ERR_NOT_A_FILE',
      );
      assert.equal(
        (await s().send('PUT', `/data/${created.id}`, 'bob', { body: 'x' })).json().error_code,
        'ERR_NOT_WRITEABLE',
      );
      assert.equal(
        (
          await s().send('PUT', '/data/00000000-0000-4000-8000-000000000000', 'alice', {
            body: 'x',
          })
        ).json().error_code,
        'ERR_DOES_NOT_EXIST',
      );
      assert.equal(
        (await s().send('PUT', '/data/not-an-id', 'alice', { body: 'x' })).json().error_code,
        'ERR_DOES_NOT_EXIST',
      );
      const bobsShared = (await raw('bob', `${b}/readonly`, 'look.txt', 'look only')).json().file;
      assert.equal(
        (await s().send('PUT', `/data/${bobsShared.id}`, 'alice', { body: 'x' })).json().error_code,
        'ERR_NOT_WRITEABLE',
      );
      const bobsInbox = (await raw('bob', `${b}/inbox`, 'edit-me.txt', 'draft')).json().file;
      const edited = await s().send('PUT', `/data/${bobsInbox.id}`, 'alice', {
        body: 'edited by alice',
      });
      assert.equal(edited.status, 200, edited.text);
      assert.equal(edited.json().file.permission, 'write');
      assert.equal((await onDisk(bobsInbox.id)).toString(), 'edited by alice');
    });

    test('concurrent overwrites of one file: never torn, and the catalog always matches the bytes', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const file = (await raw('alice', a, 'contended.bin', 'start')).json().file;
      for (let round = 0; round < 4; round++) {
        // Different lengths and fill bytes, sent in several pieces each so that the writes overlap.
        const contents = Array.from({ length: 6 }, (_, index) =>
          Buffer.alloc(20_000 + index * 3_001 + round, 65 + index),
        );
        const uploads = contents.map(() =>
          openUpload(s(), 'PUT', `/data/${file.id}`, 'alice', {
            'content-type': 'application/octet-stream',
          }),
        );
        for (let offset = 0; offset < 40_000; offset += 5_000) {
          uploads.forEach((upload, index) => {
            const piece = contents[index]!.subarray(offset, offset + 5_000);
            if (piece.length > 0) upload.request.write(piece);
          });
          await sleep(1);
        }
        uploads.forEach((upload) => upload.request.end());
        const answers = await Promise.all(uploads.map((upload) => upload.answer));
        answers.forEach((answer, index) => {
          assert.equal(answer.status, 200, answer.text);
          assert.equal(
            answer.json().file.md5,
            md5(contents[index]!),
            'each answer describes what that request wrote',
          );
        });
        const bytes = await onDisk(file.id);
        assert.ok(
          contents.some((content) => content.equals(bytes)),
          'the file is exactly one of the uploads, not a mix',
        );
        const row = (await s().object(file.path))!;
        assert.equal(Number(row.size), bytes.length, 'catalog size matches the bytes');
        assert.equal(row.md5, md5(bytes), 'catalog md5 matches the bytes');
      }
      assert.deepEqual(s().blobFiles().tmp, []);
    });
  });
}
