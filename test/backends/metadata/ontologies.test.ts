// The embedded metadata service's ontology routes and the apps service's side of them (backends.md
// §3.6, §5.5) over real HTTP, on each engine: uploads, hierarchies, logical delete, classification
// through AVUs, versions and activation.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  appsUnderClass,
  unclassifiedApps,
} from '../../../src/backends/apps/catalog/ontology-classification.ts';
import { hostEngines, withUser, type BackendHost } from '../../support/backend-host.ts';
import {
  base,
  classes,
  expectedFiltered,
  expectedTree,
  iri,
  multipartXml,
  namesUnder,
  ontologyXml,
} from '../../support/ontology-fixture.ts';

const q = encodeURIComponent;
const attr = 'rdf:type';

/** The metadata service's ontology routes and the apps service's side of them (backends.md §3.6, §5.5), on each engine. */
for (const engine of hostEngines) {
  describe(`ontologies in the metadata and apps services on ${engine.name}`, () => {
    let host: BackendHost | undefined;
    before(async () => {
      host = await engine.open({ names: ['metadata', 'apps'] });
    });
    after(async () => host?.close());

    const call = async (
      method: string,
      url: string,
      options: {
        user?: string;
        json?: unknown;
        multipart?: { body: Buffer; contentType: string };
      } = { user: 'root' },
    ) => {
      const body =
        options.multipart?.body ??
        (options.json === undefined ? undefined : JSON.stringify(options.json));
      const contentType =
        options.multipart?.contentType ??
        (options.json === undefined ? undefined : 'application/json');
      return host!.request(method, withUser(url, options.user ?? 'root'), {
        headers: contentType ? { 'content-type': contentType } : {},
        body,
      });
    };
    const ok = async (method: string, url: string, options?: Parameters<typeof call>[2]) => {
      const answer = await call(method, url, options);
      assert.equal(answer.status, 200, `${method} ${url}: ${answer.text}`);
      return answer.text === '' ? undefined : answer.json();
    };
    const upload = async (xml: string) =>
      ok('POST', '/metadata/admin/ontologies', { multipart: await multipartXml(xml) });
    const versions = async () =>
      ((await ok('GET', '/metadata/ontologies')).ontologies as { version: string }[]).map(
        (item) => item.version,
      );
    const hierarchies = async (version: string) =>
      (await ok('GET', `/metadata/ontologies/${q(version)}`)).hierarchies;
    const savedCount = async (version: string) =>
      (
        await host!.store.db
          .selectFrom('ontology_saved_classes')
          .select('class_iri')
          .where('ontology_version', '=', version)
          .execute()
      ).length;

    test('upload: stored under a new version each time, listed, its details answered', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      const before = Date.now();
      const first = await upload(ontologyXml({ version: '1.0' }));
      assert.equal(first.iri, base);
      assert.equal(first.created_by, 'root');
      assert.ok(first.created_on >= before && first.created_on <= Date.now());
      assert.ok(first.version.startsWith(`${base}/1.0/`), first.version);
      const second = await upload(ontologyXml({ version: '1.0' }));
      assert.notEqual(second.version, first.version, 'the same document again is a new version');
      assert.deepEqual(await versions(), [first.version, second.version]);
      assert.deepEqual(await hierarchies(first.version), [], 'nothing saved yet');
      const stored = await host.store.db
        .selectFrom('ontologies')
        .select('xml')
        .where('version', '=', first.version)
        .executeTakeFirstOrThrow();
      assert.equal(stored.xml, ontologyXml({ version: '1.0' }), 'the document is kept as uploaded');
    });

    test('upload refuses malformed XML, XML that is no ontology, and bodies without the part', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      const count = (await versions()).length;
      const refused = async (options: Parameters<typeof call>[2], code: string) => {
        const answer = await call('POST', '/metadata/admin/ontologies', options);
        assert.equal(answer.status, 400, answer.text);
        assert.equal(answer.json().error_code, code);
        return answer.json();
      };
      const malformed = await refused(
        {
          multipart: await multipartXml(
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n<owl:Class></rdf:RDF>',
          ),
        },
        'ERR_BAD_OR_MISSING_FIELD',
      );
      assert.match(malformed.reason, /well-formed/);
      assert.equal(malformed.line, 2);
      assert.match(
        (
          await refused(
            { multipart: await multipartXml('<html><body><p>hello</p></body></html>') },
            'ERR_BAD_OR_MISSING_FIELD',
          )
        ).reason,
        /rdf:RDF/,
      );
      const rdfOnly =
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="http://example.org/x"/></rdf:RDF>';
      assert.match(
        (await refused({ multipart: await multipartXml(rdfOnly) }, 'ERR_BAD_OR_MISSING_FIELD'))
          .reason,
        /owl:Ontology/,
      );
      assert.match(
        (await refused({ multipart: await multipartXml('<a:b/>') }, 'ERR_BAD_OR_MISSING_FIELD'))
          .reason,
        /not declared/,
      );
      await refused(
        { multipart: await multipartXml('not xml at all') },
        'ERR_BAD_OR_MISSING_FIELD',
      );
      await refused(
        { multipart: await multipartXml(ontologyXml(), 'file') },
        'ERR_MISSING_FORM_FIELD',
      );
      await refused({ json: { 'ontology-xml': ontologyXml() } }, 'ERR_MISSING_FORM_FIELD');
      assert.equal((await versions()).length, count, 'nothing was stored');
    });

    test('hierarchies: save, delete below a root, re-save adds back only what is missing, delete a root', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      const { version } = await upload(ontologyXml({ version: '2.0' }));
      const url = (root: string) => `/metadata/admin/ontologies/${q(version)}/${q(iri(root))}`;

      assert.deepEqual((await ok('PUT', url('Topic'))).hierarchy, expectedTree('Topic'));
      assert.deepEqual((await ok('PUT', url('Operation'))).hierarchy, expectedTree('Operation'));
      assert.deepEqual(
        await hierarchies(version),
        [expectedTree('Topic'), expectedTree('Operation')],
        'in the order saved',
      );
      const everything = new Set([...namesUnder('Topic'), ...namesUnder('Operation')]);
      assert.equal(await savedCount(version), everything.size);

      // Deleting a class inside a hierarchy removes it and everything saved below it, wherever else it appears.
      const biology = namesUnder('Biology');
      const afterDelete = (await ok('DELETE', url('Biology'))).hierarchies;
      assert.deepEqual(afterDelete, [
        expectedTree('Topic', (name) => !biology.has(name)),
        expectedTree('Operation'),
      ]);
      assert.equal(await savedCount(version), everything.size - biology.size);

      // A class already saved, saved as a root of its own: listed separately; of the classes below
      // it, only those deleted with Biology (Bioinformatics has both parents) are added back.
      assert.deepEqual((await ok('PUT', url('Computing'))).hierarchy, expectedTree('Computing'));
      const restored = [...namesUnder('Computing')].filter((name) => biology.has(name));
      assert.ok(restored.length > 0 && restored.length < namesUnder('Computing').size);
      assert.equal(await savedCount(version), everything.size - biology.size + restored.length);
      assert.equal((await hierarchies(version)).length, 3);

      // Re-saving the root adds the missing classes back, once each.
      assert.deepEqual((await ok('PUT', url('Topic'))).hierarchy, expectedTree('Topic'));
      assert.equal(await savedCount(version), everything.size);
      assert.deepEqual(await hierarchies(version), [
        expectedTree('Topic'),
        expectedTree('Operation'),
        expectedTree('Computing'),
      ]);

      // Deleting a root removes the roots saved inside it too.
      assert.deepEqual((await ok('DELETE', url('Topic'))).hierarchies, [expectedTree('Operation')]);
      assert.equal(await savedCount(version), namesUnder('Operation').size);

      for (const [method, target, status] of [
        ['DELETE', url('Topic'), 404],
        ['PUT', url('Nowhere'), 404],
        ['PUT', `/metadata/admin/ontologies/${q('no-such-version')}/${q(iri('Topic'))}`, 404],
      ] as const) {
        const answer = await call(method, target);
        assert.equal(answer.status, status, `${method} ${target}: ${answer.text}`);
        assert.equal(answer.json().error_code, 'ERR_NOT_FOUND');
      }
    });

    test('logical delete hides a version from listings and reads', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      const { version } = await upload(ontologyXml({ version: '3.0' }));
      assert.ok((await versions()).includes(version));
      await ok('DELETE', `/metadata/admin/ontologies/${q(version)}`);
      assert.ok(!(await versions()).includes(version));
      assert.equal((await call('GET', `/metadata/ontologies/${q(version)}`)).status, 404);
      assert.equal(
        (await call('DELETE', `/metadata/admin/ontologies/${q(version)}`)).status,
        404,
        'already deleted',
      );
      const row = await host.store.db
        .selectFrom('ontologies')
        .select('deleted')
        .where('version', '=', version)
        .executeTakeFirstOrThrow();
      assert.ok(row.deleted === true || row.deleted === 1, 'kept, marked deleted');
    });

    test('classification through AVUs: targets under a class or any class below it, and unclassified ones', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      const { version } = await upload(ontologyXml({ version: '4.0' }));
      for (const root of ['Topic', 'Operation'])
        await ok('PUT', `/metadata/admin/ontologies/${q(version)}/${q(iri(root))}`);

      // Made-up apps, attached by AVUs to classes (one through another attribute, one to a class of no ontology).
      const attached: Record<string, { attr: string; classes: string[] }> = {};
      const app = async (avuAttr: string, names: string[]) => {
        const id = randomUUID();
        attached[id] = { attr: avuAttr, classes: names };
        const avus = names.map((name) => ({
          attr: avuAttr,
          value: name.startsWith('http') ? name : iri(name),
          unit: '',
        }));
        if (avus.length) await ok('POST', `/metadata/avus/app/${id}`, { json: { avus } });
        return id;
      };
      const genomicsApp = await app(attr, ['Genomics']);
      const alignmentApp = await app(attr, ['Alignment']);
      const computingApp = await app(attr, ['Computing', 'Alignment']);
      const otherAttrApp = await app('keyword', ['Genomics']);
      const strangerApp = await app(attr, ['http://elsewhere.org/onto#X']);
      const bareApp = await app(attr, []);
      const all = [genomicsApp, alignmentApp, computingApp, otherAttrApp, strangerApp, bareApp];

      /** Expected: the given apps attached (through `attr`) to a class at or below `name`, in the given order. */
      const under = (name: string, ids = all) =>
        ids.filter(
          (id) =>
            attached[id]!.attr === attr &&
            attached[id]!.classes.some((item) => namesUnder(name).has(item)),
        );
      const body = { 'target-types': ['app'], 'target-ids': all };
      const filterUrl = (root: string, route: string) =>
        `/metadata/ontologies/${q(version)}/${q(iri(root))}/${route}?attr=${q(attr)}`;

      for (const root of ['Topic', 'Biology', 'Computing', 'Operation', 'Genomics']) {
        assert.deepEqual(
          (await ok('POST', filterUrl(root, 'filter-targets'), { json: body }))['target-ids'],
          under(root),
          `under ${root}`,
        );
        const unclassified = all.filter((id) => !under(root).includes(id));
        assert.deepEqual(
          (await ok('POST', filterUrl(root, 'filter-unclassified'), { json: body }))['target-ids'],
          unclassified,
          `unclassified in ${root}`,
        );
      }
      const classesOf = (ids: string[]) =>
        new Set(ids.flatMap((id) => (attached[id]!.attr === attr ? attached[id]!.classes : [])));
      assert.deepEqual(
        (await ok('POST', filterUrl('Topic', 'filter'), { json: body })).hierarchy,
        expectedFiltered('Topic', classesOf(all)),
      );
      assert.deepEqual(
        (
          await ok('POST', filterUrl('Topic', 'filter'), {
            json: { ...body, 'target-ids': [alignmentApp] },
          })
        ).hierarchy,
        null,
        'no class of Topic has it',
      );

      // One target across every saved hierarchy; label search over saved classes.
      const forComputing = (
        await ok('POST', `/metadata/ontologies/${q(version)}/filter`, {
          json: { type: 'app', id: computingApp, attrs: [attr] },
        })
      ).hierarchies;
      assert.deepEqual(forComputing, [
        expectedFiltered('Topic', classesOf([computingApp])),
        expectedFiltered('Operation', classesOf([computingApp])),
      ]);
      const byLabel = await ok(
        'POST',
        `/metadata/ontologies/${q(version)}/filter-targets?label=GENOM`,
        { json: { ...body, attrs: [attr, 'keyword'] } },
      );
      assert.deepEqual(byLabel['target-ids'], [genomicsApp, otherAttrApp]);

      const missingAttr = await call(
        'POST',
        `/metadata/ontologies/${q(version)}/${q(iri('Topic'))}/filter-targets`,
        { json: body },
      );
      assert.equal(missingAttr.status, 400);
      assert.equal(missingAttr.json().error_code, 'ERR_MISSING_QUERY_PARAMETER');
      const badBody = await call('POST', filterUrl('Topic', 'filter-targets'), {
        json: { 'target-types': ['spaceship'], 'target-ids': all },
      });
      assert.equal(badBody.status, 400);

      // The functions the app listings use.
      const db = host.store.db;
      assert.deepEqual(
        await appsUnderClass(db, { version, rootIri: iri('Topic'), attr }),
        under('Topic').sort(),
      );
      assert.deepEqual(
        await appsUnderClass(db, {
          version,
          rootIri: iri('Topic'),
          classIri: iri('Biology'),
          attr,
        }),
        under('Biology').sort(),
      );
      assert.deepEqual(
        await unclassifiedApps(db, { version, rootIri: iri('Operation'), attr, appIds: all }),
        all.filter((id) => !under('Operation').includes(id)),
      );
      await assert.rejects(
        appsUnderClass(db, { version, rootIri: iri('Topic'), classIri: iri('Alignment'), attr }),
        /not in the hierarchy/,
      );
    });

    test('apps service: versions with the active one, activation, refusing to delete it, previews and users’ hierarchies', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set (CI sets it)');
      const listed = async () =>
        (await ok('GET', '/apps/admin/ontologies')).ontologies as {
          version: string;
          active: boolean;
        }[];
      const userHierarchies = async () =>
        (await ok('GET', '/apps/apps/hierarchies', { user: 'alice' })).hierarchies;
      assert.ok(
        (await listed()).every((item) => item.active === false),
        'nothing active yet',
      );
      assert.deepEqual(await userHierarchies(), []);

      const older = await upload(ontologyXml({ version: '5.0' }));
      const extra = { name: 'Metagenomics', label: 'Metagenomics', parents: ['Genomics'] };
      const newer = await upload(ontologyXml({ version: '6.0', extraClass: extra }));
      await ok('PUT', `/metadata/admin/ontologies/${q(older.version)}/${q(iri('Topic'))}`);
      await ok('PUT', `/metadata/admin/ontologies/${q(newer.version)}/${q(iri('Topic'))}`);

      const activated = await ok('POST', `/apps/admin/ontologies/${q(older.version)}`);
      assert.equal(activated.version, older.version);
      assert.equal(activated.applied_by, 'root');
      const metadataList = (await ok('GET', '/metadata/ontologies')).ontologies as object[];
      assert.deepEqual(
        await listed(),
        metadataList.map((item: any) => ({ ...item, active: item.version === older.version })),
      );
      assert.deepEqual(await userHierarchies(), [expectedTree('Topic')]);

      const refused = await call('DELETE', `/apps/admin/ontologies/${q(older.version)}`);
      assert.equal(refused.status, 400);
      assert.equal(refused.json().error_code, 'ERR_ILLEGAL_ARGUMENT');

      // Switching: users follow the active version at once.
      await ok('POST', `/apps/admin/ontologies/${q(newer.version)}`);
      assert.deepEqual(await userHierarchies(), [
        expectedTree('Topic', () => true, [...classes, extra]),
      ]);
      await ok('DELETE', `/apps/admin/ontologies/${q(older.version)}`);
      assert.ok(!(await listed()).some((item) => item.version === older.version));
      assert.equal(
        (await call('POST', `/apps/admin/ontologies/${q(older.version)}`)).status,
        404,
        'a deleted version cannot be made active',
      );

      // Filtered hierarchies count the apps a user can see: public ones and their own.
      const now = Date.now();
      const catalogApp = async (integrator: string, isPublic: boolean, names: string[]) => {
        const id = randomUUID();
        await host!.store.db
          .insertInto('apps')
          .values({
            id,
            name: `app ${id}`,
            integrator,
            is_public: isPublic,
            integration_date: now,
            edited_date: now,
          })
          .execute();
        await ok('POST', `/metadata/avus/app/${id}`, {
          json: { avus: names.map((name) => ({ attr, value: iri(name), unit: '' })) },
        });
      };
      await catalogApp('carol', true, ['Proteomics']);
      await catalogApp('dave', false, ['Metagenomics']);
      const filtered = async (user: string) =>
        (await ok('GET', `/apps/apps/hierarchies/${q(iri('Topic'))}?attr=${q(attr)}`, { user }))
          .hierarchy;
      const all = [...classes, extra];
      const cut = (attachedNames: string[]) =>
        expectedTree(
          'Topic',
          (name) => [...namesUnder(name, all)].some((below) => attachedNames.includes(below)),
          all,
        );
      assert.deepEqual(await filtered('alice'), cut(['Proteomics']));
      assert.deepEqual(await filtered('dave'), cut(['Proteomics', 'Metagenomics']));
      // The administrator's preview of the older (deleted) version is refused; of the newer one, answered.
      assert.equal(
        (
          await call(
            'GET',
            `/apps/admin/ontologies/${q(older.version)}/${q(iri('Topic'))}?attr=${q(attr)}`,
          )
        ).status,
        404,
      );
      assert.deepEqual(
        (
          await ok(
            'GET',
            `/apps/admin/ontologies/${q(newer.version)}/${q(iri('Topic'))}?attr=${q(attr)}`,
            { user: 'dave' },
          )
        ).hierarchy,
        cut(['Proteomics', 'Metagenomics']),
      );
    });
  });
}
