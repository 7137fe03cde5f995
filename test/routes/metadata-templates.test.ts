// Metadata templates through the gateway (routes.md §13): the user routes reach the embedded
// metadata service, and the admin routes (data-store administrators only) round-trip a template
// from creation through update and soft delete to permanent delete, on both database engines.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

const seededName = 'DataCite 4 citation';

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`metadata templates through the gateway (${engine})`, () => {
    let g: MetadataGateway | undefined;
    let seeded: any; // the listing entry of the seeded template

    before(async () => {
      g = await startMetadataGateway({ engine });
      if (!g) return;
      const listing = await g.call('alice', 'GET', '/secured/filesystem/metadata/templates');
      assert.equal(listing.status, 200, listing.text);
      seeded = listing.body.metadata_templates.find(
        (template: any) => template.name === seededName,
      );
    });
    after(async () => g?.close());

    test('a fresh platform lists the seeded citation template, signed in or not', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      assert.ok(seeded, 'the seeded template is listed');
      for (const key of [
        'id',
        'name',
        'deleted',
        'created_by',
        'created_on',
        'modified_by',
        'modified_on',
      ])
        assert.ok(key in seeded, key);
      assert.equal(seeded.deleted, false);
      const anonymous = await g.call(null, 'GET', '/filesystem/metadata/templates');
      assert.equal(anonymous.status, 200, anonymous.text);
      assert.ok(
        anonymous.body.metadata_templates.some((template: any) => template.id === seeded.id),
      );
      assert.equal(
        (await g.call(null, 'GET', '/secured/filesystem/metadata/templates')).status,
        401,
      );
    });

    test('one template, one attribute, and the CSV and zip downloads', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const template = await g.call('alice', 'GET', `/filesystem/metadata/template/${seeded.id}`);
      assert.equal(template.status, 200, template.text);
      assert.equal(template.body.name, seededName);
      const names = template.body.attributes.map((attribute: any) => attribute.name);
      for (const name of ['identifier', 'creator', 'title', 'publisher', 'publicationYear'])
        assert.ok(names.includes(name), name);
      const title = template.body.attributes.find((attribute: any) => attribute.name === 'title');
      assert.equal(title.required, true);
      const creator = template.body.attributes.find(
        (attribute: any) => attribute.name === 'creator',
      );
      assert.ok(
        creator.attributes.some((child: any) => child.name === 'creatorName'),
        'grouping attributes carry their children',
      );

      const attribute = await g.call(
        'alice',
        'GET',
        `/secured/filesystem/metadata/template/attr/${title.id}`,
      );
      assert.equal(attribute.status, 200, attribute.text);
      assert.equal(attribute.body.id, title.id);
      assert.equal(attribute.body.name, 'title');

      const blank = await g.call(
        'alice',
        'GET',
        `/secured/filesystem/metadata/template/${seeded.id}/blank-csv`,
      );
      assert.equal(blank.status, 200, blank.text);
      assert.match(blank.headers.get('content-type') ?? '', /text\/csv/);
      assert.match(blank.headers.get('content-disposition') ?? '', /attachment/);
      assert.ok(blank.text.split('\r\n')[0]!.split(',').includes('title'));
      const guide = await g.call(
        'alice',
        'GET',
        `/filesystem/metadata/template/${seeded.id}/guide-csv`,
      );
      assert.equal(guide.status, 200, guide.text);
      assert.ok(guide.text.split('\r\n').some((line) => line.startsWith('title,')));
      const zipped = await g.call(
        'alice',
        'GET',
        `/secured/filesystem/metadata/template/${seeded.id}/zip-csv`,
      );
      assert.equal(zipped.status, 200);
      assert.match(zipped.headers.get('content-type') ?? '', /application\/zip/);
      assert.ok(
        zipped.text.startsWith('PK\u0003\u0004'),
        'a zip archive (its local-header signature is ASCII)',
      );

      // The downloads need a user; unknown ids are 404.
      assert.equal(
        (await g.call(null, 'GET', `/filesystem/metadata/template/${seeded.id}/blank-csv`)).status,
        401,
      );
      for (const route of [
        `/filesystem/metadata/template/${randomUUID()}`,
        `/filesystem/metadata/template/attr/${randomUUID()}`,
        `/filesystem/metadata/template/${randomUUID()}/guide-csv`,
      ]) {
        const missing = await g.call('alice', 'GET', route);
        assert.equal(missing.status, 404, `${route}: ${missing.text}`);
        assert.equal(missing.body.error_code, 'ERR_NOT_FOUND');
      }
    });

    test('admin routes need a data-store administrator', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const body = { name: 'Nope', attributes: [] };
      for (const [method, route, json] of [
        ['GET', '/admin/filesystem/metadata/templates', undefined],
        ['POST', '/admin/filesystem/metadata/templates', body],
        ['POST', `/admin/filesystem/metadata/templates/${seeded.id}`, body],
        ['DELETE', `/admin/filesystem/metadata/templates/${seeded.id}`, undefined],
      ] as const) {
        assert.equal(
          (await g.call('alice', method, route, json === undefined ? {} : { json })).status,
          403,
          `${method} ${route}`,
        );
        assert.equal(
          (await g.call(null, method, route, json === undefined ? {} : { json })).status,
          401,
          `${method} ${route}`,
        );
      }
      // Nothing changed.
      const template = await g.call('alice', 'GET', `/filesystem/metadata/template/${seeded.id}`);
      assert.equal(template.body.name, seededName);
    });

    test('create, update (authors from the caller, not the body), soft and permanent delete', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const created = await g.call(admin, 'POST', '/admin/filesystem/metadata/templates', {
        json: {
          name: 'Lab sample',
          description: 'What the lab records',
          attributes: [
            { name: 'sample', description: 'Sample id', type: 'String', required: true },
            {
              name: 'kind',
              description: 'Sample kind',
              type: 'Enum',
              values: [{ value: 'soil', is_default: true }, { value: 'water' }],
            },
          ],
        },
      });
      assert.equal(created.status, 200, created.text);
      const id = created.body.id;
      assert.equal(created.body.created_by, admin);
      assert.deepEqual(
        created.body.attributes.map((attribute: any) => attribute.name),
        ['sample', 'kind'],
      );

      const listed = await g.call('alice', 'GET', '/filesystem/metadata/templates');
      assert.ok(
        listed.body.metadata_templates.some(
          (template: any) => template.id === id && template.name === 'Lab sample',
        ),
      );

      // The admin sends back the template as fetched, renamed, with authors it has no business setting.
      const fetched = (await g.call(admin, 'GET', `/secured/filesystem/metadata/template/${id}`))
        .body;
      const edited = {
        ...fetched,
        name: 'Lab sample v2',
        created_by: 'mallory',
        modified_by: 'mallory',
        attributes: [
          ...fetched.attributes.map((attribute: any) => ({
            ...attribute,
            created_by: 'mallory',
            modified_by: 'mallory',
          })),
          { name: 'depth', description: 'Depth', type: 'Number', unit: 'm' },
        ],
      };
      const updated = await g.call(admin, 'POST', `/admin/filesystem/metadata/templates/${id}`, {
        json: edited,
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.id, id);
      assert.equal(updated.body.name, 'Lab sample v2');
      assert.equal(updated.body.created_by, admin);
      assert.equal(updated.body.modified_by, admin);
      assert.deepEqual(
        updated.body.attributes.map((attribute: any) => attribute.name),
        ['sample', 'kind', 'depth'],
      );
      for (const attribute of updated.body.attributes)
        assert.notEqual(attribute.created_by, 'mallory');
      const sample = updated.body.attributes.find((attribute: any) => attribute.name === 'sample');
      assert.equal(
        sample.id,
        fetched.attributes.find((attribute: any) => attribute.name === 'sample').id,
        'an attribute sent back keeps its id',
      );
      assert.equal(
        (await g.call('alice', 'GET', `/filesystem/metadata/template/${id}`)).body.name,
        'Lab sample v2',
      );

      const badUpdate = await g.call(admin, 'POST', `/admin/filesystem/metadata/templates/${id}`, {
        json: { name: 'x' },
      });
      assert.equal(badUpdate.status, 400, badUpdate.text);
      const unknownUpdate = await g.call(
        admin,
        'POST',
        `/admin/filesystem/metadata/templates/${randomUUID()}`,
        { json: { name: 'x', attributes: [] } },
      );
      assert.equal(unknownUpdate.status, 404, unknownUpdate.text);

      // Soft delete: gone from the user listing, flagged in the admin listing.
      const soft = await g.call(admin, 'DELETE', `/admin/filesystem/metadata/templates/${id}`);
      assert.ok(soft.status === 200 || soft.status === 204, soft.text);
      assert.ok(
        !(
          await g.call('alice', 'GET', '/filesystem/metadata/templates')
        ).body.metadata_templates.some((template: any) => template.id === id),
      );
      const adminListing = await g.call(admin, 'GET', '/admin/filesystem/metadata/templates');
      assert.equal(adminListing.status, 200, adminListing.text);
      assert.equal(
        adminListing.body.metadata_templates.find((template: any) => template.id === id)?.deleted,
        true,
      );

      const permanent = await g.call(
        admin,
        'DELETE',
        `/admin/filesystem/metadata/templates/${id}?permanent=true`,
      );
      assert.ok(permanent.status === 200 || permanent.status === 204, permanent.text);
      assert.ok(
        !(
          await g.call(admin, 'GET', '/admin/filesystem/metadata/templates')
        ).body.metadata_templates.some((template: any) => template.id === id),
      );
      assert.equal(
        (await g.call('alice', 'GET', `/filesystem/metadata/template/${id}`)).status,
        404,
      );
      // The seeded one is untouched.
      assert.ok(
        (
          await g.call(admin, 'GET', '/admin/filesystem/metadata/templates')
        ).body.metadata_templates.some((template: any) => template.id === seeded.id),
      );
    });
  });
}
