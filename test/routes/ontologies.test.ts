// Ontology administration and users' app hierarchies through the gateway (routes.md §9, §16), on each
// engine: administrator routes refused to users, upload, save and activate, and the routes' schemas
// in the API document.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';
import {
  classes,
  expectedTree,
  iri,
  namesUnder,
  ontologyXml,
} from '../support/ontology-fixture.ts';

const q = encodeURIComponent;
const attr = 'rdf:type';

/** Ontology administration and users' app hierarchies through the gateway (routes.md §9, §16), on each engine. */
for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`ontology routes through the gateway on ${engine}`, () => {
    let gateway: MetadataGateway | undefined;
    before(async () => {
      gateway = await startMetadataGateway({ engine });
    });
    after(async () => gateway?.close());

    const upload = async (user: string, xml: string) => {
      const form = new FormData();
      form.append('ontology-xml', new Blob([xml], { type: 'application/xml' }), 'ontology.owl');
      const response = await fetch(`${gateway!.url}/admin/ontologies`, {
        method: 'POST',
        headers: await gateway!.authHeaders(user),
        body: form,
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
    };

    test('administrator routes refuse regular users', async (t) => {
      if (!gateway) return t.skip('DATABASE_URL is not set (CI sets it)');
      const v = q('some-version');
      const r = q(iri('Topic'));
      const routes: [string, string][] = [
        ['GET', '/admin/ontologies'],
        ['GET', `/admin/ontologies/${v}`],
        ['POST', `/admin/ontologies/${v}`],
        ['DELETE', `/admin/ontologies/${v}`],
        ['GET', `/admin/ontologies/${v}/${r}?attr=${q(attr)}`],
        ['PUT', `/admin/ontologies/${v}/${r}`],
        ['DELETE', `/admin/ontologies/${v}/${r}`],
        ['GET', `/admin/ontologies/${v}/${r}/apps?attr=${q(attr)}`],
        ['GET', `/admin/ontologies/${v}/${r}/unclassified?attr=${q(attr)}`],
      ];
      for (const [method, route] of routes) {
        const answer = await gateway.call('alice', method, route);
        assert.equal(answer.status, 403, `${method} ${route}: ${answer.text}`);
      }
      const uploaded = await upload('alice', ontologyXml());
      assert.equal(uploaded.status, 403);
      assert.equal(
        (await gateway.call(null, 'GET', '/apps/hierarchies')).status,
        401,
        'users must authenticate',
      );
    });

    test('upload, save, activate: users see the active version; the active one cannot be deleted', async (t) => {
      if (!gateway) return t.skip('DATABASE_URL is not set (CI sets it)');
      const malformed = await upload(admin, '<rdf:RDF><unclosed></rdf:RDF>');
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');

      const first = await upload(admin, ontologyXml({ version: '1' }));
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.created_by, admin);
      const extra = { name: 'Metagenomics', label: 'Metagenomics', parents: ['Genomics'] };
      const second = (await upload(admin, ontologyXml({ version: '2', extraClass: extra }))).body;
      const listed = await gateway.ok(admin, 'GET', '/admin/ontologies');
      assert.deepEqual(listed.ontologies, [
        { ...first.body, active: false },
        { ...second, active: false },
      ]);

      const v1 = q(first.body.version);
      const v2 = q(second.version);
      assert.deepEqual(
        (await gateway.ok(admin, 'PUT', `/admin/ontologies/${v1}/${q(iri('Topic'))}`)).hierarchy,
        expectedTree('Topic'),
      );
      await gateway.ok(admin, 'PUT', `/admin/ontologies/${v2}/${q(iri('Topic'))}`);
      await gateway.ok(admin, 'PUT', `/admin/ontologies/${v2}/${q(iri('Operation'))}`);
      assert.deepEqual((await gateway.ok(admin, 'GET', `/admin/ontologies/${v1}`)).hierarchies, [
        expectedTree('Topic'),
      ]);

      assert.deepEqual(
        (await gateway.ok('alice', 'GET', '/apps/hierarchies')).hierarchies,
        [],
        'no version active yet',
      );
      assert.equal(
        (await gateway.ok(admin, 'POST', `/admin/ontologies/${v1}`)).version,
        first.body.version,
      );
      assert.deepEqual((await gateway.ok('alice', 'GET', '/apps/hierarchies')).hierarchies, [
        expectedTree('Topic'),
      ]);
      const refused = await gateway.call(admin, 'DELETE', `/admin/ontologies/${v1}`);
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error_code, 'ERR_ILLEGAL_ARGUMENT');

      await gateway.ok(admin, 'POST', `/admin/ontologies/${v2}`);
      const all = [...classes, extra];
      assert.deepEqual((await gateway.ok('alice', 'GET', '/apps/hierarchies')).hierarchies, [
        expectedTree('Topic', () => true, all),
        expectedTree('Operation', () => true, all),
      ]);
      assert.deepEqual(
        (await gateway.ok(admin, 'GET', '/admin/ontologies')).ontologies.map(
          (item: { active: boolean }) => item.active,
        ),
        [false, true],
      );
      await gateway.ok(admin, 'DELETE', `/admin/ontologies/${v1}`);
      assert.deepEqual((await gateway.ok(admin, 'GET', '/admin/ontologies')).ontologies, [
        { ...second, active: true },
      ]);

      // Deleting a hierarchy below a root, then re-saving the root.
      const genomics = namesUnder('Genomics', all);
      const trimmed = await gateway.ok(
        admin,
        'DELETE',
        `/admin/ontologies/${v2}/${q(iri('Genomics'))}`,
      );
      assert.deepEqual(
        trimmed.hierarchies[0],
        expectedTree('Topic', (name) => !genomics.has(name), all),
      );
      await gateway.ok(admin, 'PUT', `/admin/ontologies/${v2}/${q(iri('Topic'))}`);
      assert.deepEqual(
        (await gateway.ok('alice', 'GET', '/apps/hierarchies')).hierarchies[0],
        expectedTree('Topic', () => true, all),
      );

      // A public app attached to Metagenomics: users' filtered hierarchy (and the admin preview) lead to it.
      const appId = randomUUID();
      const time = Date.now();
      await gateway.running.gateway.store.db
        .insertInto('apps')
        .values({
          id: appId,
          name: 'Binner',
          integrator: 'bob',
          is_public: true,
          integration_date: time,
          edited_date: time,
        })
        .execute();
      const attached = await gateway.running.gateway.forwarder.call('metadata', {
        method: 'POST',
        path: `/avus/app/${appId}`,
        json: { avus: [{ attr, value: iri('Metagenomics'), unit: '' }] },
        identity: { username: 'bob', roles: [], groups: [] },
        identityStyle: 'user',
      });
      assert.equal(attached.statusCode, 200, await attached.body.text());
      const toMetagenomics = expectedTree(
        'Topic',
        (name) => namesUnder(name, all).has('Metagenomics'),
        all,
      );
      assert.deepEqual(
        (await gateway.ok('alice', 'GET', `/apps/hierarchies/${q(iri('Topic'))}?attr=${q(attr)}`))
          .hierarchy,
        toMetagenomics,
      );
      assert.deepEqual(
        (
          await gateway.ok(
            admin,
            'GET',
            `/admin/ontologies/${v2}/${q(iri('Topic'))}?attr=${q(attr)}`,
          )
        ).hierarchy,
        toMetagenomics,
      );
      assert.deepEqual(
        (
          await gateway.ok(
            'alice',
            'GET',
            `/apps/hierarchies/${q(iri('Operation'))}?attr=${q(attr)}`,
          )
        ).hierarchy,
        null,
      );
      const noAttr = await gateway.call('alice', 'GET', `/apps/hierarchies/${q(iri('Topic'))}`);
      assert.equal(noAttr.status, 400, noAttr.text);
      const unknownRoot = await gateway.call(
        'alice',
        'GET',
        `/apps/hierarchies/${q(iri('Nowhere'))}?attr=${q(attr)}`,
      );
      assert.equal(unknownRoot.status, 404);
      assert.equal(unknownRoot.body.error_code, 'ERR_NOT_FOUND');
    });

    test('the routes are documented with their schemas', async (t) => {
      if (!gateway) return t.skip('DATABASE_URL is not set (CI sets it)');
      const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as any;
      const upload = document.paths['/admin/ontologies'].post;
      assert.ok(upload.requestBody.content['multipart/form-data'], 'the upload is multipart');
      assert.deepEqual(
        Object.keys(upload.responses['200'].content['application/json'].schema.properties).sort(),
        ['created_by', 'created_on', 'iri', 'version'],
      );
      const hierarchy = document.paths['/apps/hierarchies/{rootIri}'].get;
      assert.ok(
        hierarchy.parameters.some(
          (parameter: { name: string; in: string }) =>
            parameter.name === 'attr' && parameter.in === 'query',
        ),
      );
      assert.ok(hierarchy.responses['200'].content['application/json'].schema.properties.hierarchy);
    });
  });
}
