// The embedded metadata service's AVUs (backends.md §3.3) and tags (§3.4) over real HTTP, on each
// engine: nested AVUs added, updated, replaced, copied, searched and deleted; tags created, renamed,
// attached, detached, suggested and deleted; bad requests refused.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { metadataEngines, type MetadataHost } from '../../support/metadata-host.ts';

interface Avu {
  id: string;
  attr: string;
  value: string;
  unit: string;
  target_id: string;
  target_type: string;
  created_by: string;
  modified_by: string;
  created_on: number;
  modified_on: number;
  avus: Avu[];
}

/** The triples of an AVU tree, for comparisons that ignore ids and times. */
const triples = (avus: Avu[]): unknown[] =>
  avus.map((avu) => [
    avu.attr,
    avu.value,
    avu.unit,
    ...(avu.avus.length ? [triples(avu.avus)] : []),
  ]);

/** AVUs (backends.md §3.3) and tags (§3.4), on each engine. */
for (const engine of metadataEngines) {
  describe(`metadata AVUs and tags on ${engine.name}`, () => {
    let service: MetadataHost | undefined;
    before(async () => {
      service = await engine.open();
    });
    after(async () => service?.close());
    const s = () => service!;
    const ok = async (
      method: string,
      url: string,
      options: { user?: string; body?: unknown } = {},
    ) => {
      const answer = await s().call(method, url, options);
      assert.equal(answer.status, 200, `${method} ${url}: ${answer.text}`);
      return answer.text === '' ? undefined : answer.json();
    };

    test('AVUs: add (nested, idempotent by triple), update by id, replace, read, copy', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const file = randomUUID();
      const url = `/avus/file/${file}`;
      const added = (
        await ok('POST', url, {
          user: 'alice',
          body: {
            avus: [
              { attr: 'title', value: 'Soil cores', unit: '' },
              { attr: 'creator', value: 'Alice', avus: [{ attr: 'affiliation', value: 'Lab' }] },
            ],
          },
        })
      ).avus as Avu[];
      assert.deepEqual(
        triples(added),
        [
          ['creator', 'Alice', '', [['affiliation', 'Lab', '']]],
          ['title', 'Soil cores', ''],
        ],
        'ordered by attribute, value, unit',
      );
      const [creator, title] = added as [Avu, Avu];
      assert.equal(title.target_id, file);
      assert.equal(title.target_type, 'file');
      assert.equal(title.created_by, 'alice');
      assert.equal(creator.avus[0]!.target_id, creator.id, 'a nested AVU targets its parent');
      assert.equal(creator.avus[0]!.target_type, 'avu');
      assert.ok(Number.isInteger(title.created_on) && title.created_on === title.modified_on);

      // The same triple without an id is the same AVU; a new nested one is added below it.
      const again = (
        await ok('POST', url, {
          user: 'bob',
          body: {
            avus: [
              {
                attr: 'creator',
                value: 'Alice',
                unit: '',
                avus: [{ attr: 'orcid', value: '0000' }],
              },
            ],
          },
        })
      ).avus as Avu[];
      assert.deepEqual(triples(again), [
        [
          'creator',
          'Alice',
          '',
          [
            ['affiliation', 'Lab', ''],
            ['orcid', '0000', ''],
          ],
        ],
        ['title', 'Soil cores', ''],
      ]);
      assert.equal(again[0]!.id, creator.id);
      assert.equal(again[0]!.modified_by, 'alice', 'nothing about the AVU itself changed');

      // With an id: written when a value differs.
      await new Promise((resolve) => setTimeout(resolve, 3));
      const updated = (
        await ok('POST', url, {
          user: 'bob',
          body: {
            avus: [
              {
                id: title.id.toUpperCase(),
                attr: 'title',
                value: 'Soil cores, 2024',
                unit: 'text',
              },
            ],
          },
        })
      ).avus as Avu[];
      const newTitle = updated.find((avu) => avu.id === title.id)!;
      assert.deepEqual(
        [newTitle.value, newTitle.unit, newTitle.modified_by, newTitle.created_by],
        ['Soil cores, 2024', 'text', 'bob', 'alice'],
      );
      assert.ok(newTitle.modified_on > title.modified_on);
      const clash = await s().call('POST', url, {
        user: 'bob',
        body: { avus: [{ id: title.id, attr: 'creator', value: 'Alice' }] },
      });
      assert.equal(clash.status, 400, clash.text);
      assert.equal(clash.json().error_code, 'ERR_NOT_UNIQUE');

      assert.deepEqual((await ok('GET', url)).avus, updated);
      assert.deepEqual(
        (await ok('GET', `/avus/folder/${file}`)).avus,
        [],
        'the target type is part of the target',
      );

      // Copy onto a folder and an app; a triple the destination has already is not doubled.
      const folder = randomUUID();
      const app = randomUUID();
      await ok('POST', `/avus/folder/${folder}`, {
        user: 'carol',
        body: { avus: [{ attr: 'creator', value: 'Alice' }] },
      });
      await ok('POST', `${url}/copy`, {
        user: 'carol',
        body: {
          targets: [
            { id: folder, type: 'folder' },
            { id: app, type: 'app' },
          ],
        },
      });
      assert.deepEqual(triples((await ok('GET', `/avus/folder/${folder}`)).avus), [
        [
          'creator',
          'Alice',
          '',
          [
            ['affiliation', 'Lab', ''],
            ['orcid', '0000', ''],
          ],
        ],
        ['title', 'Soil cores, 2024', 'text'],
      ]);
      assert.deepEqual(triples((await ok('GET', `/avus/app/${app}`)).avus), triples(updated));

      // Replace: what is named stays (ids kept), nested sets are replaced, the rest goes.
      const replaced = (
        await ok('PUT', url, {
          user: 'dan',
          body: {
            avus: [
              { attr: 'creator', value: 'Alice', avus: [{ attr: 'orcid', value: '0000' }] },
              { attr: 'year', value: '2024' },
            ],
          },
        })
      ).avus as Avu[];
      assert.deepEqual(triples(replaced), [
        ['creator', 'Alice', '', [['orcid', '0000', '']]],
        ['year', '2024', ''],
      ]);
      assert.equal(replaced[0]!.id, creator.id);
      const orphans = await ok('GET', `/avus?target-type=avu&target-id=${creator.id}`);
      assert.deepEqual(
        triples(orphans.avus),
        [['orcid', '0000', '']],
        'the removed nested AVU is gone from the store',
      );
      assert.deepEqual(
        (await ok('PUT', url, { user: 'dan' })).avus,
        [],
        'PUT without avus removes them all',
      );
      assert.deepEqual(
        (await ok('GET', `/avus?target-type=avu&target-id=${creator.id}`)).avus,
        [],
        'nested ones go with their parent',
      );
    });

    test('AVUs: search, filter-targets, deleter, and bad requests', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      await ok('POST', `/avus/file/${a}`, {
        user: 'eve',
        body: {
          avus: [
            { attr: 'project', value: 'soil' },
            { attr: 'year', value: '2023' },
          ],
        },
      });
      await ok('POST', `/avus/file/${b}`, {
        user: 'eve',
        body: { avus: [{ attr: 'project', value: 'water' }] },
      });
      await ok('POST', `/avus/folder/${c}`, {
        user: 'eve',
        body: { avus: [{ attr: 'project', value: 'soil', unit: 'name' }] },
      });

      const byQuery = await ok(
        'GET',
        `/avus?attribute=project&value=soil&target-id=${a}&target-id=${c}`,
      );
      assert.deepEqual(new Set(byQuery.avus.map((avu: Avu) => avu.target_id)), new Set([a, c]));
      const byBody = await ok('POST', '/avus/search', {
        body: {
          attribute: ['project'],
          value: ['soil', 'water'],
          'target-type': ['file'],
          'target-id': [a, b, c],
        },
      });
      assert.deepEqual(new Set(byBody.avus.map((avu: Avu) => avu.target_id)), new Set([a, b]));
      assert.deepEqual(
        (
          await ok('POST', '/avus/search', { body: { unit: ['name'], 'target-id': [a, b, c] } })
        ).avus.map((avu: Avu) => avu.target_id),
        [c],
      );

      const filtered = await ok('POST', '/avus/filter-targets', {
        body: {
          'target-types': ['file', 'folder'],
          'target-ids': [c, b, a],
          avus: [
            { attr: 'project', value: 'soil' },
            { attr: 'year', value: '1999' },
          ],
        },
      });
      assert.deepEqual(filtered, { 'target-ids': [c, a] });

      await ok('POST', '/avus/deleter', {
        user: 'eve',
        body: {
          'target-types': ['file'],
          'target-ids': [a, c],
          avus: [{ attr: 'project', value: 'soil' }],
        },
      });
      assert.deepEqual(triples((await ok('GET', `/avus/file/${a}`)).avus), [['year', '2023', '']]);
      assert.equal(
        (await ok('GET', `/avus/folder/${c}`)).avus.length,
        1,
        'a folder was not named by target-types',
      );

      for (const [method, url, body, status, code] of [
        ['POST', `/avus/file/${a}`, { avus: 'x' }, 400, 'ERR_BAD_OR_MISSING_FIELD'],
        ['POST', `/avus/file/${a}`, {}, 400, 'ERR_BAD_OR_MISSING_FIELD'],
        [
          'POST',
          `/avus/file/${a}`,
          { avus: [{ attr: '', value: 'x' }] },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
        ],
        [
          'POST',
          `/avus/file/${a}`,
          { avus: [{ attr: 'a', value: 3 }] },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
        ],
        [
          'POST',
          `/avus/file/${a}`,
          { avus: [{ attr: 'a', value: 'b', id: 'nope' }] },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
        ],
        ['POST', `/avus/disk/${a}`, { avus: [] }, 400, 'ERR_BAD_REQUEST'],
        ['POST', '/avus/file/nope', { avus: [] }, 400, 'ERR_BAD_REQUEST'],
        [
          'POST',
          `/avus/file/${a}/copy`,
          { targets: [{ id: 'x', type: 'file' }] },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
        ],
        [
          'POST',
          '/avus/filter-targets',
          { 'target-types': ['disk'], 'target-ids': [], avus: [] },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
        ],
        ['POST', '/avus/search', { attribute: [1] }, 400, 'ERR_BAD_OR_MISSING_FIELD'],
      ] as const) {
        const answer = await s().call(method, url, { user: 'eve', body });
        assert.equal(answer.status, status, `${url} ${JSON.stringify(body)}: ${answer.text}`);
        assert.equal(answer.json().error_code, code, `${url} ${JSON.stringify(body)}`);
      }
      const noUser = await s().call('POST', `/avus/file/${a}`, { body: { avus: [] } });
      assert.equal(noUser.json().error_code, 'ERR_MISSING_QUERY_PARAMETER');
      assert.deepEqual(
        triples((await ok('GET', `/avus/file/${a}`)).avus),
        [['year', '2023', '']],
        'nothing was written',
      );
    });

    test('tags: create, rename, attach, detach, list, suggest, delete', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const create = async (user: string, value: string, description?: string) =>
        (
          await ok('POST', '/tags/user', {
            user,
            body: { value, ...(description ? { description } : {}) },
          })
        ).id as string;
      const soil = await create('fay', 'Soil', 'soil samples');
      const soilMoisture = await create('fay', 'soil_moisture');
      const water = await create('fay', ' Water 100% ');
      const gusSoil = await create('gus', 'soil');
      const duplicate = await s().call('POST', '/tags/user', {
        user: 'fay',
        body: { value: 'Soil' },
      });
      assert.equal(duplicate.status, 400);
      assert.equal(duplicate.json().error_code, 'ERR_NOT_UNIQUE');
      for (const body of [
        {},
        { value: '' },
        { value: 'x'.repeat(256) },
        { value: 'ok', description: 5 },
      ]) {
        const answer = await s().call('POST', '/tags/user', { user: 'fay', body });
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.equal(answer.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
      }

      // Listed by value in the database's collation; compared here whatever that is.
      const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1);
      assert.deepEqual(
        (await ok('GET', '/tags/user', { user: 'fay' })).tags.sort(byId),
        [
          { id: soil, value: 'Soil', description: 'soil samples' },
          { id: water, value: 'Water 100%', description: '' },
          { id: soilMoisture, value: 'soil_moisture', description: '' },
        ].sort(byId),
      );

      const suggest = async (contains: string, limit?: number) =>
        (
          await ok(
            'GET',
            `/tags/suggestions?contains=${encodeURIComponent(contains)}${limit === undefined ? '' : `&limit=${limit}`}`,
            { user: 'fay' },
          )
        ).tags.map((tag: { id: string }) => tag.id);
      assert.deepEqual(
        new Set(await suggest('SOIL')),
        new Set([soil, soilMoisture]),
        'any letter case, only fay’s tags',
      );
      assert.deepEqual(await suggest('l_m'), [soilMoisture], '_ is literal');
      assert.deepEqual(await suggest('0%'), [water], '% is literal');
      assert.equal((await suggest('o', 1)).length, 1);
      const badLimit = await s().call('GET', '/tags/suggestions?contains=s&limit=-1', {
        user: 'fay',
      });
      assert.equal(badLimit.json().error_code, 'ERR_BAD_QUERY_PARAMETER');
      assert.equal(
        (await s().call('GET', '/tags/suggestions', { user: 'fay' })).json().error_code,
        'ERR_MISSING_QUERY_PARAMETER',
      );

      const renamed = await ok('PATCH', `/tags/user/${soil}`, {
        user: 'fay',
        body: { value: 'Soils' },
      });
      assert.deepEqual(renamed, { id: soil, value: 'Soils', description: 'soil samples' });
      assert.equal(
        (
          await s().call('PATCH', `/tags/user/${soil}`, {
            user: 'fay',
            body: { value: 'soil_moisture' },
          })
        ).json().error_code,
        'ERR_NOT_UNIQUE',
      );
      assert.equal(
        (await s().call('PATCH', `/tags/user/${gusSoil}`, { user: 'fay', body: { value: 'mine' } }))
          .status,
        404,
        "gus's tag is not fay's",
      );

      const file = randomUUID();
      const folder = randomUUID();
      const attach = (
        user: string,
        target: string,
        type: string,
        tags: string[],
        action = 'attach',
      ) =>
        s().call('PATCH', `/filesystem/data/${target}/tags?type=${action}&data-type=${type}`, {
          user,
          body: { tags },
        });
      assert.equal((await attach('fay', file, 'file', [soil, water, soil])).status, 200);
      assert.equal(
        (await attach('fay', file, 'file', [soil])).status,
        200,
        'attaching again changes nothing',
      );
      assert.equal((await attach('fay', folder, 'folder', [soilMoisture])).status, 200);
      const foreign = await attach('fay', file, 'file', [gusSoil]);
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.json().tags, [gusSoil]);
      assert.equal((await attach('gus', file, 'file', [gusSoil])).status, 200);
      assert.equal(
        (await attach('fay', file, 'dir', [soil])).json().error_code,
        'ERR_BAD_QUERY_PARAMETER',
      );
      assert.equal(
        (await attach('fay', file, 'file', [soil], 'toggle')).json().error_code,
        'ERR_BAD_QUERY_PARAMETER',
      );
      assert.equal(
        (await attach('fay', file, 'file', ['nope'])).json().error_code,
        'ERR_BAD_OR_MISSING_FIELD',
      );

      const onFile = async (user: string) =>
        (await ok('GET', `/filesystem/data/${file}/tags`, { user })).tags
          .map((tag: { value: string }) => tag.value)
          .sort();
      assert.deepEqual(await onFile('fay'), ['Soils', 'Water 100%'], 'each once, only fay’s');
      assert.deepEqual(await onFile('gus'), ['soil']);
      assert.deepEqual(
        (await ok('GET', '/filesystem/data/tags', { user: 'fay' })).tags
          .map((tag: { value: string }) => tag.value)
          .sort(),
        ['Soils', 'Water 100%', 'soil_moisture'],
      );

      assert.equal((await attach('fay', file, 'file', [water], 'detach')).status, 200);
      assert.deepEqual(await onFile('fay'), ['Soils']);
      const history = await s()
        .store.db.selectFrom('attached_tags')
        .selectAll()
        .where('tag_id', '=', water)
        .execute();
      assert.equal(history.length, 1);
      assert.equal(history[0]!.detacher_id, 'fay', 'detaching is recorded, not deleted');
      assert.ok(Number(history[0]!.detached_on) >= Number(history[0]!.attached_on));
      assert.equal((await attach('fay', file, 'file', [water])).status, 200);
      assert.deepEqual(await onFile('fay'), ['Soils', 'Water 100%'], 're-attached');

      await ok('DELETE', '/filesystem/data/tags', { user: 'fay' });
      assert.deepEqual(await onFile('fay'), []);
      assert.deepEqual(await onFile('gus'), ['soil'], "gus's attachment stays");
      assert.deepEqual((await ok('GET', '/filesystem/data/tags', { user: 'fay' })).tags, []);

      await ok('DELETE', `/tags/user/${soil}`, { user: 'fay' });
      assert.equal((await s().call('DELETE', `/tags/user/${soil}`, { user: 'fay' })).status, 404);
      await ok('DELETE', '/tags/user', { user: 'fay' });
      assert.deepEqual((await ok('GET', '/tags/user', { user: 'fay' })).tags, []);
      assert.equal((await ok('GET', '/tags/user', { user: 'gus' })).tags.length, 1);
      const left = await s()
        .store.db.selectFrom('attached_tags')
        .select('tag_id')
        .where('target_id', 'in', [file, folder])
        .execute();
      assert.deepEqual(
        left.map((row) => row.tag_id),
        [gusSoil],
        "fay's attachments went with her tags",
      );
    });
  });
}
