// Permanent-ID requests through the gateway (routes.md §14): real HTTP, the embedded metadata and
// data-info services, a recording notification agent, and a local DataCite-style PID server for
// the HTTP minter. A request goes from creation to identifier; every refusal is checked.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { startBackend, type RecordedRequest, type TestBackend } from '../support/backend.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

const notificationsOf = (agent: TestBackend, user: string): Record<string, any>[] =>
  agent.requests
    .filter((request: RecordedRequest) => request.path === '/notification')
    .map((request) => JSON.parse(request.body.toString('utf8')))
    .filter((body) => body.user === user && body.type === 'permanent_id_request');

/** A notification agent that accepts everything (and records it). */
const startAgent = () =>
  startBackend((_request, response) => {
    response.writeHead(200);
    response.end();
  });

/** A non-empty folder of `user`'s, answering its stat. */
async function dataFolder(g: MetadataGateway, user: string, name: string) {
  const folder = await g.folder(user, `${g.home(user)}/${name}`);
  await g.upload(user, folder.path, 'data.csv', 'a,b\n1,2\n');
  return folder;
}

/** AVUs on a folder, straight in the metadata service (fixture setup). */
async function writeAvus(g: MetadataGateway, user: string, folderId: string, avus: unknown[]) {
  await g.running.gateway.forwarder.callJson('metadata', {
    method: 'POST',
    path: `/avus/folder/${folderId}`,
    identity: { username: user, roles: [], groups: [] },
    identityStyle: 'user',
    json: { avus },
  });
}

