// File info types through the gateway (routes.md §13, issue 18 item 5): the list of types, a file's
// type read, set and cleared by path (`[/secured]/filetypes/type`), refused on a folder, on an
// unknown type, on another user's file and without write permission; uploads still detect a type
// from the name. Real HTTP with the embedded data-info, on both database engines.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startDataStoreGateway, q, type DataStoreGateway } from '../support/data-store.ts';

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`file types (${engine})`, () => {
    let g: DataStoreGateway | undefined;
    let notes: any; // alice's file
    let shared: any; // alice's file shared read-only with bob
    let folder: any; // alice's folder

    const typeOf = (user: string, path: string) =>
      g!.call(user, 'GET', `/secured/filetypes/type?path=${q(path)}`);
    const setType = (user: string, path: string, type: string) =>
      g!.call(user, 'POST', '/secured/filetypes/type', { json: { path, type } });

    before(async () => {
      g = await startDataStoreGateway({ engine });
      if (!g) return;
      notes = await g.upload('alice', g.home('alice'), 'notes.dat', 'a,b\n1,2\n');
      shared = await g.upload('alice', g.home('alice'), 'shared.dat', 's');
      folder = await g.folder('alice', `${g.home('alice')}/results`);
      await g.ok('alice', 'POST', '/secured/share', {
        json: { sharing: [{ user: 'bob', paths: [{ path: shared.path, permission: 'read' }] }] },
      });
    });
    after(async () => g?.close());

    test('the list of info types, anonymous callers too', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      for (const route of ['/filetypes/type-list', '/secured/filetypes/type-list']) {
        const answer = await g.call(route.startsWith('/secured') ? 'alice' : null, 'GET', route);
        assert.equal(answer.status, 200, answer.text);
        assert.ok(answer.body.types.includes('fastq'));
        assert.ok(answer.body.types.includes('csv'));
      }
    });

    test('an upload is given the info type its name says', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const uploaded = await g.uploadThroughGateway(
        'alice',
        g.home('alice'),
        'reads.fastq',
        '@r\n',
      );
      assert.equal(uploaded.status, 200, uploaded.text);
      const answer = await typeOf('alice', `${g.home('alice')}/reads.fastq`);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body, {
        type: 'fastq',
        path: `${g.home('alice')}/reads.fastq`,
        user: 'alice',
      });
    });

    test('set, read and cleared by path (DELETE, or an empty type)', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      assert.equal((await typeOf('alice', notes.path)).body.type, '');

      const set = await setType('alice', notes.path, 'csv');
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body, { type: 'csv', user: 'alice', path: notes.path });
      assert.equal((await typeOf('alice', notes.path)).body.type, 'csv');
      assert.equal((await g.stat('alice', notes.path)).infoType, 'csv');

      const cleared = await g.call('alice', 'DELETE', `/filetypes/type?path=${q(notes.path)}`);
      assert.equal(cleared.status, 200, cleared.text);
      assert.deepEqual(cleared.body, { type: '', user: 'alice', path: notes.path });
      assert.equal((await typeOf('alice', notes.path)).body.type, '');

      await setType('alice', notes.path, 'tsv');
      const emptied = await setType('alice', notes.path, '');
      assert.equal(emptied.status, 200, emptied.text);
      assert.equal((await g.stat('alice', notes.path)).infoType, '');
    });

    test('refused: unknown type, a folder, no write permission, no access, no credentials', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const unknown = await setType('alice', notes.path, 'spreadsheet');
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(unknown.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');

      for (const answer of [
        await setType('alice', folder.path, 'csv'),
        await typeOf('alice', folder.path),
        await g.call('alice', 'DELETE', `/secured/filetypes/type?path=${q(folder.path)}`),
      ]) {
        assert.equal(answer.status, 400, answer.text);
        assert.equal(answer.body.error_code, 'ERR_NOT_A_FILE');
      }

      // Bob may read the shared file's type, not change it.
      assert.equal((await typeOf('bob', shared.path)).status, 200);
      const readOnly = await setType('bob', shared.path, 'csv');
      assert.equal(readOnly.status, 403, readOnly.text);
      assert.equal(readOnly.body.error_code, 'ERR_NOT_WRITEABLE');

      // Alice's private file is not bob's to see or change.
      for (const answer of [
        await setType('bob', notes.path, 'csv'),
        await typeOf('bob', notes.path),
      ]) {
        assert.ok([403, 404].includes(answer.status), answer.text);
        assert.match(answer.body.error_code, /^ERR_(NOT_READABLE|DOES_NOT_EXIST)$/);
      }
      assert.equal((await typeOf('alice', notes.path)).body.type, '');

      const anonymous = await g.call(null, 'POST', '/filetypes/type', {
        json: { path: notes.path, type: 'csv' },
      });
      assert.equal(anonymous.status, 401, anonymous.text);
      assert.equal(anonymous.body.error_code, 'ERR_NOT_AUTHORIZED');

      const missing = await g.call('alice', 'POST', '/secured/filetypes/type', {
        json: { type: 'csv' },
      });
      assert.equal(missing.status, 400, missing.text);
      assert.equal(missing.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const noPath = await g.call('alice', 'GET', '/secured/filetypes/type');
      assert.equal(noPath.status, 400, noPath.text);
      assert.equal(noPath.body.error_code, 'ERR_MISSING_QUERY_PARAMETER');
    });
  });
}
