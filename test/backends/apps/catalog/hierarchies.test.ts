// App listings under ontology hierarchies through the gateway (routes.md §9, §16) on both engines:
// apps classified by AVUs (set through the app metadata routes) at classes and subclasses are
// listed under every class above them; the other apps of the caller's catalog are unclassified.
// Expected listings come from the fixture's class tree and the attachments made here.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { requiredInCi } from '../../../support/gateway.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';
import {
  classes,
  iri,
  multipartXml,
  namesUnder,
  ontologyXml,
} from '../../../support/ontology-fixture.ts';

const q = encodeURIComponent;
const attr = 'rdf:type';
/** The listing's default order: lower-case name (the fixture's names differ in that alone). */
const byName = (a: { name: string }, b: { name: string }) =>
  a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1;

interface AppFixture {
  id: string;
  name: string;
  integrator: string;
  isPublic: boolean;
  deleted?: boolean;
  /** Class names it is attached to with `attr`. */
  classes: string[];
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`apps under ontology hierarchies (${engine})`, () => {
    let gw: MetadataGateway;
    const apps: AppFixture[] = [];
    const metagenomics = { name: 'Metagenomics', label: 'Metagenomics', parents: ['Genomics'] };
    let v1 = '';
    let v2 = '';

    const upload = async (xml: string) => {
      const { body, contentType } = await multipartXml(xml);
      const response = await fetch(`${gw.url}/admin/ontologies`, {
        method: 'POST',
        headers: { ...(await gw.authHeaders(admin)), 'content-type': contentType },
        body,
      });
      assert.equal(response.status, 200);
      return ((await response.json()) as { version: string }).version;
    };

    before(async () => {
      const started = await startMetadataGateway({ engine });
      if (!started) return;
      gw = started;
      await gw.ok('alice', 'GET', '/apps'); // the apps service is up with its built-in apps
      v1 = await upload(ontologyXml({ version: '1' }));
      v2 = await upload(ontologyXml({ version: '2', extraClass: metagenomics }));
      for (const root of ['Topic', 'Operation'])
        await gw.ok(admin, 'PUT', `/admin/ontologies/${q(v1)}/${q(iri(root))}`);
      await gw.ok(admin, 'PUT', `/admin/ontologies/${q(v2)}/${q(iri('Topic'))}`);

      const [genomicsApp, topicApp, alignmentApp, otherAttrApp] = builtInApps;
      apps.push(
        {
          id: genomicsApp!.id,
          name: genomicsApp!.name,
          integrator: 'platform',
          isPublic: true,
          classes: ['Genomics'],
        },
        {
          id: topicApp!.id,
          name: topicApp!.name,
          integrator: 'platform',
          isPublic: true,
          classes: ['Topic', 'Biology'],
        },
        {
          id: alignmentApp!.id,
          name: alignmentApp!.name,
          integrator: 'platform',
          isPublic: true,
          classes: ['Alignment'],
        },
        // Attached under another attribute only: unclassified for `attr`.
        {
          id: otherAttrApp!.id,
          name: otherAttrApp!.name,
          integrator: 'platform',
          isPublic: true,
          classes: [],
        },
        ...builtInApps.slice(4).map((app) => ({
          id: app.id,
          name: app.name,
          integrator: 'platform',
          isPublic: true,
          classes: [],
        })),
      );
      const now = Date.now();
      for (const [name, integrator, isPublic, attached, deleted] of [
        ['Bio informer', 'alice', true, ['Bioinformatics'], false],
        ['alice proteome sketch', 'alice', false, ['Proteomics'], false],
        ['bob plain tool', 'bob', true, [], false],
        ['bob binner', 'bob', true, ['Metagenomics'], false],
        ['retired genome app', 'bob', true, ['Genomics'], true],
      ] as const) {
        const id = randomUUID();
        await gw.running.gateway.store.db
          .insertInto('apps')
          .values({
            id,
            name,
            description: '',
            integrator,
            is_public: isPublic,
            deleted,
            integration_date: now,
            edited_date: now,
          })
          .execute();
        apps.push({ id, name, integrator, isPublic, deleted, classes: [...attached] });
      }
      // Integrators attach their own apps; the administrator attaches the platform's.
      for (const app of apps) {
        const avus = app.classes.map((name) => ({ attr, value: iri(name), unit: '' }));
        if (app.id === otherAttrApp!.id)
          avus.push({ attr: 'edam:topic', value: iri('Genomics'), unit: '' });
        if (avus.length === 0) continue;
        const route =
          app.integrator === 'platform' || app.deleted
            ? `/admin/apps/${app.id}/metadata`
            : `/apps/${app.id}/metadata`;
        await gw.ok(
          app.integrator === 'platform' || app.deleted ? admin : app.integrator,
          'POST',
          route,
          { json: { avus } },
        );
      }
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    /** What `viewer` should see: their catalog, split by whether an app hangs below `root` (`all` holds the version's classes). */
    const expected = (viewer: string, root: string, all = classes) => {
      const below = namesUnder(root, all);
      const known = new Set(all.map((spec) => spec.name));
      const visible = apps
        .filter((app) => !app.deleted && (app.isPublic || app.integrator === viewer))
        .sort(byName);
      const under = (app: AppFixture) =>
        app.classes.some((name) => known.has(name) && below.has(name));
      return {
        apps: visible.filter(under).map((app) => app.id),
        unclassified: visible.filter((app) => !under(app)).map((app) => app.id),
      };
    };
    const ids = (listing: any) => listing.apps.map((app: any) => app.id);

    test('users list against the active version: under a class and its subclasses, and the rest', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const none = await gw.call(
        'alice',
        'GET',
        `/apps/hierarchies/${q(iri('Topic'))}/apps?attr=${q(attr)}`,
      );
      assert.equal(none.status, 404, 'no version is active yet');
      await gw.ok(admin, 'POST', `/admin/ontologies/${q(v1)}`);

      for (const viewer of ['alice', 'bob']) {
        for (const root of ['Topic', 'Operation', 'Biology', 'Genomics']) {
          const want = expected(viewer, root);
          const under = await gw.ok(
            viewer,
            'GET',
            `/apps/hierarchies/${q(iri(root))}/apps?attr=${q(attr)}`,
          );
          assert.deepEqual(ids(under), want.apps, `${viewer} under ${root}`);
          assert.equal(under.total, want.apps.length);
          const rest = await gw.ok(
            viewer,
            'GET',
            `/apps/hierarchies/${q(iri(root))}/unclassified?attr=${q(attr)}`,
          );
          assert.deepEqual(ids(rest), want.unclassified, `${viewer} unclassified in ${root}`);
          assert.equal(rest.total, want.unclassified.length);
        }
      }
      // The sanity of the fixture: each side has something to show.
      assert.ok(
        expected('alice', 'Topic').apps.length >= 4 &&
          expected('alice', 'Topic').unclassified.length >= 3,
      );

      // Paging, sorting and search as in GET /apps.
      const want = expected('alice', 'Topic').apps;
      const page = await gw.ok(
        'alice',
        'GET',
        `/apps/hierarchies/${q(iri('Topic'))}/apps?attr=${q(attr)}&limit=2&offset=1&sort-dir=DESC`,
      );
      assert.deepEqual(ids(page), [...want].reverse().slice(1, 3));
      assert.equal(page.total, want.length);
      const searched = await gw.ok(
        'alice',
        'GET',
        `/apps/hierarchies/${q(iri('Topic'))}/apps?attr=${q(attr)}&search=informer`,
      );
      assert.deepEqual(
        ids(searched),
        apps.filter((app) => app.name === 'Bio informer').map((app) => app.id),
      );

      // A listing entry is a full AppListingDetail.
      const entry = (
        await gw.ok('bob', 'GET', `/apps/hierarchies/${q(iri('Genomics'))}/apps?attr=${q(attr)}`)
      ).apps[0];
      assert.equal(entry.id, builtInApps[0]!.id);
      assert.equal(entry.permission, 'read');
      assert.equal(typeof entry.can_run, 'boolean');

      // Another attribute classifies by its own AVUs.
      const other = await gw.ok(
        'bob',
        'GET',
        `/apps/hierarchies/${q(iri('Topic'))}/apps?attr=${q('edam:topic')}`,
      );
      assert.deepEqual(ids(other), [builtInApps[3]!.id]);

      const noAttr = await gw.call('alice', 'GET', `/apps/hierarchies/${q(iri('Topic'))}/apps`);
      assert.equal(noAttr.status, 400, noAttr.text);
      const unknownRoot = await gw.call(
        'alice',
        'GET',
        `/apps/hierarchies/${q(iri('Nowhere'))}/unclassified?attr=${q(attr)}`,
      );
      assert.equal(unknownRoot.status, 404);
      assert.equal(
        (
          await gw.call(
            'alice',
            'GET',
            `/apps/hierarchies/${q(iri('Topic'))}/apps?attr=${q(attr)}&limit=many`,
          )
        ).status,
        400,
      );
      assert.equal(
        (await gw.call(null, 'GET', `/apps/hierarchies/${q(iri('Topic'))}/apps?attr=${q(attr)}`))
          .status,
        401,
      );
    });

    test('reclassifying an app moves it between the listings', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const plain = apps.find((app) => app.name === 'bob plain tool')!;
      const listed = async () =>
        ids(
          await gw.ok('alice', 'GET', `/apps/hierarchies/${q(iri('Topic'))}/apps?attr=${q(attr)}`),
        );
      assert.ok(!(await listed()).includes(plain.id));
      await gw.ok('bob', 'PUT', `/apps/${plain.id}/metadata`, {
        json: { avus: [{ attr, value: iri('Computing'), unit: '' }] },
      });
      assert.ok((await listed()).includes(plain.id));
      await gw.ok('bob', 'PUT', `/apps/${plain.id}/metadata`, { json: { avus: [] } });
      assert.ok(!(await listed()).includes(plain.id));
    });

    test('administrators preview any version without making it active', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.ok(admin, 'POST', `/admin/ontologies/${q(v1)}`);
      const all = [...classes, metagenomics];
      const binner = apps.find((app) => app.name === 'bob binner')!.id;
      for (const [version, known] of [
        [v1, classes],
        [v2, all],
      ] as const) {
        const want = expected(admin, 'Topic', known);
        const under = await gw.ok(
          admin,
          'GET',
          `/admin/ontologies/${q(version)}/${q(iri('Topic'))}/apps?attr=${q(attr)}`,
        );
        assert.deepEqual(ids(under), want.apps, version);
        const rest = await gw.ok(
          admin,
          'GET',
          `/admin/ontologies/${q(version)}/${q(iri('Topic'))}/unclassified?attr=${q(attr)}`,
        );
        assert.deepEqual(ids(rest), want.unclassified, version);
      }
      assert.ok(
        expected(admin, 'Topic', all).apps.includes(binner) &&
          !expected(admin, 'Topic').apps.includes(binner),
        'the versions differ',
      );
      // Users still see the active version.
      assert.deepEqual(
        ids(await gw.ok('bob', 'GET', `/apps/hierarchies/${q(iri('Topic'))}/apps?attr=${q(attr)}`)),
        expected('bob', 'Topic').apps,
      );
      const unsaved = await gw.call(
        admin,
        'GET',
        `/admin/ontologies/${q(v2)}/${q(iri('Operation'))}/apps?attr=${q(attr)}`,
      );
      assert.equal(unsaved.status, 404, 'Operation is not saved in version 2');
      const forbidden = await gw.call(
        'bob',
        'GET',
        `/admin/ontologies/${q(v2)}/${q(iri('Topic'))}/apps?attr=${q(attr)}`,
      );
      assert.equal(forbidden.status, 403);
    });
  });
}
