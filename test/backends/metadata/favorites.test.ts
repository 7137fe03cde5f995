import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { metadataEngines, type MetadataHost } from '../../support/metadata-host.ts';

/** Favorites (backends.md §3.2): mark, unmark, list in marking order, filter; on each engine. */
for (const engine of metadataEngines) {
  describe(`metadata favorites on ${engine.name}`, () => {
    let service: MetadataHost | undefined;
    before(async () => {
      service = await engine.open();
    });
    after(async () => service?.close());
    const s = () => service!;
    const list = async (user: string, entityType: string) => {
      const answer = await s().call('GET', `/favorites/filesystem?entity-type=${entityType}`, {
        user,
      });
      assert.equal(answer.status, 200, answer.text);
      return answer.json().filesystem as string[];
    };
    const mark = async (user: string, id: string, type: string) => {
      const answer = await s().call('PUT', `/favorites/filesystem/${id}?data-type=${type}`, {
        user,
      });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.text, '');
    };

    test('mark (idempotent), list by entity type in marking order, unmark, unmark all of a type', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const [f1, d1, f2, d2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      await mark('alice', f1, 'file');
      await new Promise((resolve) => setTimeout(resolve, 3));
      await mark('alice', d1, 'FOLDER');
      await new Promise((resolve) => setTimeout(resolve, 3));
      await mark('alice', f2.toUpperCase(), 'file');
      await new Promise((resolve) => setTimeout(resolve, 3));
      await mark('alice', d2, 'folder');
      await mark('alice', f1, 'file'); // again: no change, not moved to the end
      await mark('bob', d2, 'folder');

      assert.deepEqual(await list('alice', 'any'), [f1, d1, f2, d2]);
      assert.deepEqual(await list('alice', 'ANY'), [f1, d1, f2, d2]);
      assert.deepEqual(await list('alice', 'file'), [f1, f2]);
      assert.deepEqual(await list('alice', 'Folder'), [d1, d2]);
      assert.deepEqual(await list('bob', 'any'), [d2]);
      assert.deepEqual(await list('carol', 'any'), []);

      const removed = await s().call('DELETE', `/favorites/filesystem/${f2}`, { user: 'alice' });
      assert.equal(removed.status, 200, removed.text);
      const again = await s().call('DELETE', `/favorites/filesystem/${f2}`, { user: 'alice' });
      assert.equal(again.status, 404);
      assert.deepEqual(again.json(), {
        error_code: 'ERR_NOT_FOUND',
        reason: "The target-id wasn't marked as a favorite by the user",
        user: 'alice',
        'target-id': f2,
      });
      assert.equal(
        (await s().call('DELETE', `/favorites/filesystem/${d2}`, { user: 'carol' })).status,
        404,
        "bob's favorite is not carol's",
      );
      assert.deepEqual(await list('alice', 'any'), [f1, d1, d2]);

      const folders = await s().call('DELETE', '/favorites/filesystem?entity-type=folder', {
        user: 'alice',
      });
      assert.equal(folders.status, 200, folders.text);
      assert.deepEqual(await list('alice', 'any'), [f1]);
      assert.deepEqual(await list('bob', 'any'), [d2], "bob's favorites stay");
      assert.equal(
        (await s().call('DELETE', '/favorites/filesystem?entity-type=any', { user: 'alice' }))
          .status,
        200,
      );
      assert.deepEqual(await list('alice', 'any'), []);
    });

    test('filter answers the given ids that are favorites, in the order and spelling given', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const ids: string[] = Array.from({ length: 1200 }, () => randomUUID());
      const favorites = ids.filter((_, index) => index % 7 === 0);
      for (const id of favorites) await mark('dora', id, 'file');
      await mark('erik', ids[1]!, 'file');
      const given = [...ids].reverse().map((id, index) => (index % 2 ? id.toUpperCase() : id));
      const filtered = await s().call('POST', '/favorites/filter', {
        user: 'dora',
        body: { filesystem: [...given, 'not-a-uuid', given[0]] },
      });
      assert.equal(filtered.status, 200, filtered.text);
      const expected = given.filter((id) => favorites.includes(id.toLowerCase()));
      assert.equal(expected.length, favorites.length);
      assert.deepEqual(filtered.json(), { filesystem: expected });
      assert.deepEqual(
        (
          await s().call('POST', '/favorites/filter', { user: 'dora', body: { filesystem: [] } })
        ).json(),
        { filesystem: [] },
      );

      for (const body of [{}, { filesystem: 'x' }, { filesystem: [1] }, ['x']]) {
        const answer = await s().call('POST', '/favorites/filter', { user: 'dora', body });
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.equal(answer.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
      }
    });

    test('bad parameters', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const id = randomUUID();
      for (const [method, url, user, status, code] of [
        ['GET', '/favorites/filesystem', 'alice', 400, 'ERR_MISSING_QUERY_PARAMETER'],
        ['GET', '/favorites/filesystem?entity-type=dir', 'alice', 400, 'ERR_BAD_QUERY_PARAMETER'],
        [
          'GET',
          '/favorites/filesystem?entity-type=any',
          undefined,
          400,
          'ERR_MISSING_QUERY_PARAMETER',
        ],
        ['DELETE', '/favorites/filesystem', 'alice', 400, 'ERR_MISSING_QUERY_PARAMETER'],
        ['PUT', `/favorites/filesystem/${id}`, 'alice', 400, 'ERR_MISSING_QUERY_PARAMETER'],
        [
          'PUT',
          `/favorites/filesystem/${id}?data-type=app`,
          'alice',
          400,
          'ERR_BAD_QUERY_PARAMETER',
        ],
        [
          'PUT',
          `/favorites/filesystem/${id}?data-type=file&data-type=folder`,
          'alice',
          409,
          'ERR_CONFLICTING_QUERY_PARAMETER_VALUES',
        ],
        ['PUT', '/favorites/filesystem/nope?data-type=file', 'alice', 400, 'ERR_BAD_REQUEST'],
        ['DELETE', '/favorites/filesystem/nope', 'alice', 400, 'ERR_BAD_REQUEST'],
      ] as const) {
        const answer = await s().call(method, url, { user });
        assert.equal(answer.status, status, `${method} ${url}: ${answer.text}`);
        assert.equal(answer.json().error_code, code, `${method} ${url}`);
      }
      assert.deepEqual(await list('alice', 'any'), []);
    });
  });
}
