// Tools as the web UI (Sonora) reads and saves them, through the gateway on each engine (issue 41,
// items 2 and 15; docs/api/tools.md):
// - src/components/tools/listing/TableView.js shows `tool.container.image.name` and `.tag` for every
//   row of `GET /tools` (the Tools page, the app editor's "Select tool" dialog) and `GET
//   /admin/tools` (with `description`, `location`, `type`, `attribution`, `version`; users' rows
//   `is_public` and `permission`); src/components/tools/details/ToolDetails.js reads
//   `tool.container.image.{name,tag,url,deprecated}` of `GET /tools/{id}`;
//   src/components/apps/details/ToolUsedPanel.js reads `tools[].container.image.name` of app details.
//   Every tool has them, the built-in ones (placeholder image `platform-gateway/built-in`, tagged
//   with the executor) and those stored without a container (`platform-gateway/host`) too.
// - src/components/tools/edit/formatters.js (mapPropsToValues, admin) copies
//   `implementation.test.input_files` and `output_files` of `GET /admin/tools/{id}`: always lists.
// - The same file's formatSubmission sends the whole tool back, its `container` with empty texts,
//   `[]` and `false` filled in: `POST /tools` and `PATCH /tools/{id}` keep the image it names, and
//   `PATCH /admin/tools/{id}?overwrite-public=false` (src/serviceFacades/tools.js adminUpdateTool)
//   of a public tool whose container it leaves as it was succeeds; one that changes it is refused
//   with 403 `ERR_NOT_WRITEABLE` and the public apps using the tool (`apps[].{id,name}`, which
//   src/components/tools/edit/EditTool.js lists in its overwrite dialog before resending with
//   overwrite-public=true).
// - Item 15: administrators change a built-in tool's description, attribution, version and
//   implementation (kept across a restart's reinstall); its name, location, type and image are
//   refused with 400 `ERR_ILLEGAL_ARGUMENT` naming the field; it is still never deleted.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps, installBuiltInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const wordCount = builtInApps.find((app) => app.name === 'Word count')!;

/** What the UI's tool form sends back for `tool` as it read it (empty form fields filled in). */
const formSubmission = (tool: any, changes: Record<string, unknown> = {}, admin = false) => ({
  id: tool.id,
  name: tool.name,
  description: tool.description,
  version: tool.version,
  type: tool.type,
  interactive: tool.type === 'interactive',
  container: {
    ...tool.container,
    image: {
      name: tool.container.image.name,
      tag: tool.container.image.tag ?? '',
      url: tool.container.image.url ?? '',
      osg_image_path: tool.container.image.osg_image_path ?? '',
    },
    network_mode: tool.container.network_mode ?? '',
    skip_tmp_mount: false,
    ...(admin ? { container_devices: [], container_volumes: [], container_volumes_from: [] } : {}),
  },
  ...(admin
    ? {
        restricted: tool.restricted,
        time_limit_seconds: tool.time_limit_seconds ?? 0,
        location: tool.location,
        attribution: tool.attribution,
        implementation: tool.implementation,
      }
    : {}),
  ...changes,
});

/** Asserts what the UI's tool rows and details dereference. */
function assertReadable(tool: any, where: string) {
  for (const field of ['id', 'name', 'description', 'location', 'type', 'version', 'attribution'])
    assert.equal(typeof tool[field], 'string', `${where}: ${field}`);
  assert.equal(typeof tool.is_public, 'boolean', `${where}: is_public`);
  assert.equal(typeof tool.permission, 'string', `${where}: permission`);
  assert.equal(typeof tool.container?.image?.name, 'string', `${where}: container.image.name`);
  assert.ok(tool.container.image.name.length > 0, `${where}: container.image.name`);
  assert.equal(typeof tool.container.image.tag, 'string', `${where}: container.image.tag`);
  assert.ok(Array.isArray(tool.implementation?.test?.input_files), `${where}: test.input_files`);
  assert.ok(Array.isArray(tool.implementation?.test?.output_files), `${where}: test.output_files`);
}

