// File and folder metadata through the gateway (routes.md §13): AVUs kept by the embedded
// metadata service, entries and permissions by the embedded data-info, over real HTTP on both
// database engines. Saved metadata files, ORE exports and CSV-applied AVUs are read back.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

const q = encodeURIComponent;

/** The AVUs as comparable triples, nested ones as `parent>child`, sorted. */
function triples(avus: any[], prefix = ''): string[] {
  return avus
    .flatMap((avu) => [
      `${prefix}${avu.attr}=${avu.value}|${avu.unit}`,
      ...triples(avu.avus ?? [], `${prefix}${avu.attr}>`),
    ])
    .sort();
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`data metadata (${engine})`, () => {
    let g: MetadataGateway | undefined;
    let folder: any; // alice's `project` folder
    let alpha: any; // project/alpha.txt
    let beta: any; // project/beta.txt
    let gamma: any; // project/sub/gamma.txt
    let bobs: any; // bob's own file

    const metadataOf = (user: string | null, id: string, secured = true) =>
      g!.call(user, 'GET', `${secured ? '/secured' : ''}/filesystem/${id}/metadata`);
    const download = async (user: string, path: string) =>
      g!.call(user, 'GET', `/secured/fileio/download?path=${q(path)}`);

    before(async () => {
      g = await startMetadataGateway({ engine });
      if (!g) return;
      folder = await g.folder('alice', `${g.home('alice')}/project`);
      alpha = await g.upload('alice', folder.path, 'alpha.txt', 'a');
      beta = await g.upload('alice', folder.path, 'beta.txt', 'b');
      await g.folder('alice', `${folder.path}/sub`);
      gamma = await g.upload('alice', `${folder.path}/sub`, 'gamma.txt', 'c');
      bobs = await g.upload('bob', g.home('bob'), 'bobs.txt', 'bob');
    });
    after(async () => g?.close());

    test('set, add and replace AVUs (nested ones included) and read them back', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const empty = await metadataOf('alice', alpha.id);
      assert.equal(empty.status, 200, empty.text);
      assert.deepEqual(empty.body, {
        avus: [],
        'store-avus': [],
        'irods-avus': [],
        path: alpha.path,
      });

      const set = await g.call('alice', 'POST', `/secured/filesystem/${alpha.id}/metadata`, {
        json: {
          avus: [
            {
              attr: 'title',
              value: 'Alpha',
              unit: '',
              avus: [{ attr: 'lang', value: 'en', unit: '' }],
            },
            { attr: 'size', value: '1', unit: 'byte' },
          ],
          'store-avus': [],
        },
      });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.path, alpha.path);
      assert.equal(set.body.user, 'alice');
      let read = await metadataOf('alice', alpha.id, false);
      assert.deepEqual(triples(read.body.avus), ['size=1|byte', 'title=Alpha|', 'title>lang=en|']);
      assert.deepEqual(read.body['store-avus'], []);
      assert.equal(read.body.path, alpha.path);

      const added = await g.call('alice', 'POST', `/filesystem/${alpha.id}/metadata/add`, {
        json: { avus: [{ attr: 'keyword', value: 'demo', unit: '' }] },
      });
      assert.equal(added.status, 200, added.text);
      read = await metadataOf('alice', alpha.id);
      assert.deepEqual(triples(read.body.avus), [
        'keyword=demo|',
        'size=1|byte',
        'title=Alpha|',
        'title>lang=en|',
      ]);

      // Changing one by id, and replacing the whole set.
      const title = read.body.avus.find((avu: any) => avu.attr === 'title');
      const changed = await g.call(
        'alice',
        'POST',
        `/secured/filesystem/${alpha.id}/metadata/add`,
        { json: { avus: [{ id: title.id, attr: 'title', value: 'Alpha 2', unit: '' }] } },
      );
      assert.equal(changed.status, 200, changed.text);
      read = await metadataOf('alice', alpha.id);
      assert.ok(triples(read.body.avus).includes('title=Alpha 2|'));
      const replaced = await g.call('alice', 'POST', `/secured/filesystem/${alpha.id}/metadata`, {
        json: {
          avus: [
            { attr: 'title', value: 'Alpha', unit: '' },
            { attr: 'keyword', value: 'demo', unit: '' },
          ],
        },
      });
      assert.equal(replaced.status, 200, replaced.text);
      read = await metadataOf('alice', alpha.id);
      assert.deepEqual(triples(read.body.avus), ['keyword=demo|', 'title=Alpha|']);
    });

    test('folders have metadata too', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const set = await g.call('alice', 'POST', `/secured/filesystem/${folder.id}/metadata/add`, {
        json: { avus: [{ attr: 'project', value: 'P1', unit: '' }] },
      });
      assert.equal(set.status, 200, set.text);
      const read = await metadataOf('alice', folder.id);
      assert.deepEqual(triples(read.body.avus), ['project=P1|']);
      assert.equal(read.body.avus[0].target_id, folder.id);
    });

    test('read permission to see, write permission to change; unknown ids are 404', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const unreadable = await metadataOf('bob', alpha.id);
      assert.equal(unreadable.status, 403, unreadable.text);
      assert.equal(unreadable.body.error_code, 'ERR_NOT_READABLE');
      for (const id of [randomUUID(), 'not-a-uuid']) {
        const unknown = await metadataOf('alice', id);
        assert.equal(unknown.status, 404, unknown.text);
        assert.equal(unknown.body.error_code, 'ERR_DOES_NOT_EXIST');
      }
      const anonymous = await metadataOf(null, alpha.id, false);
      assert.equal(anonymous.status, 403, anonymous.text);
      assert.equal((await metadataOf(null, alpha.id)).status, 401);

      const shared = await g.call('alice', 'POST', '/secured/share', {
        json: { sharing: [{ user: 'bob', paths: [{ path: beta.path, permission: 'read' }] }] },
      });
      assert.equal(shared.status, 200, shared.text);
      await g.call('alice', 'POST', `/secured/filesystem/${beta.id}/metadata`, {
        json: { avus: [{ attr: 'title', value: 'Beta', unit: '' }] },
      });
      const seen = await metadataOf('bob', beta.id);
      assert.equal(seen.status, 200, seen.text);
      assert.deepEqual(triples(seen.body.avus), ['title=Beta|']);
      for (const route of ['metadata', 'metadata/add']) {
        const refused = await g.call('bob', 'POST', `/secured/filesystem/${beta.id}/${route}`, {
          json: { avus: [{ attr: 'title', value: 'Bob was here', unit: '' }] },
        });
        assert.equal(refused.status, 403, refused.text);
        assert.equal(refused.body.error_code, 'ERR_NOT_WRITEABLE');
      }
      assert.deepEqual(triples((await metadataOf('alice', beta.id)).body.avus), ['title=Beta|']);
    });

    // The web UI's metadata view (Sonora src/components/metadata/form/index.js) reads the answer's
    // `irods-avus` as a list (its length picks the tabs, its entries {id, attr, value, unit} go in
    // the form) and sends the list back in `irods-avus` when it saves.
    test('irods-avus: a list, empty (the data store keeps no AVUs of its own), sent back empty', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const delta = await g.upload('alice', g.home('alice'), 'delta.txt', 'd');
      await g.call('alice', 'POST', `/secured/filesystem/${delta.id}/metadata`, {
        json: { avus: [{ attr: 'caption', value: 'Delta', unit: '' }] },
      });
      for (const id of [delta.id, folder.id]) {
        const read = await metadataOf('alice', id);
        assert.equal(read.status, 200, read.text);
        assert.ok(Array.isArray(read.body['irods-avus']), read.text);
        assert.deepEqual(read.body['irods-avus'], []);
      }
      const read = await metadataOf('alice', delta.id);
      const saved = await g.call('alice', 'POST', `/secured/filesystem/${delta.id}/metadata`, {
        json: { avus: read.body.avus, 'irods-avus': read.body['irods-avus'] },
      });
      assert.equal(saved.status, 200, saved.text);
      assert.deepEqual(triples((await metadataOf('alice', delta.id)).body.avus), [
        'caption=Delta|',
      ]);
      const lost = await g.call('alice', 'POST', `/secured/filesystem/${delta.id}/metadata`, {
        json: { avus: [], 'irods-avus': [{ id: '1', attr: 'a', value: 'b', unit: '' }] },
      });
      assert.equal(lost.status, 400, lost.text);
      assert.equal(lost.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      assert.equal(lost.body.field, 'irods-avus');
      assert.deepEqual(triples((await metadataOf('alice', delta.id)).body.avus), [
        'caption=Delta|',
      ]);
    });

    test('bad bodies are 400 with an error code', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const cases: [string, unknown][] = [
        ['metadata', { 'store-avus': [{ attr: 'a', value: 'b', unit: '' }] }],
        ['metadata', { avus: 'nope' }],
        ['metadata', { avus: [{ attr: '', value: 'x', unit: '' }] }],
        ['metadata/add', {}],
        ['metadata/copy', { destination_ids: [] }],
        ['metadata/copy', {}],
      ];
      for (const [route, json] of cases) {
        const answer = await g.call('alice', 'POST', `/secured/filesystem/${alpha.id}/${route}`, {
          json,
        });
        assert.equal(answer.status, 400, `${route} ${JSON.stringify(json)}: ${answer.text}`);
        assert.match(answer.body.error_code, /^ERR_/);
      }
      const malformed = await g.call('alice', 'POST', `/secured/filesystem/${alpha.id}/metadata`, {
        raw: '{"avus": [',
      });
      assert.equal(malformed.status, 400, malformed.text);
    });

    test('copy adds the source AVUs to each destination', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const copied = await g.call(
        'alice',
        'POST',
        `/secured/filesystem/${alpha.id}/metadata/copy`,
        { json: { destination_ids: [gamma.id, folder.id] } },
      );
      assert.equal(copied.status, 200, copied.text);
      assert.deepEqual(copied.body, {
        user: 'alice',
        src: alpha.path,
        paths: [gamma.path, folder.path],
      });
      assert.deepEqual(triples((await metadataOf('alice', gamma.id)).body.avus), [
        'keyword=demo|',
        'title=Alpha|',
      ]);
      assert.deepEqual(triples((await metadataOf('alice', folder.id)).body.avus), [
        'keyword=demo|',
        'project=P1|',
        'title=Alpha|',
      ]);
      // Copying again keeps each AVU once.
      await g.call('alice', 'POST', `/secured/filesystem/${alpha.id}/metadata/copy`, {
        json: { destination_ids: [gamma.id] },
      });
      assert.deepEqual(triples((await metadataOf('alice', gamma.id)).body.avus), [
        'keyword=demo|',
        'title=Alpha|',
      ]);
      // bob may read beta but not write alice's files: nothing is copied.
      const refused = await g.call('bob', 'POST', `/secured/filesystem/${beta.id}/metadata/copy`, {
        json: { destination_ids: [alpha.id] },
      });
      assert.equal(refused.status, 403, refused.text);
      const unknown = await g.call(
        'alice',
        'POST',
        `/secured/filesystem/${alpha.id}/metadata/copy`,
        { json: { destination_ids: [randomUUID()] } },
      );
      assert.equal(unknown.status, 404, unknown.text);
    });

    test('searching metadata finds only what the caller can read', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      await g.call('bob', 'POST', `/secured/filesystem/${bobs.id}/metadata`, {
        json: { avus: [{ attr: 'title', value: 'Bobs', unit: '' }] },
      });
      const targetsOf = (answer: any) =>
        [...new Set(answer.body.avus.map((avu: any) => avu.target_id))].sort();
      const byAlice = await g.call('alice', 'GET', '/filesystem/metadata?attribute=title');
      assert.equal(byAlice.status, 200, byAlice.text);
      assert.deepEqual(targetsOf(byAlice), [alpha.id, beta.id, gamma.id, folder.id].sort());
      const byBob = await g.call('bob', 'GET', '/secured/filesystem/metadata?Attribute=title');
      // beta is shared with bob; data-info lets him read its folder as the way to it (a pass-through folder), not alpha or gamma.
      assert.deepEqual(targetsOf(byBob), [beta.id, bobs.id, folder.id].sort());
      const valued = await g.call(
        'alice',
        'GET',
        `/filesystem/metadata?attribute=title&value=Alpha&target-id=${gamma.id}&target-id=${alpha.id}`,
      );
      assert.deepEqual(targetsOf(valued), [alpha.id, gamma.id].sort());

      const searched = await g.call('alice', 'POST', '/filesystem/metadata/search', {
        json: { attribute: ['title', 'project'], 'target-id': [folder.id, bobs.id] },
      });
      assert.equal(searched.status, 200, searched.text);
      assert.deepEqual(searched.body.avus.map((avu: any) => `${avu.attr}=${avu.value}`).sort(), [
        'project=P1',
        'title=Alpha',
      ]);
      const nothingNamed = await g.call('alice', 'GET', '/filesystem/metadata');
      assert.equal(nothingNamed.status, 400, nothingNamed.text);
    });

    test('metadata save writes a readable JSON file, recursively for a folder', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const dest = `${g.home('alice')}/project-metadata.json`;
      const saved = await g.call('alice', 'POST', `/filesystem/${folder.id}/metadata/save`, {
        json: { dest, recursive: true },
      });
      assert.equal(saved.status, 200, saved.text);
      assert.equal(saved.body.file.path, dest);
      assert.equal(saved.body.file.type, 'file');
      const file = await download('alice', dest);
      assert.equal(file.status, 200, file.text);
      const document = JSON.parse(file.text);
      assert.equal(document.id, folder.id);
      assert.equal(document.path, folder.path);
      assert.equal(document.type, 'folder');
      assert.deepEqual(triples(document.avus), ['keyword=demo|', 'project=P1|', 'title=Alpha|']);
      const byPath = Object.fromEntries(document.contents.map((entry: any) => [entry.path, entry]));
      assert.deepEqual(
        Object.keys(byPath).sort(),
        [alpha.path, beta.path, `${folder.path}/sub`, gamma.path].sort(),
      );
      assert.deepEqual(triples(byPath[alpha.path].avus), ['keyword=demo|', 'title=Alpha|']);
      assert.equal(byPath[`${folder.path}/sub`].type, 'folder');

      const again = await g.call(
        'alice',
        'POST',
        `/secured/filesystem/${folder.id}/metadata/save`,
        { json: { dest, recursive: true } },
      );
      assert.equal(again.status, 409, again.text);
      assert.equal(again.body.error_code, 'ERR_EXISTS');

      const flat = await g.call('alice', 'POST', `/secured/filesystem/${alpha.id}/metadata/save`, {
        json: { dest: `${g.home('alice')}/alpha-metadata.json` },
      });
      assert.equal(flat.status, 200, flat.text);
      const single = JSON.parse((await download('alice', flat.body.file.path)).text);
      assert.equal(single.contents, undefined);
      assert.deepEqual(triples(single.avus), ['keyword=demo|', 'title=Alpha|']);

      // bob can read beta but cannot write into alice's home.
      const refused = await g.call('bob', 'POST', `/secured/filesystem/${beta.id}/metadata/save`, {
        json: { dest: `${g.home('alice')}/bob.json` },
      });
      assert.equal(refused.status, 403, refused.text);
      const badDest = await g.call(
        'alice',
        'POST',
        `/secured/filesystem/${alpha.id}/metadata/save`,
        { json: { dest: '/elsewhere/../x' } },
      );
      assert.equal(badDest.status, 400, badDest.text);
    });

    test('ORE export writes an RDF/XML resource map next to the item', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const saved = await g.call('alice', 'POST', `/secured/filesystem/${folder.id}/ore/save`);
      assert.equal(saved.status, 200, saved.text);
      assert.equal(saved.body.file.path, `${g.home('alice')}/project.ore.rdf`);
      const rdf = (await download('alice', saved.body.file.path)).text;
      assert.match(rdf, /^<\?xml version="1.0" encoding="UTF-8"\?>/);
      assert.match(rdf, /ore\/terms\/ResourceMap/);
      assert.ok(rdf.includes(`<rdf:Description rdf:about="urn:uuid:${folder.id}#aggregation">`));
      for (const file of [alpha, beta, gamma])
        assert.ok(rdf.includes(`<ore:aggregates rdf:resource="urn:uuid:${file.id}"/>`), file.path);
      assert.ok(rdf.includes('<dcterms:title>Alpha</dcterms:title>'));
      // A second export replaces the first.
      await g.call('alice', 'POST', `/secured/filesystem/${folder.id}/metadata/add`, {
        json: { avus: [{ attr: 'description', value: 'A <demo> & more', unit: '' }] },
      });
      const again = await g.call('alice', 'POST', `/filesystem/${folder.id}/ore/save`);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.file.id, saved.body.file.id);
      assert.ok(
        (await download('alice', saved.body.file.path)).text.includes(
          '<dcterms:description>A &lt;demo&gt; &amp; more</dcterms:description>',
        ),
      );
      assert.equal(
        (await g.call('bob', 'POST', `/secured/filesystem/${alpha.id}/ore/save`)).status,
        403,
      );
    });

    test('the CSV parser applies AVUs to several files', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const csv = [
        'filename,sample,organism,organism',
        'alpha.txt,S1,maize,',
        `sub/gamma.txt,S3,,wheat`,
        `${beta.path},S2,rice,barley`,
        '',
      ].join('\n');
      const source = await g.upload('alice', g.home('alice'), 'samples.csv', csv);
      const parsed = await g.call(
        'alice',
        'POST',
        `/filesystem/metadata/csv-parser?dest=${q(folder.path)}&src=${q(source.path)}`,
      );
      assert.equal(parsed.status, 200, parsed.text);
      const results = Object.fromEntries(
        parsed.body['path-metadata'].map((item: any) => [item.path, item.avus]),
      );
      assert.deepEqual(Object.keys(results).sort(), [alpha.path, beta.path, gamma.path].sort());
      assert.ok(triples(results[beta.path]).includes('organism=barley|'));
      assert.deepEqual(triples((await metadataOf('alice', alpha.id)).body.avus), [
        'keyword=demo|',
        'organism=maize|',
        'sample=S1|',
        'title=Alpha|',
      ]);
      assert.deepEqual(triples((await metadataOf('alice', beta.id)).body.avus), [
        'organism=barley|',
        'organism=rice|',
        'sample=S2|',
        'title=Beta|',
      ]);
      assert.deepEqual(triples((await metadataOf('alice', gamma.id)).body.avus), [
        'keyword=demo|',
        'organism=wheat|',
        'sample=S3|',
        'title=Alpha|',
      ]);

      // Tab-separated, the separator sent as %09.
      const tsv = await g.upload(
        'alice',
        g.home('alice'),
        'more.tsv',
        'path\tstage\nalpha.txt\tdraft\n',
      );
      const tabbed = await g.call(
        'alice',
        'POST',
        `/secured/filesystem/metadata/csv-parser?dest=${q(folder.path)}&src=${q(tsv.path)}&separator=%09`,
      );
      assert.equal(tabbed.status, 200, tabbed.text);
      assert.ok(triples((await metadataOf('alice', alpha.id)).body.avus).includes('stage=draft|'));

      // bob's CSV naming alice's file: he cannot write it, and nothing is applied.
      const bobCsv = await g.upload(
        'bob',
        g.home('bob'),
        'evil.csv',
        `file,title\nbobs.txt,Mine\n${alpha.path},Owned\n`,
      );
      const refused = await g.call(
        'bob',
        'POST',
        `/secured/filesystem/metadata/csv-parser?dest=${q(g.home('bob'))}&src=${q(bobCsv.path)}`,
      );
      assert.equal(refused.status, 403, refused.text);
      assert.deepEqual(triples((await metadataOf('bob', bobs.id)).body.avus), ['title=Bobs|']);

      const missing = await g.call(
        'alice',
        'POST',
        `/secured/filesystem/metadata/csv-parser?dest=${q(folder.path)}&src=${q(`${g.home('alice')}/nope.csv`)}`,
      );
      assert.equal(missing.status, 404, missing.text);
      const noSrc = await g.call(
        'alice',
        'POST',
        `/secured/filesystem/metadata/csv-parser?dest=${q(folder.path)}`,
      );
      assert.equal(noSrc.status, 400, noSrc.text);
      const folderSrc = await g.call(
        'alice',
        'POST',
        `/secured/filesystem/metadata/csv-parser?dest=${q(folder.path)}&src=${q(folder.path)}`,
      );
      assert.equal(folderSrc.status, 400, folderSrc.text);
      const unknownPath = await g.upload(
        'alice',
        g.home('alice'),
        'ghost.csv',
        'file,a\nghost.txt,1\n',
      );
      const ghost = await g.call(
        'alice',
        'POST',
        `/secured/filesystem/metadata/csv-parser?dest=${q(folder.path)}&src=${q(unknownPath.path)}`,
      );
      assert.equal(ghost.status, 404, ghost.text);
    });
  });
}
