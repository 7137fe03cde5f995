// The embedded search service (routes.md §26) over real HTTP, on each engine: the DE query
// language over the data store's catalog — names by prefix, wildcard and exact match (in any
// letter case, letters beyond ASCII too), AVUs, tags, date and size ranges,
// info types — sorted and paged, limited to what the caller can read (never another user's
// private file; public data only for the anonymous caller), with the name index kept current by
// renames, moves and deletes; bad queries are 400s.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { withUser } from '../../support/backend-host.ts';
import { engines, home, zone, type DataInfoHost } from '../../support/data-info-host.ts';

const day = 24 * 60 * 60 * 1000;
const jan1 = Date.UTC(2024, 0, 1);

for (const engine of engines) {
  describe(`data search on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    const a = home('alice');
    const b = home('bob');
    const community = `/${zone}/home/shared`;

    before(async () => {
      service = await engine.open(1024 * 1024, ['metadata', 'search']);
      if (!service) return;
      const s = service;
      await s.folder('alice', `${a}/reads`);
      await s.file('alice', `${a}/reads/sample_reads.fastq`, 'x'.repeat(2000));
      await s.file('alice', `${a}/reads/sample_notes.txt`, 'x'.repeat(10));
      await s.file('alice', `${a}/reads/other.fastq`, 'x'.repeat(5000));
      await s.file('alice', `${a}/Summary.CSV`, 'x'.repeat(100));
      await s.file('alice', `${a}/Étude_Données.txt`, 'x');
      await s.file('bob', `${b}/sample_secret.fastq`, 'secret');
      await s.file('bob', `${b}/sample_shared.fastq`, 'shared');
      await s.grant(`${b}/sample_shared.fastq`, 'alice', 'read');
      // The community folder is the data store's own, readable by everyone.
      await s.data.catalog.create({
        path: `${community}/sample_public.fastq`,
        type: 'file',
        owner: 'data-store',
      });
      const db = s.store.db;
      // Dates and info types set directly: the catalog stamps the present.
      for (const [name, created] of [
        ['sample_reads.fastq', jan1],
        ['sample_notes.txt', jan1 + 10 * day],
        ['other.fastq', jan1 + 40 * day],
      ] as const)
        await db
          .updateTable('data_objects')
          .set({ created_at: created, modified_at: created })
          .where('path', '=', `${a}/reads/${name}`)
          .execute();
      await db
        .updateTable('data_objects')
        .set({ info_type: 'fastq' })
        .where('name', 'like', '%.fastq')
        .execute();
    });
    after(async () => service?.close());

    const s = () => service!;
    const search = async (user: string, body: unknown) => {
      const answer = await s().request('POST', withUser('/search/data/search', user), {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return answer;
    };
    const paths = async (user: string, query: unknown, extra: object = {}) => {
      const answer = await search(user, { query, size: 100, ...extra });
      assert.equal(answer.status, 200, answer.text);
      return (answer.json().hits as { _source: { path: string } }[]).map((hit) => hit._source.path);
    };
    const label = (text: string, exact = false) => ({
      all: [{ type: 'label', args: { label: text, exact } }],
    });

    test('names: terms anywhere, prefix and other wildcards, exact; any letter case', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      assert.deepEqual((await paths('alice', label('notes'))).sort(), [
        `${a}/reads/sample_notes.txt`,
      ]);
      // Implicit wildcards around each term, any term matching.
      assert.deepEqual((await paths('alice', label('NOTES summary'))).sort(), [
        `${a}/Summary.CSV`,
        `${a}/reads/sample_notes.txt`,
      ]);
      assert.deepEqual(
        (await paths('alice', label('sample*'))).sort(),
        [
          `${b}/sample_shared.fastq`,
          `${community}/sample_public.fastq`,
          `${a}/reads/sample_notes.txt`,
          `${a}/reads/sample_reads.fastq`,
        ].sort(),
      );
      assert.deepEqual(await paths('alice', label('s?mple_n*.txt')), [
        `${a}/reads/sample_notes.txt`,
      ]);
      assert.deepEqual(await paths('alice', label('summary.csv', true)), [`${a}/Summary.CSV`]);
      assert.deepEqual(await paths('alice', label('summary', true)), []);
      // Two letters: too short for the index, still found.
      assert.deepEqual(await paths('alice', label('*.CS?')), [`${a}/Summary.CSV`]);
      // A substring inside a word (the PostgreSQL index holds suffixes).
      assert.deepEqual(await paths('alice', label('ther')), [`${a}/reads/other.fastq`]);
      // Across the end of a word: its last letters (a suffix), then what follows.
      assert.deepEqual(await paths('alice', label('ample_no')), [`${a}/reads/sample_notes.txt`]);
      assert.deepEqual(await paths('alice', label('E_READS.fa')), [
        `${a}/reads/sample_reads.fastq`,
      ]);
      assert.deepEqual(await paths('alice', label('reads.')), [`${a}/reads/sample_reads.fastq`]);
      assert.deepEqual(await paths('alice', label('*mary.c*')), [`${a}/Summary.CSV`]);
      assert.deepEqual(await paths('alice', label('ample_x')), []);
      // Letters beyond ASCII, in any letter case (on SQLite, whose LIKE folds ASCII letters only,
      // through the store's fold_case).
      for (const term of [
        'ÉTUDE_donn',
        'étude_DONNÉES',
        'DONNÉES.TXT',
        'étude*',
        'ÉTUDE_DONNÉES.txt',
        // ASCII terms over a name beyond ASCII: its ASCII letters in any case, `?` any one letter.
        'TUDE_donn',
        '?tude_donn?es.TXT',
      ])
        assert.deepEqual(await paths('alice', label(term)), [`${a}/Étude_Données.txt`], term);
      assert.deepEqual(await paths('alice', label('étudé')), []);
    });

    test("never another user's private file; the anonymous caller sees public data only", async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const forAlice = await paths('alice', label('sample'));
      assert.ok(!forAlice.includes(`${b}/sample_secret.fastq`));
      assert.ok(forAlice.includes(`${b}/sample_shared.fastq`));
      assert.deepEqual(
        (await paths('bob', label('sample'))).sort(),
        [
          `${b}/sample_secret.fastq`,
          `${b}/sample_shared.fastq`,
          `${community}/sample_public.fastq`,
        ].sort(),
      );
      assert.deepEqual(await paths('anonymous', label('sample')), [
        `${community}/sample_public.fastq`,
      ]);
      assert.deepEqual(await paths('carol', { all: [{ type: 'path', args: { prefix: b } }] }), []);
      const everything = await search('anonymous', { query: {}, size: 1000 });
      assert.equal(everything.status, 200);
      assert.ok(
        (everything.json().hits as { _source: { path: string } }[]).every(
          (hit) => hit._source.path === community || hit._source.path.startsWith(`${community}/`),
        ),
        everything.text,
      );
    });

    test('path prefix, owner, info type, size and date ranges, nested any/none', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const inReads = { type: 'path', args: { prefix: `${a}/reads/` } };
      assert.equal((await paths('alice', { all: [inReads] })).length, 3);
      assert.deepEqual(
        (await paths('alice', { all: [{ type: 'owner', args: { owner: `bob#${zone}` } }] })).sort(),
        [`${b}/sample_shared.fastq`],
      );
      assert.deepEqual(
        (
          await paths('alice', {
            all: [inReads, { type: 'infotype', args: { infotype: 'fastq' } }],
          })
        ).sort(),
        [`${a}/reads/other.fastq`, `${a}/reads/sample_reads.fastq`],
      );
      assert.deepEqual(
        await paths('alice', {
          all: [inReads, { type: 'size', args: { from: '1KB', to: '4KB' } }],
        }),
        [`${a}/reads/sample_reads.fastq`],
      );
      assert.deepEqual(await paths('alice', { all: [{ type: 'size', args: { from: 4000 } }] }), [
        `${a}/reads/other.fastq`,
      ]);
      assert.deepEqual(
        (
          await paths('alice', {
            all: [inReads, { type: 'created', args: { from: '2024-01-01', to: '2024-01-15' } }],
          })
        ).sort(),
        [`${a}/reads/sample_notes.txt`, `${a}/reads/sample_reads.fastq`],
      );
      assert.deepEqual(
        await paths('alice', {
          all: [{ type: 'modified', args: { from: String(jan1 + 20 * day) } }, inReads],
        }),
        [`${a}/reads/other.fastq`],
      );
      assert.deepEqual(
        await paths('alice', {
          all: [inReads],
          any: [label('notes'), label('other')],
          none: [{ type: 'label', args: { label: 'other' } }],
        }),
        [`${a}/reads/sample_notes.txt`],
      );
    });

    test('AVUs and tags of the metadata service', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const db = s().store.db;
      const reads = (await s().object(`${a}/reads/sample_reads.fastq`))!;
      const secret = (await s().object(`${b}/sample_secret.fastq`))!;
      for (const [target, attribute, value] of [
        [reads, 'organism', 'Arabidopsis thaliana'],
        [secret, 'organism', 'Arabidopsis lyrata'],
        [reads, 'Étape', 'Séquençage'],
      ] as const)
        await db
          .insertInto('avus')
          .values({
            id: randomUUID(),
            attribute,
            value,
            unit: '',
            target_id: target.id,
            target_type: 'file',
            created_by: target.owner,
            modified_by: target.owner,
            created_on: 1,
            modified_on: 1,
          })
          .execute();
      const avu = (args: object) => ({ all: [{ type: 'metadata', args }] });
      assert.deepEqual(await paths('alice', avu({ attribute: 'organism', value: 'arabidopsis' })), [
        `${a}/reads/sample_reads.fastq`,
      ]);
      assert.deepEqual(
        await paths('alice', avu({ value: 'Arabidopsis thaliana', value_exact: true })),
        [`${a}/reads/sample_reads.fastq`],
      );
      assert.deepEqual(await paths('alice', avu({ value: 'Arabidopsis', value_exact: true })), []);
      assert.deepEqual(await paths('bob', avu({ value: 'lyrata' })), [`${b}/sample_secret.fastq`]);
      // Letters beyond ASCII in any letter case, as names.
      assert.deepEqual(await paths('alice', avu({ attribute: 'étape', value: 'SÉQUENÇAGE' })), [
        `${a}/reads/sample_reads.fastq`,
      ]);
      const hit = (await search('alice', { query: avu({ attribute: 'organism' }) })).json().hits[0];
      assert.deepEqual(
        [...hit._source.metadata.cyverse].sort(
          (x: { attribute: string }, y: { attribute: string }) =>
            x.attribute.localeCompare(y.attribute),
        ),
        [
          { attribute: 'Étape', value: 'Séquençage', unit: '' },
          { attribute: 'organism', value: 'Arabidopsis thaliana', unit: '' },
        ],
      );

      const tagId = randomUUID();
      const bobsTag = randomUUID();
      for (const [id, owner] of [
        [tagId, 'alice'],
        [bobsTag, 'bob'],
      ] as const)
        await db
          .insertInto('tags')
          .values({ id, value: `tag of ${owner}`, owner_id: owner, created_on: 1, modified_on: 1 })
          .execute();
      const notes = (await s().object(`${a}/reads/sample_notes.txt`))!;
      await db
        .insertInto('attached_tags')
        .values({
          target_id: notes.id,
          target_type: 'file',
          tag_id: tagId,
          attacher_id: 'alice',
          attached_on: 1,
          detached_on: null,
        })
        .execute();
      const tagged = (tags: string[]) => ({ all: [{ type: 'tag', args: { tags } }] });
      assert.deepEqual(await paths('alice', tagged([tagId])), [`${a}/reads/sample_notes.txt`]);
      const foreign = await search('alice', { query: tagged([bobsTag]) });
      assert.equal(foreign.status, 400);
      assert.equal(foreign.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
    });

    test('sorted and paged: total counts every match, pages follow the sort', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const query = { all: [{ type: 'path', args: { prefix: `${a}/reads/` } }] };
      const page = async (from: number, sort: object[]) => {
        const answer = await search('alice', { query, size: 2, from, sort });
        assert.equal(answer.status, 200, answer.text);
        return answer.json() as {
          total: number;
          hits: { _type: string; _source: { label: string } }[];
        };
      };
      const first = await page(0, [{ field: 'fileSize', order: 'descending' }]);
      assert.equal(first.total, 3);
      assert.deepEqual(
        first.hits.map((hit) => hit._source.label),
        ['other.fastq', 'sample_reads.fastq'],
      );
      const second = await page(2, [{ field: 'fileSize', order: 'descending' }]);
      assert.equal(second.total, 3);
      assert.deepEqual(
        second.hits.map((hit) => hit._source.label),
        ['sample_notes.txt'],
      );
      const byLabel = await page(0, [{ field: 'label', order: 'ascending' }]);
      assert.deepEqual(
        byLabel.hits.map((hit) => hit._source.label),
        ['other.fastq', 'sample_notes.txt'],
      );
      assert.equal(byLabel.hits[0]!._type, 'file');
      const folders = await paths('alice', label('reads', true));
      assert.deepEqual(folders, [`${a}/reads`]);
    });

    test('the index follows renames, moves and deletes', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const file = await s().file('alice', `${a}/zebrafish_run.txt`);
      assert.deepEqual(await paths('alice', label('zebrafish')), [`${a}/zebrafish_run.txt`]);
      const renamed = await s().call('PUT', `/data/${file.id}/name`, {
        user: 'alice',
        body: { filename: 'medaka_run.txt' },
      });
      assert.equal(renamed.status, 200, renamed.body);
      assert.deepEqual(await paths('alice', label('zebrafish')), []);
      assert.deepEqual(await paths('alice', label('medaka')), [`${a}/medaka_run.txt`]);

      await s().folder('alice', `${a}/fish`);
      const moved = await s().call('POST', '/mover', {
        user: 'alice',
        body: { sources: [`${a}/medaka_run.txt`], dest: `${a}/fish` },
      });
      assert.equal(moved.status, 200, moved.body);
      assert.deepEqual(
        await paths('alice', {
          all: [label('medaka'), { type: 'path', args: { prefix: `${a}/fish/` } }],
        }),
        [`${a}/fish/medaka_run.txt`],
      );

      const deleted = await s().call('POST', '/deleter', {
        user: 'alice',
        body: { paths: [`${a}/fish`] },
      });
      assert.equal(deleted.status, 200, deleted.body);
      const inTrash = await paths('alice', label('medaka'));
      assert.equal(inTrash.length, 1);
      assert.ok(inTrash[0]!.startsWith(`/${zone}/trash/home/alice/`), inTrash[0]);
      const emptied = await s().call('DELETE', '/trash', { user: 'alice' });
      assert.equal(emptied.status, 200, emptied.body);
      assert.deepEqual(await paths('alice', label('medaka')), []);
      // Nothing of the name index outlives its objects.
      const orphans =
        engine.name === 'SQLite'
          ? await s()
              .store.db.selectFrom('data_search_keys' as never)
              .select('object_id' as never)
              .where(
                'object_id' as never,
                'not in',
                s().store.db.selectFrom('data_objects').select('id') as never,
              )
              .execute()
          : [];
      assert.deepEqual(orphans, []);
    });

    test('bad queries are 400s with an error code; the documentation lists clauses and sort fields', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      for (const [body, code] of [
        [{}, 'ERR_BAD_OR_MISSING_FIELD'],
        [{ query: { all: [{ type: 'nonsense', args: {} }] } }, 'ERR_BAD_OR_MISSING_FIELD'],
        [{ query: label('') }, 'ERR_BAD_OR_MISSING_FIELD'],
        [
          { query: { all: [{ type: 'size', args: { from: 'lots' } }] } },
          'ERR_BAD_OR_MISSING_FIELD',
        ],
        [
          { query: { all: [{ type: 'created', args: { to: 'yesterday' } }] } },
          'ERR_BAD_OR_MISSING_FIELD',
        ],
        [
          { query: {}, sort: [{ field: 'colour', order: 'ascending' }] },
          'ERR_BAD_OR_MISSING_FIELD',
        ],
        [{ query: {}, sort: [{ field: 'label', order: 'up' }] }, 'ERR_BAD_OR_MISSING_FIELD'],
        [{ query: {}, size: -1 }, 'ERR_BAD_OR_MISSING_FIELD'],
        [{ query: {}, from: 9999, size: 10 }, 'ERR_BAD_OR_MISSING_FIELD'],
        [{ scroll_id: 'abc', scroll: '1m' }, 'ERR_ILLEGAL_ARGUMENT'],
      ] as const) {
        const answer = await search('alice', body);
        assert.equal(answer.status, 400, JSON.stringify(body));
        assert.equal(answer.json().error_code, code, answer.text);
      }
      const docs = await s().request('GET', '/search/data/documentation');
      assert.equal(docs.status, 200);
      const body = docs.json();
      for (const clause of [
        'label',
        'path',
        'owner',
        'metadata',
        'tag',
        'created',
        'modified',
        'size',
        'infotype',
      ])
        assert.ok(body.clauses[clause]?.summary, clause);
      assert.deepEqual(body.sortFields.sort(), [
        'creator',
        'dateCreated',
        'dateModified',
        'fileSize',
        'id',
        'label',
        'path',
      ]);
    });
  });
}
