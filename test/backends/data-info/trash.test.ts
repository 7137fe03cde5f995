// The embedded data-info service's trash (backends.md §2.4) over real HTTP, on each engine: delete
// to the trash and for good, refusals that delete nothing, restore with renames on collisions, and
// retention that sweeps entries past their age.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { startTrashSweep, sweepTrash } from '../../../src/backends/data-info/trash.ts';
import { blobText, engines, home, trash, type DataInfoHost } from '../../support/data-info-host.ts';

const DAY = 24 * 60 * 60 * 1000;

/** Delete, trash, restore and retention (backends.md §2.4), on each engine. */
for (const engine of engines) {
  describe(`data-info trash on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    before(async () => {
      service = await engine.open();
    });
    after(async () => service?.close());
    const s = () => service!;
    const byPath = (path: string) => s().data.catalog.byPath(path);
    const under = async (prefix: string) =>
      (await s().data.db.selectFrom('data_objects').select('path').execute())
        .map((row) => row.path)
        .filter((path) => path === prefix || path.startsWith(`${prefix}/`))
        .sort();

    test('deleting moves to the trash with origin and time; a second delete removes for good, bytes and all', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const a = home('alice');
      await s().folder('alice', `${a}/proj`);
      const inner = await s().file('alice', `${a}/proj/reads.fq`, 'ACGT');
      const lone = await s().file('alice', `${a}/lone.txt`, 'lone');
      await s()
        .data.db.insertInto('data_tickets')
        .values({
          id: 'AAAAAAAA-0000-4000-8000-000000000001',
          object_id: inner.id,
          owner: 'alice',
          mode: 'read',
          created_at: 1,
        })
        .execute();

      const before = Date.now();
      const answer = await s().call('POST', '/deleter', {
        user: 'alice',
        body: { paths: [`${a}/proj`, `${a}/proj/reads.fq`, `${a}/lone.txt`] },
      });
      assert.equal(answer.status, 200, answer.body);
      const body = answer.json();
      assert.deepEqual(body.paths, [`${a}/proj`, `${a}/proj/reads.fq`, `${a}/lone.txt`]);
      const trashed = body['trash-paths'][`${a}/proj`];
      assert.match(trashed, new RegExp(`^${trash('alice')}/proj\\.[0-9A-Za-z]{7}$`));
      assert.equal(body['trash-paths'][`${a}/proj/reads.fq`], `${trashed}/reads.fq`);
      assert.match(
        body['trash-paths'][`${a}/lone.txt`],
        new RegExp(`^${trash('alice')}/lone\\.txt\\.[0-9A-Za-z]{7}$`),
      );
      assert.ok(body['async-task-id']);

      const entry = (await byPath(trashed))!;
      assert.equal(entry.trash_origin, `${a}/proj`);
      assert.ok(Number(entry.trashed_at) >= before);
      assert.equal(
        (await byPath(`${trashed}/reads.fq`))?.id,
        inner.id,
        'descendants travel with their folder',
      );
      assert.equal((await byPath(`${trashed}/reads.fq`))?.trash_origin, null);
      assert.equal(await byPath(`${a}/proj`), undefined);
      assert.deepEqual(
        (await s().data.db.selectFrom('data_tickets').select('object_id').execute()).map(
          (row) => row.object_id,
        ),
        [inner.id],
        'tickets travel to the trash with their item (suspended there, not removed)',
      );
      assert.equal(await blobText(s().data, inner.id), 'ACGT', 'trashed bytes are kept');

      const forGood = await s().call('POST', '/deleter', {
        user: 'alice',
        body: { paths: [trashed, body['trash-paths'][`${a}/lone.txt`]] },
      });
      assert.equal(forGood.status, 200, forGood.body);
      assert.deepEqual(forGood.json()['trash-paths'], {});
      assert.deepEqual(await under(trashed), []);
      assert.equal(
        await s().data.blobs.exists(inner.id),
        false,
        'bytes of every file below are removed',
      );
      assert.equal(await s().data.blobs.exists(lone.id), false);
      assert.equal(
        (await s().data.db.selectFrom('data_tickets').selectAll().execute()).length,
        0,
        'deleted for good, its tickets go with it',
      );
    });

    test('refusals: missing paths, not the owner, the home; nothing is deleted when one path fails', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const a = home('alice');
      const keep = await s().file('alice', `${a}/keep.txt`);
      const missing = await s().call('POST', '/deleter', {
        user: 'alice',
        body: { paths: [`${a}/keep.txt`, `${a}/gone.txt`, `${a}/also-gone`] },
      });
      assert.equal(missing.status, 404);
      assert.equal(missing.json().error_code, 'ERR_DOES_NOT_EXIST');
      assert.deepEqual(missing.json().paths, [`${a}/gone.txt`, `${a}/also-gone`]);
      assert.ok(await byPath(`${a}/keep.txt`), 'all or nothing');

      const notOwner = await s().call('POST', '/deleter', {
        user: 'bob',
        body: { paths: [`${a}/keep.txt`] },
      });
      assert.equal(notOwner.status, 403);
      assert.equal(notOwner.json().error_code, 'ERR_NOT_OWNER');
      const readOnly = await s().file('alice', `${a}/shared.txt`);
      await s().data.catalog.grant(s().data.db, readOnly.id, 'bob', 'write');
      const writer = await s().call('DELETE', `/data/${readOnly.id}`, { user: 'bob' });
      assert.equal(
        writer.json().error_code,
        'ERR_NOT_OWNER',
        'write access is not enough to delete',
      );

      const ownHome = await s().call('POST', '/deleter', { user: 'alice', body: { paths: [a] } });
      assert.equal(ownHome.json().error_code, 'ERR_NOT_AUTHORIZED');
      const ownTrash = await s().call('POST', '/deleter', {
        user: 'alice',
        body: { paths: [trash('alice')] },
      });
      assert.equal(ownTrash.json().error_code, 'ERR_NOT_AUTHORIZED');
      const community = await s().call('POST', '/deleter', {
        user: 'alice',
        body: { paths: [`/lab/home/shared`] },
      });
      assert.equal(community.json().error_code, 'ERR_NOT_OWNER');
      const mixed = await s().call('POST', '/deleter', {
        user: 'alice',
        body: { paths: [`${a}/keep.txt`, a] },
      });
      assert.equal(mixed.json().error_code, 'ERR_NOT_AUTHORIZED');
      assert.equal((await byPath(`${a}/keep.txt`))?.id, keep.id);
      const empty = await s().call('POST', '/deleter', { user: 'alice', body: { paths: [] } });
      assert.equal(empty.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
    });

    test('DELETE /data/{id}, /data/{id}/children and DELETE /trash', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const e = home('erin');
      const box = await s().folder('erin', `${e}/box`);
      await s().file('erin', `${e}/box/one.txt`);
      const two = await s().file('erin', `${e}/box/two.txt`);
      const single = await s().file('erin', `${e}/single.txt`);

      const children = await s().call('DELETE', `/data/${box.id}/children`, { user: 'erin' });
      assert.equal(children.status, 200, children.body);
      assert.deepEqual(children.json().paths, [`${e}/box/one.txt`, `${e}/box/two.txt`]);
      assert.deepEqual(await under(`${e}/box`), [`${e}/box`], 'the folder itself stays');
      const item = await s().call('DELETE', `/data/${single.id}`, { user: 'erin' });
      assert.deepEqual(item.json().paths, [`${e}/single.txt`]);
      assert.equal((await under(trash('erin'))).length, 4);

      const emptied = await s().call('DELETE', '/trash', { user: 'erin' });
      assert.equal(emptied.status, 200, emptied.body);
      assert.equal(emptied.json().trash, trash('erin'));
      assert.equal(emptied.json().paths.length, 3);
      assert.ok(emptied.json()['async-task-id']);
      assert.deepEqual(await under(trash('erin')), [trash('erin')]);
      assert.equal(await s().data.blobs.exists(two.id), false);
      assert.equal(await s().data.blobs.exists(single.id), false);
    });

    test('restore: to the origin, with .0/.1 on collisions, missing parents re-created, partial to home', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const f = home('fay');
      await s().file('fay', `${f}/report.txt`, 'v1');
      const first = (
        await s().call('POST', '/deleter', { user: 'fay', body: { paths: [`${f}/report.txt`] } })
      ).json()['trash-paths'][`${f}/report.txt`];
      await s().file('fay', `${f}/report.txt`, 'v2');
      const second = (
        await s().call('POST', '/deleter', { user: 'fay', body: { paths: [`${f}/report.txt`] } })
      ).json()['trash-paths'][`${f}/report.txt`];
      await s().file('fay', `${f}/report.txt`, 'v3');

      const restored = await s().call('POST', '/restorer', {
        user: 'fay',
        body: { paths: [first, second] },
      });
      assert.equal(restored.status, 200, restored.body);
      const map = restored.json().restored;
      assert.deepEqual(
        new Set([map[first]['restored-path'], map[second]['restored-path']]),
        new Set([`${f}/report.txt.0`, `${f}/report.txt.1`]),
      );
      assert.equal(map[first]['partial-restore'], false);
      assert.ok(restored.json()['async-task-id']);
      const back = (await byPath(map[first]['restored-path']))!;
      assert.equal(back.trash_origin, null);
      assert.equal(back.trashed_at, null);

      // The origin's folders are gone: they come back, owned by the caller.
      await s().folder('fay', `${f}/p`);
      await s().folder('fay', `${f}/p/q`);
      await s().file('fay', `${f}/p/q/data.csv`);
      const csv = (
        await s().call('POST', '/deleter', { user: 'fay', body: { paths: [`${f}/p/q/data.csv`] } })
      ).json()['trash-paths'][`${f}/p/q/data.csv`];
      await s().call('POST', '/deleter', { user: 'fay', body: { paths: [`${f}/p`] } });
      const recreated = await s().call('POST', '/restorer', {
        user: 'fay',
        body: { paths: [csv] },
      });
      assert.deepEqual(recreated.json().restored[csv], {
        'restored-path': `${f}/p/q/data.csv`,
        'partial-restore': false,
      });
      assert.equal((await byPath(`${f}/p/q`))?.owner, 'fay');
      assert.equal(await s().data.catalog.permission('fay', `${f}/p/q`), 'own');

      // Bob deleted his file from a folder Alice shared with him; she has since taken write away.
      const team = await s().folder('alice', `${home('alice')}/team`);
      await s().data.catalog.grant(s().data.db, team.id, 'bob', 'write');
      await s().file('bob', `${home('alice')}/team/bob.txt`);
      const bobs = (
        await s().call('POST', '/deleter', {
          user: 'bob',
          body: { paths: [`${home('alice')}/team/bob.txt`] },
        })
      ).json()['trash-paths'][`${home('alice')}/team/bob.txt`];
      assert.ok(
        bobs.startsWith(`${trash('bob')}/`),
        'an item goes to the trash of whoever deletes it',
      );
      await s().data.catalog.grant(s().data.db, team.id, 'bob', 'read');
      const partial = await s().call('POST', '/restorer', { user: 'bob', body: { paths: [bobs] } });
      assert.deepEqual(partial.json().restored[bobs], {
        'restored-path': `${home('bob')}/bob.txt`,
        'partial-restore': true,
      });

      const notTrash = await s().call('POST', '/restorer', {
        user: 'fay',
        body: { paths: [`${f}/report.txt`] },
      });
      assert.equal(notTrash.json().error_code, 'ERR_ILLEGAL_ARGUMENT');
      const missing = await s().call('POST', '/restorer', {
        user: 'fay',
        body: { paths: [`${trash('fay')}/nothing`] },
      });
      assert.equal(missing.json().error_code, 'ERR_DOES_NOT_EXIST');
      const others = await s().file('gus', `${home('gus')}/g.txt`);
      const gusTrash = (await s().call('DELETE', `/data/${others.id}`, { user: 'gus' })).json()[
        'trash-paths'
      ][`${home('gus')}/g.txt`];
      const foreign = await s().call('POST', '/restorer', {
        user: 'fay',
        body: { paths: [gusTrash] },
      });
      assert.equal(foreign.json().error_code, 'ERR_NOT_WRITEABLE');
    });

    test('moving an item out of the trash ends its trash life', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const k = home('kai');
      await s().file('kai', `${k}/keep.txt`);
      const trashed = (
        await s().call('POST', '/deleter', { user: 'kai', body: { paths: [`${k}/keep.txt`] } })
      ).json()['trash-paths'][`${k}/keep.txt`];
      const moved = await s().call('POST', '/mover', {
        user: 'kai',
        body: { sources: [trashed], dest: k },
      });
      assert.equal(moved.status, 200, moved.body);
      const back = (await byPath(`${k}/${trashed.split('/').at(-1)}`))!;
      assert.equal(back.trash_origin, null);
      assert.equal(back.trashed_at, null);
      const later = s().withClock(() => Date.now() + 400 * DAY);
      await sweepTrash(later);
      assert.ok(await byPath(back.path), 'the sweep leaves it alone');
    });

    test('an empty or omitted list restores the whole trash', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      for (const [index, body] of [{}, [], { paths: [] }, undefined].entries()) {
        const user = `hal${index}`;
        await s().file(user, `${home(user)}/a.txt`);
        await s().folder(user, `${home(user)}/b`);
        await s().file(user, `${home(user)}/b/c.txt`);
        await s().call('POST', '/deleter', {
          user,
          body: { paths: [`${home(user)}/a.txt`, `${home(user)}/b`] },
        });
        assert.deepEqual(await under(home(user)), [home(user)]);
        const answer = await s().call('POST', '/restorer', {
          user,
          ...(body === undefined ? {} : { body }),
        });
        assert.equal(answer.status, 200, `${JSON.stringify(body)}: ${answer.body}`);
        assert.equal(Object.keys(answer.json().restored).length, 2);
        assert.deepEqual(await under(home(user)), [
          home(user),
          `${home(user)}/a.txt`,
          `${home(user)}/b`,
          `${home(user)}/b/c.txt`,
        ]);
        assert.deepEqual(await under(trash(user)), [trash(user)]);
      }
    });

    test('retention: an entry trashed 29 days ago stays, one trashed 31 days ago is gone with its bytes and contents', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const i = home('ivy');
      await s().folder('ivy', `${i}/old`);
      const oldFile = await s().file('ivy', `${i}/old/inside.bin`, 'old bytes');
      const recentFile = await s().file('ivy', `${i}/recent.txt`, 'recent');
      const now = Date.now();
      const trashOld = (
        await s().call('POST', '/deleter', { user: 'ivy', body: { paths: [`${i}/old`] } })
      ).json()['trash-paths'][`${i}/old`];
      const trashRecent = (
        await s().call('POST', '/deleter', { user: 'ivy', body: { paths: [`${i}/recent.txt`] } })
      ).json()['trash-paths'][`${i}/recent.txt`];
      // Pretend the old one was trashed two days before the recent one.
      await s()
        .data.db.updateTable('data_objects')
        .set({ trashed_at: now - 2 * DAY })
        .where('path', '=', trashOld)
        .execute();
      await s()
        .data.db.updateTable('data_objects')
        .set({ trashed_at: now })
        .where('path', '=', trashRecent)
        .execute();

      // 30-day retention (the default); the clock says 29 days after the old entry was trashed.
      let clock = now - 2 * DAY + 29 * DAY;
      const data = s().withClock(() => clock);
      assert.equal(data.options.trashRetentionDays, 30);
      assert.deepEqual(await sweepTrash(data), { deleted: 0 });
      assert.ok(await byPath(`${trashOld}/inside.bin`), 'at 29 days it stays');

      clock = now - 2 * DAY + 31 * DAY;
      assert.deepEqual(await sweepTrash(data), { deleted: 1 });
      assert.deepEqual(await under(trashOld), [], 'the entry and its descendants are gone');
      assert.equal(await s().data.blobs.exists(oldFile.id), false, 'with their bytes');
      assert.ok(await byPath(trashRecent), 'the entry trashed 29 days before this clock stays');
      assert.equal(await blobText(s().data, recentFile.id), 'recent');

      const restoredAfter = await s().call('POST', '/restorer', {
        user: 'ivy',
        body: { paths: [trashRecent] },
      });
      assert.equal(restoredAfter.status, 200);
      clock = now + 365 * DAY;
      await sweepTrash(data); // (other tests' trash entries expire now)
      assert.ok(await byPath(`${i}/recent.txt`), 'a restored item is never swept');
      assert.deepEqual(await under(trash('ivy')), [trash('ivy')]);

      // The timer: stop() clears it and nothing is left to keep the process alive.
      const sweep = startTrashSweep(data, pino({ level: 'silent' }));
      sweep.stop();
    });
  });
}
