// Tags through the gateway (routes.md §20): each user's own tags, attached to files and folders
// the user can read, over real HTTP with the embedded metadata and data-info services, on both
// database engines.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`tags (${engine})`, () => {
    let g: MetadataGateway | undefined;
    let report: any; // alice's file
    let folder: any; // alice's folder
    let shared: any; // alice's file shared read-only with bob
    let bobs: any; // bob's file

    const newTag = async (user: string, value: string, description?: string) => {
      const answer = await g!.call(user, 'POST', '/secured/tags/user', {
        json: { value, ...(description === undefined ? {} : { description }) },
      });
      assert.equal(answer.status, 200, answer.text);
      return answer.body.id as string;
    };
    const attach = (user: string, entry: string, tags: string[], type = 'attach') =>
      g!.call(user, 'PATCH', `/secured/filesystem/entry/${entry}/tags?type=${type}`, {
        json: { tags },
      });
    const tagsOn = async (user: string, entry: string) => {
      const answer = await g!.call(user, 'GET', `/secured/filesystem/entry/${entry}/tags`);
      assert.equal(answer.status, 200, answer.text);
      return answer.body.tags.map((tag: any) => tag.value).sort();
    };

    before(async () => {
      g = await startMetadataGateway({ engine });
      if (!g) return;
      report = await g.upload('alice', g.home('alice'), 'report.txt', 'r');
      folder = await g.folder('alice', `${g.home('alice')}/results`);
      shared = await g.upload('alice', g.home('alice'), 'shared.txt', 's');
      bobs = await g.upload('bob', g.home('bob'), 'bobs.txt', 'b');
      const sharing = await g.call('alice', 'POST', '/secured/share', {
        json: { sharing: [{ user: 'bob', paths: [{ path: shared.path, permission: 'read' }] }] },
      });
      assert.equal(sharing.status, 200, sharing.text);
    });
    after(async () => g?.close());

    test('user tags: create, list, rename, and the same value for two users', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const raw = await newTag('alice', 'raw-data', 'straight off the sequencer');
      await newTag('alice', 'reviewed');
      await newTag('bob', 'raw-data');
      const listed = await g.call('alice', 'GET', '/secured/tags/user');
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.tags.map((tag: any) => [tag.value, tag.description]),
        [
          ['raw-data', 'straight off the sequencer'],
          ['reviewed', ''],
        ],
      );
      assert.equal(listed.body.tags[0].id, raw);
      const duplicate = await g.call('alice', 'POST', '/secured/tags/user', {
        json: { value: 'raw-data' },
      });
      assert.equal(duplicate.status, 400, duplicate.text);
      assert.equal(duplicate.body.error_code, 'ERR_NOT_UNIQUE');
      const blank = await g.call('alice', 'POST', '/secured/tags/user', { json: { value: '' } });
      assert.equal(blank.status, 400, blank.text);

      const renamed = await g.call('alice', 'PATCH', `/secured/tags/user/${raw}`, {
        json: { value: 'raw', description: 'unprocessed' },
      });
      assert.equal(renamed.status, 200, renamed.text);
      assert.deepEqual(renamed.body, { id: raw, value: 'raw', description: 'unprocessed' });
      // bob cannot change alice's tag.
      const foreign = await g.call('bob', 'PATCH', `/secured/tags/user/${raw}`, {
        json: { value: 'mine' },
      });
      assert.equal(foreign.status, 404, foreign.text);
      assert.equal((await g.call(null, 'GET', '/secured/tags/user')).status, 401);
    });

    test("suggestions come from the caller's own tags", async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const alice = await g.call('alice', 'GET', '/secured/tags/suggestions?contains=RAW&limit=5');
      assert.equal(alice.status, 200, alice.text);
      assert.deepEqual(
        alice.body.tags.map((tag: any) => tag.value),
        ['raw'],
      );
      const bob = await g.call('bob', 'GET', '/secured/tags/suggestions?contains=raw');
      assert.deepEqual(
        bob.body.tags.map((tag: any) => tag.value),
        ['raw-data'],
      );
      const none = await g.call('alice', 'GET', '/secured/tags/suggestions?contains=zzz');
      assert.deepEqual(none.body.tags, []);
      assert.equal(
        (await g.call('alice', 'GET', '/secured/tags/suggestions?contains=r&limit=-1')).status,
        400,
      );
    });

    test('attach to files and folders the caller can read, then detach', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const tags = (await g.call('alice', 'GET', '/secured/tags/user')).body.tags;
      const ids = Object.fromEntries(tags.map((tag: any) => [tag.value, tag.id]));
      assert.equal((await attach('alice', report.id, [ids.raw, ids.reviewed])).status, 200);
      assert.equal((await attach('alice', folder.id.toUpperCase(), [ids.reviewed])).status, 200);
      assert.deepEqual(await tagsOn('alice', report.id), ['raw', 'reviewed']);
      assert.deepEqual(await tagsOn('alice', folder.id), ['reviewed']);
      // Attaching again changes nothing.
      assert.equal((await attach('alice', report.id, [ids.raw])).status, 200);
      assert.deepEqual(await tagsOn('alice', report.id), ['raw', 'reviewed']);
      // The metadata service recorded the entry's kind from data-info.
      const rows = await g.running.gateway.store.db
        .selectFrom('attached_tags')
        .select(['target_id', 'target_type'])
        .where('detached_on', 'is', null)
        .execute();
      assert.ok(rows.some((row) => row.target_id === folder.id && row.target_type === 'folder'));
      assert.ok(rows.some((row) => row.target_id === report.id && row.target_type === 'file'));

      const everything = await g.call('alice', 'GET', '/secured/filesystem/entry/tags');
      assert.equal(everything.status, 200, everything.text);
      assert.deepEqual(everything.body.tags.map((tag: any) => tag.value).sort(), [
        'raw',
        'reviewed',
      ]);

      assert.equal((await attach('alice', report.id, [ids.raw], 'detach')).status, 200);
      assert.deepEqual(await tagsOn('alice', report.id), ['reviewed']);
    });

    test("bob cannot see or tag what he cannot read, nor use alice's tags; tags are per user", async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const bobTag = (await g.call('bob', 'GET', '/secured/tags/user')).body.tags[0].id;
      const aliceTags = (await g.call('alice', 'GET', '/secured/tags/user')).body.tags;
      const reviewed = aliceTags.find((tag: any) => tag.value === 'reviewed').id;

      for (const [answer, what] of [
        [
          await g.call('bob', 'GET', `/secured/filesystem/entry/${report.id}/tags`),
          'list on an unreadable file',
        ],
        [await attach('bob', report.id, [bobTag]), 'attach to an unreadable file'],
        [await attach('bob', randomUUID(), [bobTag]), 'attach to an unknown entry'],
        [await attach('bob', 'not-a-uuid', [bobTag]), 'attach to a non-UUID'],
        [await attach('bob', bobs.id, [reviewed]), "attach alice's tag"],
      ] as const) {
        assert.equal(answer.status, 404, `${what}: ${answer.text}`);
        assert.match(answer.body.error_code, /^ERR_/);
      }
      assert.deepEqual(await tagsOn('alice', report.id), ['reviewed']);

      // A file bob can read: both tag it, each sees only their own tags on it.
      assert.equal((await attach('alice', shared.id, [reviewed])).status, 200);
      assert.equal((await attach('bob', shared.id, [bobTag])).status, 200);
      assert.deepEqual(await tagsOn('alice', shared.id), ['reviewed']);
      assert.deepEqual(await tagsOn('bob', shared.id), ['raw-data']);
      // bob detaching "his" view touches nothing of alice's.
      assert.equal((await attach('bob', shared.id, [bobTag], 'detach')).status, 200);
      assert.deepEqual(await tagsOn('alice', shared.id), ['reviewed']);
      assert.deepEqual(await tagsOn('bob', shared.id), []);
    });

    test('bad requests are 400 or 401 with an error code', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const tag = (await g.call('alice', 'GET', '/secured/tags/user')).body.tags[0].id;
      for (const [answer, what] of [
        [await attach('alice', report.id, [tag], 'glue'), 'unknown type'],
        [
          await g.call('alice', 'PATCH', `/secured/filesystem/entry/${report.id}/tags`, {
            json: { tags: [tag] },
          }),
          'no type',
        ],
        [
          await g.call(
            'alice',
            'PATCH',
            `/secured/filesystem/entry/${report.id}/tags?type=attach`,
            { json: { tags: 'x' } },
          ),
          'tags not a list',
        ],
        [await attach('alice', report.id, ['not-a-uuid']), 'tag not a UUID'],
      ] as const) {
        assert.equal(answer.status, 400, `${what}: ${answer.text}`);
        assert.match(answer.body.error_code, /^ERR_/);
      }
      assert.equal(
        (
          await g.call(null, 'PATCH', `/secured/filesystem/entry/${report.id}/tags?type=attach`, {
            json: { tags: [tag] },
          })
        ).status,
        401,
      );
      assert.equal(
        (await g.call(null, 'GET', `/secured/filesystem/entry/${report.id}/tags`)).status,
        401,
      );
    });

    test('deleting tags detaches them; deleting all of them and detaching all', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const extra = await newTag('alice', 'temporary');
      assert.equal((await attach('alice', report.id, [extra])).status, 200);
      assert.deepEqual(await tagsOn('alice', report.id), ['reviewed', 'temporary']);
      assert.equal((await g.call('alice', 'DELETE', `/secured/tags/user/${extra}`)).status, 200);
      assert.deepEqual(await tagsOn('alice', report.id), ['reviewed']);
      assert.equal((await g.call('alice', 'DELETE', `/secured/tags/user/${extra}`)).status, 404);

      assert.equal((await g.call('alice', 'DELETE', '/secured/filesystem/entry/tags')).status, 200);
      assert.deepEqual(await tagsOn('alice', report.id), []);
      assert.deepEqual(await tagsOn('alice', folder.id), []);
      assert.deepEqual(
        (await g.call('alice', 'GET', '/secured/filesystem/entry/tags')).body.tags,
        [],
      );
      // alice's tags still exist; bob's are untouched.
      assert.equal((await g.call('alice', 'GET', '/secured/tags/user')).body.tags.length, 2);
      assert.equal((await g.call('alice', 'DELETE', '/secured/tags/user')).status, 200);
      assert.deepEqual((await g.call('alice', 'GET', '/secured/tags/user')).body.tags, []);
      assert.equal((await g.call('bob', 'GET', '/secured/tags/user')).body.tags.length, 1);
    });
  });
}