const statuses = (details: any) => details.history.map((entry: any) => entry.status);

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`permanent-ID requests, embedded minter (${engine})`, () => {
    let g: MetadataGateway | undefined;
    let agent: TestBackend;

    before(async () => {
      agent = await startAgent();
      g = await startMetadataGateway({
        engine,
        env: {
          NOTIFICATION_AGENT_URL: agent.url,
          PID_PREFIX: '10.9999',
          PID_TARGET_BASE_URL: 'https://data.example.org/landing',
        },
      });
    });
    after(async () => {
      await g?.close();
      await agent?.close();
    });

    test('from creation to identifier: AVUs on the folder, status history, a notification per change', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      const folder = await dataFolder(g, 'alice', 'genomes');
      // Citation metadata the minted XML uses (metadata's own route: the gateway's data-metadata routes are not under test here).
      await writeAvus(g, 'alice', folder.id, [
        { attr: 'title', value: 'Genome <assemblies>', unit: '' },
        { attr: 'publisher', value: 'Plant Lab', unit: '' },
      ]);

      const created = await g.call('alice', 'POST', '/permanent-id-requests', {
        json: { type: 'DOI', folder: folder.id },
      });
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.type, 'DOI');
      assert.equal(created.body.requested_by, 'alice');
      assert.equal(created.body.original_path, folder.path);
      assert.equal(created.body.folder.id, folder.id);
      assert.equal(created.body.folder.path, folder.path);
      assert.equal(created.body.target_id, undefined, 'target_id is replaced by the folder');
      assert.deepEqual(statuses(created.body), ['Submitted']);
      const id = created.body.id;

      const own = await g.call('alice', 'GET', `/permanent-id-requests/${id}`);
      assert.equal(own.status, 200, own.text);
      assert.equal(own.body.folder['file-count'], 1);

      const reviewed = await g.call(admin, 'POST', `/admin/permanent-id-requests/${id}/status`, {
        json: { status: 'Evaluation', comments: 'looking at it' },
      });
      assert.equal(reviewed.status, 200, reviewed.text);
      assert.deepEqual(statuses(reviewed.body), ['Submitted', 'Evaluation']);
      assert.equal(reviewed.body.history[1].updated_by, admin);
      assert.equal(
        reviewed.body.folder.path,
        folder.path,
        'the admin sees the folder as its requester does',
      );

      const approved = await g.call(admin, 'POST', `/admin/permanent-id-requests/${id}/status`, {
        json: { status: 'Approved' },
      });
      assert.equal(approved.status, 200, approved.text);

      const preview = await g.call(
        admin,
        'GET',
        `/admin/permanent-id-requests/${id}/preview-submission`,
      );
      assert.equal(preview.status, 200, preview.text);
      assert.match(preview.text, /^<\?xml/);
      assert.match(
        preview.text,
        /<identifier identifierType="DOI">10\.9999\/[a-z0-9]{4}-[a-z0-9]{4}<\/identifier>/,
      );
      assert.match(preview.text, /<creatorName>alice<\/creatorName>/);
      assert.match(preview.text, /<title>Genome &lt;assemblies&gt;<\/title>/);
      assert.match(preview.text, /<publisher>Plant Lab<\/publisher>/);

      const completed = await g.call(
        admin,
        'POST',
        `/admin/permanent-id-requests/${id}/pidprovider`,
        { json: {} },
      );
      assert.equal(completed.status, 200, completed.text);
      assert.equal(completed.body.provider, 'embedded');
      assert.match(completed.body.note, /10\.9999/);
      assert.match(completed.body.permanent_id, /^10\.9999\/[a-z0-9]{4}-[a-z0-9]{4}$/);
      assert.deepEqual(statuses(completed.body), [
        'Submitted',
        'Evaluation',
        'Approved',
        'Completion',
      ]);
      assert.match(
        completed.body.history[3].comments,
        new RegExp(completed.body.permanent_id.replace('.', '\\.')),
      );
      const identifier = completed.body.permanent_id;

      // The identifier is metadata on the folder now.
      const onFolder = await g.running.gateway.forwarder.callJson<{
        avus: Array<{ attr: string; value: string }>;
      }>('metadata', {
        method: 'GET',
        path: `/avus/folder/${folder.id}`,
        identity: { username: 'alice', roles: [], groups: [] },
        identityStyle: 'user',
      });
      const attrs = Object.fromEntries(onFolder.avus.map((avu) => [avu.attr, avu.value]));
      assert.equal(attrs.identifier, identifier);
      assert.equal(attrs.identifierType, 'DOI');
      assert.equal(attrs.publicationYear, String(new Date().getUTCFullYear()));

      const notes = notificationsOf(agent, 'alice').filter((n) => n.payload.id === id);
      assert.deepEqual(
        notes.map((n) => n.payload.status),
        ['Submitted', 'Evaluation', 'Approved', 'Completion'],
      );
      assert.equal(notes[0]!.payload.action, 'permanent_id_request_submitted');
      assert.equal(notes[3]!.payload.permanent_id, identifier);
      assert.match(notes[3]!.message, new RegExp(identifier.replace('.', '\\.')));

      // Completed once: a second mint is refused and records nothing.
      const again = await g.call(admin, 'POST', `/admin/permanent-id-requests/${id}/pidprovider`);
      assert.equal(again.status, 400, again.text);
      assert.equal(again.body.error_code, 'ERR_EXISTS');
      const after = await g.call(admin, 'GET', `/admin/permanent-id-requests/${id}`);
      assert.deepEqual(statuses(after.body), ['Submitted', 'Evaluation', 'Approved', 'Completion']);

      // The folder has an identifier now: no new request of another type for it.
      const ark = await g.call('alice', 'POST', '/permanent-id-requests', {
        json: { type: 'ARK', folder: folder.id },
      });
      assert.equal(ark.status, 400, ark.text);
      assert.equal(ark.body.error_code, 'ERR_EXISTS');
    });

    test('ARK requests are minted under the ARK test shoulder', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      const folder = await dataFolder(g, 'alice', 'arks');
      const created = await g.call('alice', 'POST', '/permanent-id-requests', {
        json: { type: 'ARK', folder: folder.id },
      });
      assert.equal(created.status, 200, created.text);
      const completed = await g.call(
        admin,
        'POST',
        `/admin/permanent-id-requests/${created.body.id}/pidprovider`,
      );
      assert.equal(completed.status, 200, completed.text);
      assert.match(completed.body.permanent_id, /^ark:\/99999\/fk4[a-z0-9]{8}$/);
    });

    // `/ezid`, the name the web UI calls, completes a request as `/pidprovider` does.
    test('the /ezid alias mints and completes like /pidprovider', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      const folder = await dataFolder(g, 'alice', 'through-ezid');
      const created = await g.call('alice', 'POST', '/permanent-id-requests', {
        json: { type: 'DOI', folder: folder.id },
      });
      assert.equal(created.status, 200, created.text);
      const completed = await g.call(
        admin,
        'POST',
        `/admin/permanent-id-requests/${created.body.id}/ezid`,
      );
      assert.equal(completed.status, 200, completed.text);
      assert.equal(completed.body.provider, 'embedded');
      assert.match(completed.body.permanent_id, /^10\.9999\/[a-z0-9]{4}-[a-z0-9]{4}$/);
      assert.equal(statuses(completed.body).at(-1), 'Completion');
      const refused = await g.call(
        'alice',
        'POST',
        `/admin/permanent-id-requests/${created.body.id}/ezid`,
      );
      assert.equal(refused.status, 403, refused.text);
    });

    test('refusals: not a UUID, missing, not the owner, not a folder, empty, already identified, duplicate', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      const create = (user: string, json: unknown) =>
        g!.call(user, 'POST', '/permanent-id-requests', { json });
      const bobs = await dataFolder(g, 'bob', 'shared-data');
      const shared = await g.call('bob', 'POST', '/secured/share', {
        json: { sharing: [{ user: 'alice', paths: [{ path: bobs.path, permission: 'write' }] }] },
      });
      assert.equal(shared.status, 200, shared.text);
      const bobsPrivate = await dataFolder(g, 'bob', 'private');
      const file = await g.upload('alice', g.home('alice'), 'single.txt', 'x');
      const empty = await g.folder('alice', `${g.home('alice')}/empty`);
      const identified = await dataFolder(g, 'alice', 'identified');
      await writeAvus(g, 'alice', identified.id, [
        { attr: 'identifier', value: '10.1234/old', unit: '' },
      ]);

      const cases: Array<[string, unknown, number, string]> = [
        ['not a uuid', { type: 'DOI', folder: 'nope' }, 400, 'ERR_BAD_OR_MISSING_FIELD'],
        ['missing type', { folder: bobs.id }, 400, 'ERR_BAD_OR_MISSING_FIELD'],
        ['unreadable', { type: 'DOI', folder: bobsPrivate.id }, 404, 'ERR_DOES_NOT_EXIST'],
        [
          'unknown',
          { type: 'DOI', folder: '00000000-0000-4000-8000-000000000000' },
          404,
          'ERR_DOES_NOT_EXIST',
        ],
        ['not the owner', { type: 'DOI', folder: bobs.id }, 403, 'ERR_NOT_OWNER'],
        ['a file', { type: 'DOI', folder: file.id }, 400, 'ERR_NOT_A_FOLDER'],
        ['empty', { type: 'DOI', folder: empty.id }, 400, 'ERR_BAD_OR_MISSING_FIELD'],
        ['already identified', { type: 'DOI', folder: identified.id }, 400, 'ERR_EXISTS'],
        [
          'unknown type',
          { type: 'URN', folder: (await dataFolder(g, 'alice', 'urn')).id },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
        ],
      ];
      for (const [name, json, status, code] of cases) {
        const answer = await create('alice', json);
        assert.equal(answer.status, status, `${name}: ${answer.text}`);
        assert.equal(answer.body.error_code, code, `${name}: ${answer.text}`);
      }

      const folder = await dataFolder(g, 'alice', 'twice');
      assert.equal((await create('alice', { type: 'DOI', folder: folder.id })).status, 200);
      const duplicate = await create('alice', { type: 'doi', folder: folder.id });
      assert.equal(duplicate.status, 400, duplicate.text);
      assert.equal(duplicate.body.error_code, 'ERR_NOT_UNIQUE');

      const unauthenticated = await g.call(null, 'POST', '/permanent-id-requests', {
        json: { type: 'DOI', folder: folder.id },
      });
      assert.equal(unauthenticated.status, 401);
    });

    test('a user sees only their own requests; admin routes refuse users (403)', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      const folder = await dataFolder(g, 'carol', 'mine');
      const created = await g.call('carol', 'POST', '/permanent-id-requests', {
        json: { type: 'DOI', folder: folder.id },
      });
      assert.equal(created.status, 200, created.text);
      const id = created.body.id;

      const other = await g.call('dave', 'GET', `/permanent-id-requests/${id}`);
      assert.equal(other.status, 404, other.text);
      assert.equal((await g.call('dave', 'GET', '/permanent-id-requests/not-a-uuid')).status, 404);
      assert.equal((await g.call('dave', 'GET', '/permanent-id-requests')).body.total, 0);

      for (const [method, route] of [
        ['GET', '/admin/permanent-id-requests'],
        ['GET', `/admin/permanent-id-requests/${id}`],
        ['POST', `/admin/permanent-id-requests/${id}/status`],
        ['POST', `/admin/permanent-id-requests/${id}/pidprovider`],
        ['GET', `/admin/permanent-id-requests/${id}/preview-submission`],
      ] as const) {
        const answer = await g.call(
          'carol',
          method,
          route,
          method === 'POST' ? { json: { status: 'Approved' } } : {},
        );
        assert.equal(answer.status, 403, `${method} ${route}: ${answer.text}`);
      }
      const unchanged = await g.call('carol', 'GET', `/permanent-id-requests/${id}`);
      assert.deepEqual(statuses(unchanged.body), ['Submitted']);
      assert.equal(
        (
          await g.call(
            admin,
            'GET',
            '/admin/permanent-id-requests/00000000-0000-4000-8000-000000000000',
          )
        ).status,
        404,
      );
    });

    test('listings carry folder stats in place of target ids (user: own requests; admin: everyone)', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      const folders = [
        await dataFolder(g, 'erin', 'one'),
        await dataFolder(g, 'erin', 'two'),
        await dataFolder(g, 'frank', 'three'),
      ];
      const ids: string[] = [];
      for (const [user, folder] of [
        ['erin', folders[0]],
        ['erin', folders[1]],
        ['frank', folders[2]],
      ] as const) {
        const created = await g.call(user, 'POST', '/permanent-id-requests', {
          json: { type: 'DOI', folder: folder.id },
        });
        assert.equal(created.status, 200, created.text);
        ids.push(created.body.id);
      }
      await g.call(admin, 'POST', `/admin/permanent-id-requests/${ids[1]}/status`, {
        json: { status: 'Pending' },
      });

      const [dataInfoBefore, metadataBefore] = [
        await g.backendCalls('data-info'),
        await g.backendCalls('metadata'),
      ];
      const erins = await g.call(
        'erin',
        'GET',
        '/permanent-id-requests?sort-field=date_submitted&sort-dir=asc',
      );
      assert.deepEqual(
        [
          (await g.backendCalls('data-info')) - dataInfoBefore,
          (await g.backendCalls('metadata')) - metadataBefore,
        ],
        [1, 1],
        'one metadata listing, one batched data-info stat',
      );
      assert.equal(erins.status, 200, erins.text);
      assert.equal(erins.body.total, 2);
      assert.deepEqual(
        erins.body.requests.map((item: any) => [
          item.id,
          item.folder.id,
          item.folder.path,
          item.folder.type,
          item.target_id,
        ]),
        [
          [ids[0], folders[0].id, folders[0].path, 'dir', undefined],
          [ids[1], folders[1].id, folders[1].path, 'dir', undefined],
        ],
      );
      const pending = await g.call('erin', 'GET', '/permanent-id-requests?statuses=Pending');
      assert.deepEqual(
        pending.body.requests.map((item: any) => item.id),
        [ids[1]],
      );
      const paged = await g.call(
        'erin',
        'GET',
        '/permanent-id-requests?limit=1&offset=1&sort-field=date_submitted&sort-dir=asc',
      );
      assert.deepEqual(
        [paged.body.total, paged.body.requests.map((item: any) => item.id)],
        [2, [ids[1]]],
      );
      const badSort = await g.call('erin', 'GET', '/permanent-id-requests?sort-field=nonsense');
      assert.equal(badSort.status, 400, badSort.text);

      const everyone = await g.call(admin, 'GET', '/admin/permanent-id-requests?limit=1000');
      assert.equal(everyone.status, 200, everyone.text);
      const byId = new Map(everyone.body.requests.map((item: any) => [item.id, item]));
      for (const [index, id] of ids.entries()) {
        const item: any = byId.get(id);
        assert.ok(item, id);
        assert.equal(item.folder.path, folders[index]!.path, 'stat as the requester');
      }
      assert.equal((byId.get(ids[2]) as any).requested_by, 'frank');

      // A folder that is gone shows as null.
      const removed = await g.call('erin', 'POST', '/secured/filesystem/delete', {
        json: { paths: [folders[0].path] },
      });
      assert.equal(removed.status, 200, removed.text);
      const afterDelete = await g.call('erin', 'GET', `/permanent-id-requests/${ids[0]}`);
      assert.equal(afterDelete.status, 200, afterDelete.text);
      // Deleted = moved to the trash: erin can still read it, under its trash path.
      assert.notEqual(afterDelete.body.folder?.path, folders[0].path);
    });

    test('status-codes and types', async (t) => {
      if (!g) return t.skip('DATABASE_URL is not set');
      const codes = await g.call('alice', 'GET', '/permanent-id-requests/status-codes');
      assert.equal(codes.status, 200, codes.text);
      assert.ok(
        ['Submitted', 'Completion', 'Failed'].every((name) =>
          codes.body.status_codes.some((code: any) => code.name === name),
        ),
      );
      const types = await g.call('alice', 'GET', '/permanent-id-requests/types');
      assert.deepEqual(types.body.request_types.map((type: any) => type.type).sort(), [
        'ARK',
        'DOI',
      ]);
    });
  });
}