for (const engine of engines) {
  describe(
    `tools as the web UI reads and saves them (${engine})`,
    { skip: skipWithout(engine) },
    () => {
      let gw: MetadataGateway;
      const tag = randomUUID().slice(0, 8);
      before(async () => {
        gw = (await startMetadataGateway({ engine }))!;
        await gw.ok('alice', 'GET', '/apps'); // the apps service has installed its apps
      });
      after(async () => gw?.close());

      test('every tool listed or fetched has a container image and implementation lists', async () => {
        // A tool stored without a container (as before the container was required).
        const bare = randomUUID();
        await gw.running.gateway.store.db
          .insertInto('tools')
          .values({
            id: bare,
            name: `bare ${tag}`,
            type: 'executable',
            executor: null,
            integrator: 'alice',
            created_on: Date.now(),
          })
          .execute();
        await gw.ok('alice', 'POST', '/tools', {
          json: {
            name: `imaged ${tag}`,
            type: 'executable',
            version: '1',
            container: { image: { name: 'docker.io/library/alpine', tag: '3.20' } },
          },
        });

        const listed = await gw.ok('alice', 'GET', '/tools?search=*&limit=100&offset=0');
        const adminListed = await gw.ok(admin, 'GET', '/admin/tools?search=*&limit=100&offset=0');
        for (const [where, tools] of [
          ['GET /tools', listed.tools],
          ['GET /admin/tools', adminListed.tools],
        ] as const) {
          assert.ok(tools.length >= builtInApps.length + 2, where);
          for (const tool of tools) assertReadable(tool, `${where} ${tool.name}`);
        }
        const builtIn = listed.tools.find((t: any) => t.id === wordCount.tool.id);
        assert.deepEqual(builtIn.container, {
          image: {
            name: 'platform-gateway/built-in',
            tag: wordCount.tool.executor,
            url: '',
            osg_image_path: '',
            deprecated: false,
          },
        });
        assert.equal(builtIn.implementation.implementor, 'Platform');
        const host = listed.tools.find((t: any) => t.id === bare);
        assert.equal(host.container.image.name, 'platform-gateway/host');
        assert.equal(host.container.image.tag, 'latest');
        assert.equal(
          listed.tools.find((t: any) => t.name === `imaged ${tag}`).container.image.name,
          'docker.io/library/alpine',
        );

        for (const [user, route] of [
          ['alice', `/tools/${wordCount.tool.id}`],
          ['alice', `/tools/${wordCount.tool.id}?include-defaults=true`],
          [admin, `/admin/tools/${wordCount.tool.id}`],
          [admin, `/admin/tools/${wordCount.tool.id}?include-defaults=false`],
          ['alice', `/tools/${bare}`],
        ] as const)
          assertReadable(await gw.ok(user, 'GET', route), route);
        const withDefaults = await gw.ok('alice', 'GET', `/tools/${bare}?include-defaults=true`);
        assert.equal(withDefaults.container.network_mode, 'bridge');
        assert.equal(withDefaults.container.image.name, 'platform-gateway/host');

        // The tools an app's details, its editor and its steps list.
        for (const route of [
          `/apps/de/${wordCount.id}/details`,
          `/apps/de/${wordCount.id}/tools`,
          `/apps/de/${wordCount.id}/versions/${wordCount.versionId}/tools`,
        ]) {
          const { tools } = await gw.ok('alice', 'GET', route);
          assert.equal(tools.length, 1, route);
          assert.equal(tools[0].container.image.name, 'platform-gateway/built-in', route);
          assert.equal(tools[0].container.image.tag, wordCount.tool.executor, route);
        }
        const { tasks } = await gw.ok('alice', 'GET', `/apps/de/${wordCount.id}/tasks`);
        assert.equal(tasks[0].tool.container.image.name, 'platform-gateway/built-in');
      });

      test("the UI's tool form body creates and changes a tool, its image kept", async () => {
        const created = await gw.ok('alice', 'POST', '/tools', {
          json: {
            name: `form ${tag}`,
            description: 'made by the tool form',
            version: '1.2',
            type: 'executable',
            interactive: false,
            container: {
              image: {
                name: 'quay.io/biocontainers/samtools',
                tag: '1.19',
                url: '',
                osg_image_path: '',
              },
              network_mode: '',
              skip_tmp_mount: false,
              max_cpu_cores: 2,
            },
          },
        });
        assertReadable(created, 'POST /tools');
        assert.equal(created.container.image.name, 'quay.io/biocontainers/samtools');
        assert.equal(created.container.image.tag, '1.19');
        const read = await gw.ok('alice', 'GET', `/tools/${created.id}`);
        assert.equal(read.container.image.name, 'quay.io/biocontainers/samtools');
        assert.equal(read.container.max_cpu_cores, 2);

        const saved = await gw.ok('alice', 'PATCH', `/tools/${created.id}`, {
          json: formSubmission(read, { description: 'changed in the form' }),
        });
        assert.equal(saved.description, 'changed in the form');
        assert.equal(saved.container.image.tag, '1.19');
        assert.equal(saved.container.max_cpu_cores, 2);
        const retagged = formSubmission(saved);
        retagged.container.image.tag = '1.20';
        const moved = await gw.ok('alice', 'PATCH', `/tools/${created.id}`, { json: retagged });
        assert.equal(moved.container.image.tag, '1.20');
        assert.equal(
          (await gw.ok('alice', 'GET', `/tools/${created.id}`)).container.image.tag,
          '1.20',
        );

        // An administrator's form (adminAddTool, then adminUpdateTool with overwrite-public=false).
        const imported = await gw.ok(admin, 'POST', '/admin/tools', {
          json: {
            tools: [
              {
                name: `admin form ${tag}`,
                description: 'imported by the admin form',
                version: '3',
                type: 'executable',
                location: '/usr/bin',
                attribution: 'the test suite',
                restricted: false,
                time_limit_seconds: 0,
                implementation: {
                  implementor: 'Root',
                  implementor_email: 'root@example.org',
                  test: { input_files: [], output_files: [] },
                },
                container: { image: { name: 'docker.io/library/alpine', tag: '3.20', url: '' } },
              },
            ],
          },
        });
        const id = imported.tool_ids[0];
        const adminRead = await gw.ok(admin, 'GET', `/admin/tools/${id}`);
        assertReadable(adminRead, 'GET /admin/tools/{id}');
        const described = await gw.ok(admin, 'PATCH', `/admin/tools/${id}?overwrite-public=false`, {
          json: formSubmission(adminRead, { description: 'reviewed in the admin form' }, true),
        });
        assert.equal(described.description, 'reviewed in the admin form');
        assert.equal(described.container.image.name, 'docker.io/library/alpine');
        // A changed image of a public tool needs overwrite-public=true. Refused, it answers 403
        // ERR_NOT_WRITEABLE with the public apps it would change (`apps[].{id,name}`): EditTool.js
        // shows them in its overwrite dialog, then sends again with overwrite-public=true.
        const app = await gw.ok(admin, 'POST', '/apps/de', {
          json: {
            name: `uses the admin tool ${tag}`,
            description: 'made public in a test',
            tools: [{ id }],
            groups: [{ label: 'Inputs', parameters: [{ type: 'FileInput', label: 'Text' }] }],
          },
        });
        await gw.ok(admin, 'POST', `/admin/apps/de/${app.id}/publish`, { json: {} });
        const newImage = formSubmission(adminRead, {}, true);
        newImage.container.image.tag = '3.21';
        const guarded = await gw.call(admin, 'PATCH', `/admin/tools/${id}?overwrite-public=false`, {
          json: newImage,
        });
        assert.equal(guarded.status, 403, guarded.text);
        assert.equal(guarded.body.error_code, 'ERR_NOT_WRITEABLE');
        assert.equal(guarded.body.field, 'container');
        assert.deepEqual(guarded.body.apps, [{ id: app.id, name: `uses the admin tool ${tag}` }]);
        assert.equal((await gw.ok(admin, 'GET', `/admin/tools/${id}`)).container.image.tag, '3.20');
        const overwritten = await gw.ok(
          admin,
          'PATCH',
          `/admin/tools/${id}?overwrite-public=true`,
          {
            json: newImage,
          },
        );
        assert.equal(overwritten.container.image.tag, '3.21');
      });

      test('administrators change the descriptive fields of a built-in tool, not what it runs', async () => {
        const route = `/admin/tools/${wordCount.tool.id}`;
        const before = await gw.ok(admin, 'GET', route);
        const saved = await gw.ok(admin, 'PATCH', `${route}?overwrite-public=false`, {
          json: formSubmission(
            before,
            {
              description: `Counts words (${tag})`,
              attribution: 'GNU coreutils wc, reimplemented',
              version: '1.1',
              implementation: {
                implementor: 'Platform team',
                implementor_email: 'platform@example.org',
                test: { input_files: [], output_files: [] },
              },
            },
            true,
          ),
        });
        assert.equal(saved.description, `Counts words (${tag})`);
        assert.equal(saved.attribution, 'GNU coreutils wc, reimplemented');
        assert.equal(saved.version, '1.1');
        assert.equal(saved.implementation.implementor, 'Platform team');
        assert.equal(saved.name, wordCount.tool.name);
        assert.equal(saved.location, before.location);
        assert.deepEqual(saved.container, before.container);
        const seen = await gw.ok('alice', 'GET', `/tools/${wordCount.tool.id}`);
        assert.equal(seen.description, `Counts words (${tag})`);
        // A restart reinstalls the built-in apps: the administrator's description stays.
        await installBuiltInApps(gw.running.gateway.store.db, Date.now());
        const reinstalled = await gw.ok('alice', 'GET', `/tools/${wordCount.tool.id}`);
        assert.equal(reinstalled.description, `Counts words (${tag})`);
        assert.equal(reinstalled.version, '1.1');

        const otherImage = formSubmission(before, {}, true);
        otherImage.container.image.name = 'docker.io/library/alpine';
        for (const [body, field] of [
          [{ name: 'not-word-count' }, 'name'],
          [{ location: '/usr/bin' }, 'location'],
          [{ type: 'interactive' }, 'type'],
          [{ time_limit_seconds: 60 }, 'time_limit_seconds'],
          [otherImage, 'container.image.name'],
          [
            { container: { image: { name: before.container.image.name, tag: 'other' } } },
            'container.image.tag',
          ],
        ] as const) {
          const refused = await gw.call(admin, 'PATCH', route, { json: body });
          assert.equal(refused.status, 400, `${field}: ${refused.text}`);
          assert.equal(refused.body.error_code, 'ERR_ILLEGAL_ARGUMENT', field);
          assert.equal(refused.body.field, field);
        }
        const unchanged = await gw.ok('alice', 'GET', `/tools/${wordCount.tool.id}`);
        assert.equal(unchanged.name, wordCount.tool.name);
        assert.equal(unchanged.container.image.name, 'platform-gateway/built-in');

        // Users still never change it, and nobody deletes it.
        const userPatch = await gw.call('alice', 'PATCH', `/tools/${wordCount.tool.id}`, {
          json: { description: 'mine' },
        });
        assert.equal(userPatch.status, 400);
        const deleted = await gw.call(admin, 'DELETE', route);
        assert.equal(deleted.status, 400);
        assert.equal(deleted.body.error_code, 'ERR_ILLEGAL_ARGUMENT');

        // The app's details show the tool as changed.
        const details = await gw.ok('alice', 'GET', `/apps/de/${wordCount.id}/details`);
        assert.equal(details.tools[0].description, `Counts words (${tag})`);
      });
    },
  );
}
