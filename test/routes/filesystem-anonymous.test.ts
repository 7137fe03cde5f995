// Signed-out reads of the data store agree, on SQLite and PostgreSQL: every read route that serves
// anonymous callers (stat, manifest, read-chunk, read-csv-chunk, download, display-download, the
// paged listing) serves a file made public (anon-files) with 200. The filesystem routes refuse a
// private file, a path that does not exist outside the community folder, and lookups by id with
// the same 401 `ERR_NOT_AUTHORIZED` a route that needs a user gives: signing in may help, and a
// signed-out caller learns nothing about what others keep. The two file I/O downloads answer the
// spec's file I/O codes instead (Errors 2: 500 `ERR_NOT_READABLE`, `ERR_DOES_NOT_EXIST`).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  q,
  startDataStoreGateway,
  type Answer,
  type DataStoreGateway,
} from '../support/data-store.ts';
import { requiredInCi } from '../support/gateway.ts';

const csv = 'name,count\nalpha,1\nbeta,2\n';

/** Every signed-out read of the file at `path`, by route. */
function reads(gw: DataStoreGateway, path: string): Record<string, () => Promise<Answer>> {
  return {
    stat: () => gw.call(null, 'POST', '/filesystem/stat', { json: { paths: [path] } }),
    manifest: () => gw.call(null, 'GET', `/filesystem/file/manifest?path=${q(path)}`),
    'read-chunk': () =>
      gw.call(null, 'POST', '/filesystem/read-chunk', {
        json: { path, position: 0, 'chunk-size': 100 },
      }),
    'read-csv-chunk': () =>
      gw.call(null, 'POST', '/filesystem/read-csv-chunk', {
        json: { path, separator: '%2C', page: 1, 'chunk-size': 100 },
      }),
    download: () => gw.call(null, 'GET', `/fileio/download?path=${q(path)}`),
    'display-download': () =>
      gw.call(null, 'GET', `/filesystem/display-download?path=${q(path)}&attachment=0`),
  };
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`signed-out reads (${engine})`, () => {
    let gw: DataStoreGateway;
    let folder: string;
    let publicFile: string;
    let privateFile: string;
    before(async () => {
      gw = (await startDataStoreGateway({ engine }))!;
      if (!gw) return;
      folder = `${gw.home('alice')}/published`;
      await gw.folder('alice', folder);
      await gw.upload('alice', folder, 'open.csv', csv);
      await gw.upload('alice', folder, 'closed.csv', csv);
      publicFile = `${folder}/open.csv`;
      privateFile = `${folder}/closed.csv`;
      await gw.ok('alice', 'POST', '/secured/filesystem/anon-files', {
        json: { paths: [publicFile] },
      });
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    test('a public file: every read route answers 200 with the same file', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const answers = Object.fromEntries(
        await Promise.all(
          Object.entries(reads(gw, publicFile)).map(
            async ([route, read]) => [route, await read()] as const,
          ),
        ),
      );
      for (const [route, answer] of Object.entries(answers))
        assert.equal(answer.status, 200, `${route}: ${answer.text}`);
      const stat = answers.stat!.body.paths[publicFile];
      assert.equal(stat.type, 'file');
      assert.equal(stat.permission, 'read');
      assert.equal(stat['file-size'], Buffer.byteLength(csv));
      assert.equal(answers.manifest!.body['content-type'], 'text/csv');
      assert.equal(answers['read-chunk']!.body.chunk, csv);
      assert.deepEqual(answers['read-csv-chunk']!.body.csv[1], { '0': 'alpha', '1': '1' });
      assert.equal(answers.download!.text, csv);
      assert.equal(answers['display-download']!.text, csv);
    });

    test('the folder of a public file lists the public file and nothing else', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const listing = await gw.call(
        null,
        'GET',
        `/filesystem/paged-directory?path=${q(folder)}&limit=10`,
      );
      assert.equal(listing.status, 200, listing.text);
      assert.deepEqual(
        listing.body.files.map((entry: any) => entry.path),
        [publicFile],
      );
      assert.equal(listing.body.files[0].permission, 'read');
    });

    test('a private file, and a path that does not exist: filesystem reads answer 401 ERR_NOT_AUTHORIZED, file I/O downloads their spec codes', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const fileio = new Set(['download', 'display-download']);
      for (const [path, fileioCode] of [
        [privateFile, 'ERR_NOT_READABLE'],
        [`${folder}/missing.csv`, 'ERR_DOES_NOT_EXIST'],
      ] as const) {
        for (const [route, read] of Object.entries(reads(gw, path))) {
          const answer = await read();
          const [status, code] = fileio.has(route)
            ? [500, fileioCode]
            : [401, 'ERR_NOT_AUTHORIZED'];
          assert.equal(answer.status, status, `${route} ${path}: ${answer.status} ${answer.text}`);
          assert.equal(answer.body.error_code, code, `${route} ${path}`);
        }
      }
      const privateFolder = `${gw.home('alice')}/hidden`;
      await gw.folder('alice', privateFolder);
      const listing = await gw.call(
        null,
        'GET',
        `/filesystem/paged-directory?path=${q(privateFolder)}&limit=10`,
      );
      assert.equal(listing.status, 401, listing.text);
      assert.equal(listing.body.error_code, 'ERR_NOT_AUTHORIZED');
    });

    test('signed out, stat by id is refused even for a public file; signed in, the same reads still answer 403 for what one cannot read', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const { id } = (
        await gw.ok('alice', 'POST', '/secured/filesystem/stat', { json: { paths: [publicFile] } })
      ).paths[publicFile];
      const byId = await gw.call(null, 'POST', '/filesystem/stat', { json: { ids: [id] } });
      assert.equal(byId.status, 401, byId.text);
      await gw.ok('bob', 'GET', '/secured/filesystem/root');
      const asBob = await gw.call('bob', 'POST', '/filesystem/stat', {
        json: { paths: [privateFile] },
      });
      assert.equal(asBob.status, 403, asBob.text);
      assert.equal(asBob.body.error_code, 'ERR_NOT_READABLE');
      const publicAsBob = await gw.call('bob', 'POST', '/filesystem/stat', {
        json: { paths: [publicFile] },
      });
      assert.equal(publicAsBob.status, 200, publicAsBob.text);
    });
  });
}