describe('permanent-ID requests, HTTP PID provider', () => {
  let g: MetadataGateway | undefined;
  let agent: TestBackend;
  let pid: TestBackend;
  const expectedAuth = `Basic ${Buffer.from('repo.test:s3cret-password').toString('base64')}`;
  let failWith: number | undefined;

  before(async () => {
    agent = await startAgent();
    // A DataCite-style REST server: checks basic auth, echoes the DOI it was asked to publish.
    pid = await startBackend((request, response) => {
      if (request.headers.authorization !== expectedAuth) {
        response.writeHead(401, { 'content-type': 'application/vnd.api+json' });
        response.end(JSON.stringify({ errors: [{ status: '401', title: 'Bad credentials.' }] }));
        return;
      }
      if (failWith !== undefined) {
        response.writeHead(failWith, { 'content-type': 'application/vnd.api+json' });
        response.end(
          JSON.stringify({
            errors: [{ status: String(failWith), title: 'This DOI has already been taken' }],
          }),
        );
        return;
      }
      const body = JSON.parse(request.body.toString('utf8'));
      response.writeHead(201, { 'content-type': 'application/vnd.api+json' });
      response.end(
        JSON.stringify({
          data: {
            id: body.data.attributes.doi,
            type: 'dois',
            attributes: { doi: body.data.attributes.doi, state: 'findable' },
          },
        }),
      );
    });
    g = await startMetadataGateway({
      env: {
        NOTIFICATION_AGENT_URL: agent.url,
        PIDPROVIDER_URL: `${pid.url}/api`,
        PIDPROVIDER_USER: 'repo.test',
        PIDPROVIDER_PASSWORD: 's3cret-password',
        PID_PREFIX: '10.80123',
        PID_TARGET_BASE_URL: 'https://data.example.org/landing/',
      },
    });
  });
  after(async () => {
    await g?.close();
    await agent?.close();
    await pid?.close();
  });

  test('mints through the provider with basic auth, the publish event, URL and base64 XML', async () => {
    const folder = await dataFolder(g!, 'alice', 'published');
    const created = await g!.call('alice', 'POST', '/permanent-id-requests', {
      json: { type: 'DOI', folder: folder.id },
    });
    assert.equal(created.status, 200, created.text);
    const completed = await g!.call(
      admin,
      'POST',
      `/admin/permanent-id-requests/${created.body.id}/pidprovider`,
      { json: {} },
    );
    assert.equal(completed.status, 200, completed.text);
    assert.equal(completed.body.provider, 'http');
    assert.equal(completed.body.note, undefined);
    assert.deepEqual(statuses(completed.body), ['Submitted', 'Completion']);

    const sent = pid.requests.at(-1)!;
    assert.equal(sent.method, 'POST');
    assert.equal(sent.path, '/api/dois');
    assert.equal(sent.headers.authorization, expectedAuth);
    const attributes = JSON.parse(sent.body.toString('utf8')).data.attributes;
    assert.equal(attributes.event, 'publish');
    assert.equal(attributes.prefix, '10.80123');
    assert.equal(attributes.url, `https://data.example.org/landing${folder.path}`);
    assert.equal(attributes.doi, completed.body.permanent_id);
    const xml = Buffer.from(attributes.xml, 'base64').toString('utf8');
    assert.match(
      xml,
      new RegExp(
        `<identifier identifierType="DOI">${attributes.doi.replace('.', '\\.')}</identifier>`,
      ),
    );
    assert.match(xml, /<title>published<\/title>/);
  });

  test('a provider refusal records Failed, notifies, and answers a clear error', async () => {
    const folder = await dataFolder(g!, 'bob', 'refused');
    const created = await g!.call('bob', 'POST', '/permanent-id-requests', {
      json: { type: 'DOI', folder: folder.id },
    });
    assert.equal(created.status, 200, created.text);
    failWith = 422;
    try {
      const refused = await g!.call(
        admin,
        'POST',
        `/admin/permanent-id-requests/${created.body.id}/pidprovider`,
      );
      assert.equal(refused.status, 502, refused.text);
      assert.equal(refused.body.error_code, 'ERR_PID_PROVIDER');
      assert.match(refused.body.reason, /422.*already been taken/);
    } finally {
      failWith = undefined;
    }
    const details = await g!.call(admin, 'GET', `/admin/permanent-id-requests/${created.body.id}`);
    assert.deepEqual(statuses(details.body), ['Submitted', 'Failed']);
    assert.match(details.body.history[1].comments, /already been taken/);
    assert.equal(details.body.permanent_id, undefined);
    const notes = notificationsOf(agent, 'bob').filter((n) => n.payload.id === created.body.id);
    assert.deepEqual(
      notes.map((n) => n.payload.status),
      ['Submitted', 'Failed'],
    );
    // No identifier AVU was written.
    const avus = await g!.running.gateway.forwarder.callJson<{ avus: Array<{ attr: string }> }>(
      'metadata',
      {
        method: 'GET',
        path: `/avus/folder/${folder.id}`,
        identity: { username: 'bob', roles: [], groups: [] },
        identityStyle: 'user',
      },
    );
    assert.equal(avus.avus.filter((avu) => avu.attr === 'identifier').length, 0);

    // After the failure the request can be completed once the provider takes it.
    const retried = await g!.call(
      admin,
      'POST',
      `/admin/permanent-id-requests/${created.body.id}/pidprovider`,
    );
    assert.equal(retried.status, 200, retried.text);
    assert.deepEqual(statuses(retried.body), ['Submitted', 'Failed', 'Completion']);
  });

  test('wrong credentials are reported as such, and recorded as Failed', async () => {
    const folder = await dataFolder(g!, 'carol', 'creds');
    const created = await g!.call('carol', 'POST', '/permanent-id-requests', {
      json: { type: 'DOI', folder: folder.id },
    });
    // The server now wants other credentials than the gateway has.
    pid.handle((_request, response) => {
      response.writeHead(401);
      response.end();
    });
    const refused = await g!.call(
      admin,
      'POST',
      `/admin/permanent-id-requests/${created.body.id}/pidprovider`,
    );
    assert.equal(refused.status, 502, refused.text);
    assert.match(refused.body.reason, /credentials.*PIDPROVIDER_USER/);
    const details = await g!.call(admin, 'GET', `/admin/permanent-id-requests/${created.body.id}`);
    assert.deepEqual(statuses(details.body), ['Submitted', 'Failed']);
  });

  test('the HTTP provider mints DOIs only: an ARK request fails clearly', async () => {
    const folder = await dataFolder(g!, 'dave', 'ark');
    const created = await g!.call('dave', 'POST', '/permanent-id-requests', {
      json: { type: 'ARK', folder: folder.id },
    });
    const refused = await g!.call(
      admin,
      'POST',
      `/admin/permanent-id-requests/${created.body.id}/pidprovider`,
    );
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.reason, /DOIs only/);
    const details = await g!.call(admin, 'GET', `/admin/permanent-id-requests/${created.body.id}`);
    assert.deepEqual(statuses(details.body), ['Submitted', 'Failed']);
  });
});

describe('PID settings', () => {
  test('defaults: the DataCite test prefix, no credentials', () => {
    assert.deepEqual(loadConfig({}).pid, {
      user: undefined,
      password: undefined,
      prefix: '10.5072',
      publisher: 'Platform Gateway',
      targetBaseUrl: 'http://localhost:8080/published',
    });
  });

  test('credentials come in pairs, prefixes are DOI prefixes', () => {
    assert.throws(
      () => loadConfig({ PIDPROVIDER_USER: 'repo' }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'PIDPROVIDER_PASSWORD',
    );
    assert.throws(
      () => loadConfig({ PIDPROVIDER_PASSWORD: 'pw' }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'PIDPROVIDER_USER',
    );
    assert.throws(
      () => loadConfig({ PID_PREFIX: 'ark:/99999' }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'PID_PREFIX',
    );
    assert.throws(
      () => loadConfig({ PID_TARGET_BASE_URL: 'ftp://x' }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'PID_TARGET_BASE_URL',
    );
    assert.equal(
      loadConfig({ PID_PREFIX: '10.80123', PID_TARGET_BASE_URL: 'https://x.org/land/' }).pid
        .targetBaseUrl,
      'https://x.org/land',
    );
  });
});
