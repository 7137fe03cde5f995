// The embedded data-info service's moves and renames over real HTTP, on each engine: ids and bytes
// kept, descendants following their folder, clashes and bad names refused, all-or-nothing moves,
// ownership and write access checked, and concurrent requests that each win at most once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { blobText, engines, home, trash, type DataInfoHost } from '../../support/data-info-host.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Moves and renames of the embedded data-info service, on each engine. */
for (const engine of engines) {
  describe(`data-info moves and renames on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    before(async () => {
      service = await engine.open();
    });
    after(async () => service?.close());

    const s = () => service!;
    const paths = async (prefix: string) =>
      (await s().data.db.selectFrom('data_objects').select('path').execute())
        .map((row) => row.path)
        .filter((path) => path.startsWith(prefix))
        .sort();

    test('rename in place keeps the id and bytes; descendants follow a renamed folder', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const a = home('alice');
      const file = await s().file('alice', `${a}/notes.txt`, 'hello');
      const answer = await s().call('PUT', `/data/${file.id}/name`, {
        user: 'alice',
        body: { filename: 'renamed.txt' },
      });
      assert.equal(answer.status, 200, answer.body);
      const body = answer.json();
      assert.equal(body.user, 'alice');
      assert.equal(body.source, `${a}/notes.txt`);
      assert.equal(body.dest, `${a}/renamed.txt`);
      assert.match(body['async-task-id'], uuid);
      const moved = await s().data.catalog.byPath(`${a}/renamed.txt`);
      assert.equal(moved?.id, file.id);
      assert.equal(moved?.name, 'renamed.txt');
      assert.equal(moved?.parent_path, a);
      assert.equal(await s().data.catalog.byPath(`${a}/notes.txt`), undefined);
      assert.equal(
        await blobText(s().data, file.id),
        'hello',
        'bytes are keyed by id: a rename never touches them',
      );

      await s().folder('alice', `${a}/proj`);
      await s().folder('alice', `${a}/proj/sub`);
      await s().file('alice', `${a}/proj/sub/deep.txt`);
      const folder = (await s().data.catalog.byPath(`${a}/proj`))!;
      const renamed = await s().call('PUT', `/data/${folder.id}/name`, {
        user: 'alice',
        body: { filename: 'project' },
      });
      assert.equal(renamed.status, 200, renamed.body);
      assert.deepEqual(await paths(`${a}/proj`), [
        `${a}/project`,
        `${a}/project/sub`,
        `${a}/project/sub/deep.txt`,
      ]);
      assert.equal(
        (await s().data.catalog.byPath(`${a}/project/sub/deep.txt`))?.parent_path,
        `${a}/project/sub`,
      );
    });

    test('rename refuses clashes, bad names and the home', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const a = home('alice');
      const one = await s().file('alice', `${a}/one.txt`);
      await s().file('alice', `${a}/two.txt`);
      const clash = await s().call('PUT', `/data/${one.id}/name`, {
        user: 'alice',
        body: { filename: 'two.txt' },
      });
      assert.equal(clash.status, 409);
      assert.equal(clash.json().error_code, 'ERR_EXISTS');
      assert.deepEqual(clash.json().paths, [`${a}/two.txt`]);

      for (const filename of ['a/b', '..', '', "it's"]) {
        const bad = await s().call('PUT', `/data/${one.id}/name`, {
          user: 'alice',
          body: { filename },
        });
        assert.equal(bad.status, 400, filename);
        assert.equal(bad.json().error_code, 'ERR_BAD_OR_MISSING_FIELD', filename);
      }
      const missingField = await s().call('PUT', `/data/${one.id}/name`, {
        user: 'alice',
        body: {},
      });
      assert.equal(missingField.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');

      const homeFolder = (await s().data.catalog.byPath(a))!;
      const homeRename = await s().call('PUT', `/data/${homeFolder.id}/name`, {
        user: 'alice',
        body: { filename: 'elsewhere' },
      });
      assert.equal(homeRename.json().error_code, 'ERR_NOT_AUTHORIZED');
      const trashFolder = (await s().data.catalog.byPath(trash('alice')))!;
      const trashMove = await s().call('PUT', `/data/${trashFolder.id}/dir`, {
        user: 'alice',
        body: { dirname: a },
      });
      assert.equal(trashMove.json().error_code, 'ERR_NOT_AUTHORIZED');

      const unknown = await s().call('PUT', '/data/00000000-0000-4000-8000-000000000000/name', {
        user: 'alice',
        body: { filename: 'x' },
      });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json().error_code, 'ERR_DOES_NOT_EXIST');
      const noUser = await s().call('PUT', `/data/${one.id}/name`, { body: { filename: 'x' } });
      assert.equal(noUser.json().error_code, 'ERR_MISSING_QUERY_PARAMETER');
      const anonymous = await s().call('PUT', `/data/${one.id}/name`, {
        user: 'anonymous',
        body: { filename: 'x' },
      });
      assert.equal(anonymous.json().error_code, 'ERR_NOT_A_USER');
    });

    test('names with LIKE wildcards, other case and astral characters move only their own subtree', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const root = `${home('carol')}/wild`;
      await s().folder('carol', root);
      await s().folder('carol', `${root}/dest`);
      for (const name of ['a_b', 'axb', 'a%', 'a%z', 'Data', 'data', '🧬x', '🧬xy']) {
        await s().folder('carol', `${root}/${name}`);
        await s().file('carol', `${root}/${name}/inside.txt`);
      }
      const mover = await s().call('POST', '/mover', {
        user: 'carol',
        body: {
          sources: [`${root}/a_b`, `${root}/a%`, `${root}/data`, `${root}/🧬x`],
          dest: `${root}/dest`,
        },
      });
      assert.equal(mover.status, 200, mover.body);
      assert.deepEqual(mover.json().sources, [
        `${root}/a_b`,
        `${root}/a%`,
        `${root}/data`,
        `${root}/🧬x`,
      ]);
      assert.equal(mover.json().dest, `${root}/dest`);
      assert.deepEqual(await paths(`${root}/dest`), [
        `${root}/dest`,
        `${root}/dest/a%`,
        `${root}/dest/a%/inside.txt`,
        `${root}/dest/a_b`,
        `${root}/dest/a_b/inside.txt`,
        `${root}/dest/data`,
        `${root}/dest/data/inside.txt`,
        `${root}/dest/🧬x`,
        `${root}/dest/🧬x/inside.txt`,
      ]);
      for (const untouched of ['axb', 'a%z', 'Data', '🧬xy']) {
        assert.ok(
          await s().data.catalog.byPath(`${root}/${untouched}/inside.txt`),
          `${untouched} stays`,
        );
      }
    });

    test('a folder cannot go into itself or below itself', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const a = `${home('alice')}/loop`;
      await s().folder('alice', a);
      await s().folder('alice', `${a}/inner`);
      const folder = (await s().data.catalog.byPath(a))!;
      for (const dirname of [a, `${a}/inner`]) {
        const answer = await s().call('PUT', `/data/${folder.id}/dir`, {
          user: 'alice',
          body: { dirname },
        });
        assert.equal(answer.status, 400, dirname);
        assert.equal(
          answer.json().error_code,
          dirname === a ? 'ERR_ILLEGAL_ARGUMENT' : 'ERR_ILLEGAL_ARGUMENT',
        );
      }
      const sibling = `${home('alice')}/loopy`;
      await s().folder('alice', sibling);
      const ok = await s().call('PUT', `/data/${folder.id}/dir`, {
        user: 'alice',
        body: { dirname: sibling },
      });
      assert.equal(ok.status, 200, 'a sibling sharing the name prefix is not "below itself"');
      assert.equal(ok.json().source, a);
      assert.equal(ok.json().dest, sibling);
      assert.ok(await s().data.catalog.byPath(`${sibling}/loop/inner`));
    });

    test('moves are all-or-nothing: one clash and nothing moves', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const a = `${home('alice')}/batch`;
      await s().folder('alice', a);
      await s().folder('alice', `${a}/target`);
      await s().file('alice', `${a}/first.txt`);
      await s().file('alice', `${a}/second.txt`);
      await s().file('alice', `${a}/target/second.txt`);
      const answer = await s().call('POST', '/mover', {
        user: 'alice',
        body: { sources: [`${a}/first.txt`, `${a}/second.txt`], dest: `${a}/target` },
      });
      assert.equal(answer.status, 409);
      assert.equal(answer.json().error_code, 'ERR_EXISTS');
      assert.deepEqual(answer.json().paths, [`${a}/target/second.txt`]);
      assert.ok(await s().data.catalog.byPath(`${a}/first.txt`), 'the first source did not move');
      assert.equal(await s().data.catalog.byPath(`${a}/target/first.txt`), undefined);

      const missing = await s().call('POST', '/mover', {
        user: 'alice',
        body: { sources: [`${a}/first.txt`, `${a}/nope.txt`], dest: `${a}/target` },
      });
      assert.equal(missing.json().error_code, 'ERR_DOES_NOT_EXIST');
      assert.deepEqual(missing.json().paths, [`${a}/nope.txt`]);
      const noDest = await s().call('POST', '/mover', {
        user: 'alice',
        body: { sources: [`${a}/first.txt`], dest: `${a}/nowhere` },
      });
      assert.equal(noDest.json().error_code, 'ERR_DOES_NOT_EXIST');
      const fileDest = await s().call('POST', '/mover', {
        user: 'alice',
        body: { sources: [`${a}/first.txt`], dest: `${a}/second.txt` },
      });
      assert.equal(fileDest.json().error_code, 'ERR_NOT_A_FOLDER');
      const toTrash = await s().call('POST', '/mover', {
        user: 'alice',
        body: { sources: [`${a}/first.txt`], dest: trash('alice') },
      });
      assert.equal(toTrash.json().error_code, 'ERR_ILLEGAL_ARGUMENT');
      const badPath = await s().call('POST', '/mover', {
        user: 'alice',
        body: { sources: ['/elsewhere/x'], dest: `${a}/target` },
      });
      assert.equal(badPath.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const tooMany = await s().call('POST', '/mover', {
        user: 'alice',
        body: { sources: Array.from({ length: 1001 }, (_, i) => `${a}/f${i}`), dest: a },
      });
      assert.equal(tooMany.json().error_code, 'ERR_TOO_MANY_RESULTS');
      assert.equal(tooMany.json().count, 1001);
      assert.equal(tooMany.json().limit, 1000);
    });

    test('the caller must own the sources and be able to write the destination', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const a = `${home('alice')}/team`;
      const team = await s().folder('alice', a);
      await s().file('alice', `${a}/alice.txt`);
      const bobs = await s().file('bob', `${home('bob')}/bob.txt`);

      const notOwner = await s().call('POST', '/mover', {
        user: 'bob',
        body: { sources: [`${a}/alice.txt`], dest: home('bob') },
      });
      assert.equal(notOwner.status, 403);
      assert.equal(notOwner.json().error_code, 'ERR_NOT_OWNER');
      const notWriteable = await s().call('PUT', `/data/${bobs.id}/dir`, {
        user: 'bob',
        body: { dirname: a },
      });
      assert.equal(notWriteable.json().error_code, 'ERR_NOT_WRITEABLE');

      await s().data.catalog.grant(s().data.db, team.id, 'bob', 'write');
      const allowed = await s().call('PUT', `/data/${bobs.id}/dir`, {
        user: 'bob',
        body: { dirname: a },
      });
      assert.equal(allowed.status, 200, allowed.body);
      assert.equal((await s().data.catalog.byPath(`${a}/bob.txt`))?.id, bobs.id);
    });

    test('concurrent requests: one rename wins a name, one delete wins a path', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const r = `${home('rita')}/race`;
      await s().folder('rita', r);
      const files = await Promise.all(
        [0, 1, 2, 3, 4].map((n) => s().file('rita', `${r}/f${n}.txt`)),
      );
      const renames = await Promise.all(
        files.map((file) =>
          s().call('PUT', `/data/${file.id}/name`, {
            user: 'rita',
            body: { filename: 'same.txt' },
          }),
        ),
      );
      assert.deepEqual(
        renames.map((answer) => answer.status).sort(),
        [200, 409, 409, 409, 409],
        renames.map((answer) => answer.body).join('\n'),
      );
      for (const answer of renames.filter((answer) => answer.status === 409))
        assert.equal(answer.json().error_code, 'ERR_EXISTS');

      await s().folder('rita', `${r}/doomed`);
      await s().file('rita', `${r}/doomed/inside.txt`);
      const deletes = await Promise.all(
        [0, 1, 2, 3].map(() =>
          s().call('POST', '/deleter', { user: 'rita', body: { paths: [`${r}/doomed`] } }),
        ),
      );
      assert.deepEqual(
        deletes.map((answer) => answer.status).sort(),
        [200, 404, 404, 404],
        deletes.map((answer) => answer.body).join('\n'),
      );
      const entries = (await paths(trash('rita'))).filter((path) => path !== trash('rita'));
      assert.equal(entries.length, 2, `one trash entry and its file: ${entries.join(', ')}`);
    });

    test("moving a folder's contents", async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const a = `${home('dave')}/from`;
      const from = await s().folder('dave', a);
      await s().folder('dave', `${home('dave')}/to`);
      await s().file('dave', `${a}/x.txt`);
      await s().folder('dave', `${a}/y`);
      await s().file('dave', `${a}/y/z.txt`);
      const answer = await s().call('PUT', `/data/${from.id}/children/dir`, {
        user: 'dave',
        body: { dirname: `${home('dave')}/to` },
      });
      assert.equal(answer.status, 200, answer.body);
      assert.deepEqual(answer.json().sources, [`${a}/x.txt`, `${a}/y`]);
      assert.deepEqual(await paths(`${home('dave')}/to`), [
        `${home('dave')}/to`,
        `${home('dave')}/to/x.txt`,
        `${home('dave')}/to/y`,
        `${home('dave')}/to/y/z.txt`,
      ]);
      assert.deepEqual(await paths(a), [a]);

      const file = (await s().data.catalog.byPath(`${home('dave')}/to/x.txt`))!;
      const notFolder = await s().call('PUT', `/data/${file.id}/children/dir`, {
        user: 'dave',
        body: { dirname: a },
      });
      assert.equal(notFolder.json().error_code, 'ERR_NOT_A_FOLDER');
    });
  });
}
