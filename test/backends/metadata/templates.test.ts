// The embedded metadata service's metadata templates (backends.md §3.5) over real HTTP, on each
// engine: the seeded DataCite template, blank, guide and zip downloads, admin create, update and
// delete, and bodies refused naming the field.
import assert from 'node:assert/strict';
import { inflateRawSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { dataCiteTemplateId } from '../../../src/store/migrations/006-metadata-templates-pids.ts';
import { metadataEngines, type MetadataHost } from '../../support/metadata-host.ts';

const isoDate = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The entries of a zip archive, read from its central directory (an independent reader, not the writer's code). */
function unzip(archive: Buffer): Map<string, string> {
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  assert.ok(end >= 0, 'end of central directory record');
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const entries = new Map<string, string>();
  for (let index = 0; index < count; index += 1) {
    assert.equal(archive.readUInt32LE(at), 0x02014b50);
    const method = archive.readUInt16LE(at + 10);
    const packedSize = archive.readUInt32LE(at + 20);
    const size = archive.readUInt32LE(at + 24);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const localAt = archive.readUInt32LE(at + 42);
    const name = archive.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    assert.equal(archive.readUInt32LE(localAt), 0x04034b50);
    const dataAt =
      localAt + 30 + archive.readUInt16LE(localAt + 26) + archive.readUInt16LE(localAt + 28);
    const packed = archive.subarray(dataAt, dataAt + packedSize);
    const content = method === 8 ? inflateRawSync(packed) : packed;
    assert.equal(content.length, size);
    entries.set(name, content.toString('utf8'));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** A small CSV reader for the test: quoted fields, doubled quotes, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (quoted) {
      if (character === '"' && text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (character === '"') quoted = false;
      else field += character;
    } else if (character === '"') quoted = true;
    else if (character === ',') {
      row.push(field);
      field = '';
    } else if (character === '\r' && text[index + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      index += 1;
    } else field += character;
  }
  assert.equal(field, '', 'the CSV ends with a line break');
  return rows;
}

const sampleTemplate = {
  name: 'Field sample',
  description: 'Samples from the field',
  attributes: [
    { name: 'site', description: 'Where, as "lat, long"', type: 'String', required: true },
    {
      name: 'habitat',
      description: 'Habitat class',
      type: 'Enum',
      values: [{ value: 'forest' }, { value: 'wetland', is_default: true }, { value: 'grassland' }],
    },
    {
      name: 'collector',
      description: 'Who collected it',
      type: 'Grouping',
      attributes: [
        { name: 'collectorName', description: 'Full name', type: 'String', required: true },
        {
          name: 'collectorOrcid',
          description: 'ORCID iD',
          type: 'URL/URI',
          settings: { placeholder: 'https://orcid.org/…' },
        },
      ],
    },
    { name: 'depth', description: 'Depth in metres', type: 'number', required: 'true' },
  ],
};

/** Metadata templates (backends.md §3.5): the seeded template, downloads, admin CRUD, validation; on each engine. */
for (const engine of metadataEngines) {
  describe(`metadata templates on ${engine.name}`, () => {
    let service: MetadataHost | undefined;
    before(async () => {
      service = await engine.open();
    });
    after(async () => service?.close());
    const s = () => service!;
    const ok = async (method: string, url: string, body?: unknown, user = 'alice') => {
      const answer = await s().call(method, url, { user, body });
      assert.equal(answer.status, 200, `${method} ${url}: ${answer.text}`);
      return answer.json();
    };

    test('a fresh platform lists the seeded DataCite citation template, attributes and all', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const listing = await ok('GET', '/templates');
      const seeded = listing.metadata_templates.find(
        (template: { id: string }) => template.id === dataCiteTemplateId,
      );
      assert.ok(seeded, JSON.stringify(listing));
      assert.equal(seeded.name, 'DataCite 4 citation');
      assert.equal(seeded.deleted, false);
      assert.equal(seeded.created_by, 'system');
      assert.match(seeded.created_on, isoDate);
      assert.match(seeded.modified_on, isoDate);

      const template = await ok('GET', `/templates/${dataCiteTemplateId.toUpperCase()}`);
      assert.equal(template.id, dataCiteTemplateId);
      const names = template.attributes.map((attribute: { name: string }) => attribute.name);
      for (const name of [
        'identifier',
        'creator',
        'title',
        'publisher',
        'publicationYear',
        'resourceTypeGeneral',
        'subject',
        'contributor',
        'date',
        'language',
        'rights',
        'description',
      ]) {
        assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
      }
      const byName = new Map(
        template.attributes.map((attribute: { name: string }) => [attribute.name, attribute]),
      );
      const attr = (name: string) => byName.get(name) as Record<string, any>;
      for (const name of [
        'creator',
        'title',
        'publisher',
        'publicationYear',
        'resourceTypeGeneral',
        'resourceType',
      ])
        assert.equal(attr(name).required, true, name);
      assert.equal(
        attr('identifier').required,
        false,
        'the platform writes the identifier when it mints',
      );
      assert.equal(attr('publicationYear').type, 'Integer');
      assert.equal(attr('description').type, 'Multiline Text');
      assert.equal(attr('rightsURI').type, 'URL/URI');
      assert.equal(attr('date').type, 'Timestamp');
      const general = attr('resourceTypeGeneral');
      assert.equal(general.type, 'Enum');
      assert.deepEqual(
        general.values
          .filter((value: { is_default: boolean }) => value.is_default)
          .map((value: { value: string }) => value.value),
        ['Dataset'],
      );
      assert.ok(general.values.length >= 10);
      assert.equal(attr('title').values, undefined, 'values only on Enum attributes');
      assert.deepEqual(attr('title').synonyms, []);
      assert.deepEqual(attr('title').attributes, []);
      const creator = attr('creator');
      assert.equal(creator.type, 'Grouping');
      assert.deepEqual(
        creator.attributes.map((child: { name: string }) => child.name),
        ['creatorName', 'creatorNameIdentifier', 'creatorAffiliation'],
      );
      assert.equal(creator.attributes[0].required, true);

      const one = await ok('GET', `/templates/attr/${creator.attributes[0].id}`);
      assert.deepEqual(one, creator.attributes[0]);
    });

    test('blank, guide and zip downloads of a template', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const created = await ok('POST', '/admin/templates', sampleTemplate, 'admin');

      const blank = await s().call('GET', `/templates/${created.id}/blank-csv`, { user: 'alice' });
      assert.equal(blank.status, 200, blank.text);
      assert.equal(blank.headers['content-type'], 'text/csv; charset=utf-8');
      assert.equal(
        blank.headers['content-disposition'],
        `attachment; filename="metadata.csv"; filename*=UTF-8''metadata.csv`,
      );
      assert.equal(blank.text, 'file name or path,site,habitat,collector,depth\r\n');
      const inline = await s().call('GET', `/templates/${created.id}/blank-csv?attachment=false`, {
        user: 'alice',
      });
      assert.match(String(inline.headers['content-disposition']), /^inline; /);

      const guide = await s().call('GET', `/templates/${created.id}/guide-csv`, { user: 'alice' });
      assert.equal(guide.status, 200, guide.text);
      assert.match(String(guide.headers['content-disposition']), /filename="guide.csv"/);
      const rows = parseCsv(guide.text);
      assert.equal(rows.length, 5);
      assert.deepEqual(rows[0]!.slice(0, 2), ['attribute name', 'attribute description']);
      assert.deepEqual(rows[1], ['site', 'Where, as "lat, long"', 'true', 'String', '']);
      assert.deepEqual(rows[2], [
        'habitat',
        'Habitat class',
        'false',
        'Enum',
        'forest, wetland, grassland',
      ]);
      assert.deepEqual(rows[4], ['depth', 'Depth in metres', 'true', 'Number', '']);

      const zipped = await s().call('GET', `/templates/${created.id}/zip-csv`, { user: 'alice' });
      assert.equal(zipped.status, 200, zipped.text);
      assert.equal(zipped.headers['content-type'], 'application/zip');
      assert.match(
        String(zipped.headers['content-disposition']),
        /^attachment; filename="template.zip"/,
      );
      const entries = unzip(zipped.bytes);
      assert.deepEqual([...entries.keys()], ['Field sample/blank.csv', 'Field sample/guide.csv']);
      assert.equal(entries.get('Field sample/blank.csv'), blank.text);
      assert.equal(entries.get('Field sample/guide.csv'), guide.text);

      const seededZip = unzip(
        (await s().call('GET', `/templates/${dataCiteTemplateId}/zip-csv`, { user: 'alice' }))
          .bytes,
      );
      assert.deepEqual(
        [...seededZip.keys()],
        ['DataCite 4 citation/blank.csv', 'DataCite 4 citation/guide.csv'],
      );
      assert.match(
        seededZip.get('DataCite 4 citation/blank.csv')!,
        /^file name or path,identifier,identifierType,creator,title,publisher,publicationYear,/,
      );

      for (const kind of ['blank-csv', 'guide-csv', 'zip-csv']) {
        const missing = await s().call(
          'GET',
          `/templates/9b1c2a5e-0000-4000-8000-000000000000/${kind}`,
          { user: 'alice' },
        );
        assert.equal(missing.status, 404, kind);
        assert.equal(missing.json().error_code, 'ERR_NOT_FOUND');
      }
      const badFlag = await s().call('GET', `/templates/${created.id}/blank-csv?attachment=maybe`, {
        user: 'alice',
      });
      assert.equal(badFlag.status, 400);
      assert.equal(badFlag.json().error_code, 'ERR_BAD_QUERY_PARAMETER');
    });

    test('create, read back, update (kept, changed, dropped and new attributes), list', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const created = await ok(
        'POST',
        '/admin/templates',
        { ...sampleTemplate, name: 'Round trip' },
        'admin',
      );
      assert.equal(created.name, 'Round trip');
      assert.equal(created.description, 'Samples from the field');
      assert.equal(created.deleted, false);
      assert.equal(created.created_by, 'admin');
      assert.equal(created.modified_by, 'admin');
      const [site, habitat, collector, depth] = created.attributes;
      assert.deepEqual(
        created.attributes.map((attribute: { name: string; type: string; required: boolean }) => [
          attribute.name,
          attribute.type,
          attribute.required,
        ]),
        [
          ['site', 'String', true],
          ['habitat', 'Enum', false],
          ['collector', 'Grouping', false],
          ['depth', 'Number', true],
        ],
        'types in canonical spelling, "true" taken as true',
      );
      assert.deepEqual(
        habitat.values.map((value: { value: string; is_default: boolean }) => [
          value.value,
          value.is_default,
        ]),
        [
          ['forest', false],
          ['wetland', true],
          ['grassland', false],
        ],
      );
      assert.deepEqual(
        collector.attributes.map((child: { name: string }) => child.name),
        ['collectorName', 'collectorOrcid'],
      );
      assert.deepEqual(collector.attributes[1].settings, { placeholder: 'https://orcid.org/…' });
      assert.equal(site.created_by, 'admin');
      assert.deepEqual(
        await ok('GET', `/templates/${created.id}`),
        created,
        'what was answered is what is stored',
      );

      // A client sends back what it fetched, edited: site renamed (same id), habitat's values
      // changed, collector dropped (children with it), depth kept as it was, a new attribute.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const edited = {
        ...created,
        name: 'Round trip v2',
        description: null,
        attributes: [
          { ...site, name: 'location', description: 'Where' },
          { ...habitat, values: [{ value: 'tundra', is_default: true }, { value: 'forest' }] },
          depth,
          { name: 'notes', description: 'Anything else', type: 'Multiline Text' },
        ],
      };
      const updated = await ok('PUT', `/admin/templates/${created.id}`, edited, 'curator');
      assert.equal(updated.name, 'Round trip v2');
      assert.equal(updated.description, undefined);
      assert.equal(updated.created_by, 'admin');
      assert.equal(updated.modified_by, 'curator');
      assert.ok(updated.modified_on > created.modified_on);
      assert.deepEqual(
        updated.attributes.map((attribute: { name: string }) => attribute.name),
        ['location', 'habitat', 'depth', 'notes'],
      );
      const [location, newHabitat, sameDepth, notes] = updated.attributes;
      assert.equal(location.id, site.id, 'an attribute keeps its id');
      assert.equal(location.created_on, site.created_on);
      assert.equal(location.modified_by, 'curator');
      assert.equal(newHabitat.id, habitat.id);
      assert.deepEqual(
        newHabitat.values.map((value: { value: string; is_default: boolean }) => [
          value.value,
          value.is_default,
        ]),
        [
          ['tundra', true],
          ['forest', false],
        ],
      );
      assert.equal(sameDepth.id, depth.id);
      assert.notEqual(notes.id, undefined);
      for (const dropped of [
        collector.id,
        ...collector.attributes.map((child: { id: string }) => child.id),
      ]) {
        const gone = await s().call('GET', `/templates/attr/${dropped}`, { user: 'alice' });
        assert.equal(gone.status, 404, 'dropped attributes are deleted');
        assert.deepEqual(gone.json(), {
          error_code: 'ERR_NOT_FOUND',
          reason: `metadata attribute ${dropped} not found`,
          id: dropped,
        });
      }

      const listed = (await ok('GET', '/templates')).metadata_templates;
      const names = listed.map((template: { name: string }) => template.name);
      assert.ok(names.includes('Round trip v2'));
      assert.deepEqual(
        names,
        [...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)),
        'ordered by name',
      );
      const entry = listed.find((template: { id: string }) => template.id === created.id);
      assert.deepEqual(Object.keys(entry).sort(), [
        'created_by',
        'created_on',
        'deleted',
        'id',
        'modified_by',
        'modified_on',
        'name',
      ]);

      const unknown = await s().call(
        'PUT',
        '/admin/templates/9b1c2a5e-0000-4000-8000-000000000000',
        { user: 'admin', body: sampleTemplate },
      );
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.json(), {
        error_code: 'ERR_NOT_FOUND',
        reason: 'metadata template 9b1c2a5e-0000-4000-8000-000000000000 not found',
        id: '9b1c2a5e-0000-4000-8000-000000000000',
      });
    });

    test('soft delete hides a template from the listing; permanent delete removes it and its attributes', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const soft = await ok(
        'POST',
        '/admin/templates',
        { ...sampleTemplate, name: 'Soft' },
        'admin',
      );
      const hard = await ok(
        'POST',
        '/admin/templates',
        { ...sampleTemplate, name: 'Hard' },
        'admin',
      );
      const ids = (listing: { metadata_templates: { id: string }[] }) =>
        listing.metadata_templates.map((template) => template.id);

      const removed = await s().call('DELETE', `/admin/templates/${soft.id}`, {
        user: 'admin',
        body: {},
      });
      assert.equal(removed.status, 204, removed.text);
      assert.ok(!ids(await ok('GET', '/templates')).includes(soft.id), 'not listed');
      const adminListing = await ok('GET', '/admin/templates', undefined, 'admin');
      assert.equal(
        adminListing.metadata_templates.find((template: { id: string }) => template.id === soft.id)
          .deleted,
        true,
        'the admin listing includes deleted ones',
      );
      const stillThere = await ok('GET', `/templates/${soft.id}`);
      assert.equal(stillThere.deleted, true);
      assert.equal(stillThere.attributes.length, 4, 'attributes kept');
      const restored = await ok(
        'PUT',
        `/admin/templates/${soft.id}`,
        { ...stillThere, deleted: false },
        'admin',
      );
      assert.equal(restored.deleted, false);
      assert.ok(ids(await ok('GET', '/templates')).includes(soft.id), 'undeleted by an update');

      const gone = await s().call('DELETE', `/admin/templates/${hard.id}?permanent=true`, {
        user: 'admin',
      });
      assert.equal(gone.status, 204, gone.text);
      assert.equal((await s().call('GET', `/templates/${hard.id}`, { user: 'alice' })).status, 404);
      assert.ok(!ids(await ok('GET', '/admin/templates', undefined, 'admin')).includes(hard.id));
      for (const attribute of [...hard.attributes, ...hard.attributes[2].attributes]) {
        assert.equal(
          (await s().call('GET', `/templates/attr/${attribute.id}`, { user: 'alice' })).status,
          404,
        );
      }
      const enumRows = await s()
        .store.db.selectFrom('metadata_attr_enum_values')
        .select('id')
        .where(
          'id',
          'in',
          hard.attributes[1].values.map((value: { id: string }) => value.id),
        )
        .execute();
      assert.deepEqual(enumRows, []);
      assert.equal(
        (await s().call('DELETE', `/admin/templates/${hard.id}`, { user: 'admin' })).status,
        404,
      );
      assert.equal(
        (await s().call('GET', `/templates/attr/${soft.attributes[0].id}`, { user: 'alice' }))
          .status,
        200,
        "the other template's attributes stay",
      );
    });

    test('bad template bodies are 400 naming the field, and write nothing', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const before = (await ok('GET', '/admin/templates', undefined, 'admin')).metadata_templates
        .length;
      const attribute = { name: 'a', description: 'd', type: 'String' };
      const cases: [unknown, string][] = [
        [[], ''],
        [{ attributes: [] }, 'name'],
        [{ name: '  ', attributes: [] }, 'name'],
        [{ name: 'x'.repeat(65), attributes: [] }, 'name'],
        [{ name: 'n', attributes: {} }, 'attributes'],
        [{ name: 'n', deleted: 'yes', attributes: [] }, 'deleted'],
        [{ name: 'n', attributes: [{ ...attribute, type: 'Colour' }] }, 'attributes[0].type'],
        [{ name: 'n', attributes: [attribute, { ...attribute, name: '' }] }, 'attributes[1].name'],
        [
          { name: 'n', attributes: [{ ...attribute, description: 5 }] },
          'attributes[0].description',
        ],
        [{ name: 'n', attributes: [{ ...attribute, type: 'Enum' }] }, 'attributes[0].values'],
        [
          { name: 'n', attributes: [{ ...attribute, values: [{ value: 'x' }] }] },
          'attributes[0].values',
        ],
        [
          {
            name: 'n',
            attributes: [{ ...attribute, type: 'Enum', values: [{ value: 'x' }, { value: 'x' }] }],
          },
          'attributes[0].values[1].value',
        ],
        [
          {
            name: 'n',
            attributes: [
              {
                ...attribute,
                type: 'Enum',
                values: [
                  { value: 'x', is_default: true },
                  { value: 'y', is_default: true },
                ],
              },
            ],
          },
          'attributes[0].values',
        ],
        [
          { name: 'n', attributes: [{ ...attribute, attributes: [attribute] }] },
          'attributes[0].attributes',
        ],
        [
          {
            name: 'n',
            attributes: [
              {
                ...attribute,
                type: 'Grouping',
                attributes: [{ ...attribute, required: 'sometimes' }],
              },
            ],
          },
          'attributes[0].attributes[0].required',
        ],
        [{ name: 'n', attributes: [{ ...attribute, settings: 'x' }] }, 'attributes[0].settings'],
      ];
      for (const [body, field] of cases) {
        const answer = await s().call('POST', '/admin/templates', { user: 'admin', body });
        assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
        assert.equal(answer.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
        if (field) assert.equal(answer.json().field, field, JSON.stringify(body));
      }
      const malformed = await s().call('POST', '/admin/templates', {
        user: 'admin',
        raw: '{"name": ',
      });
      assert.equal(malformed.status, 400);
      assert.equal(malformed.json().error_code, 'ERR_INVALID_JSON');
      const noUser = await s().call('GET', '/templates');
      assert.equal(noUser.status, 400);
      assert.equal(noUser.json().error_code, 'ERR_MISSING_QUERY_PARAMETER');
      const missing = await s().call('GET', '/templates/not-a-template', { user: 'alice' });
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.json(), {
        error_code: 'ERR_NOT_FOUND',
        reason: 'metadata template not-a-template not found',
        id: 'not-a-template',
      });
      assert.equal(
        (await ok('GET', '/admin/templates', undefined, 'admin')).metadata_templates.length,
        before,
        'nothing was written',
      );
    });
  });
}
