// An administrator's app edit as the web UI (Sonora) sends it, through the gateway on each engine
// (issue 41, item 11; docs/api/apps.md "Administrators' edits"): src/serviceFacades/apps.js
// (adminPatchApp) sends `PATCH /admin/apps/{system}/{app}/versions/{version}` with body `id` = the
// app's id (with deleted, disabled, extra, description, name). That id is accepted, as is the
// version's id; any other id is 400 `ERR_BAD_OR_MISSING_FIELD` naming `id`.
// The admin Apps page's publication requests tab (src/components/apps/admin/publicationRequests/
// RequestListing.js) reads each request's `app.name`, `app.integrator_name`,
// `app.integrator_email`, `app.system_id` and, for each of `app.tools`, `container.image.name` and
// `.tag` (issue 41, item 2: everywhere a tool is listed).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const wordCountTool = builtInApps.find((app) => app.name === 'Word count')!.tool.id;

for (const engine of engines) {
  describe(
    `administrators' app edits as the web UI sends them (${engine})`,
    { skip: skipWithout(engine) },
    () => {
      let gw: MetadataGateway;
      before(async () => {
        gw = (await startMetadataGateway({ engine }))!;
      });
      after(async () => gw?.close());

      test("PATCH of a version takes the app's id (or the version's) in the body", async () => {
        const made = await gw.ok('bob', 'POST', '/apps/de', {
          json: {
            name: 'administered by the form',
            description: 'made in a test',
            tools: [{ id: wordCountTool }],
            groups: [{ label: 'Inputs', parameters: [{ type: 'FileInput', label: 'Text' }] }],
          },
        });
        const route = `/admin/apps/de/${made.id}/versions/${made.version_id}`;
        const saved = await gw.ok(admin, 'PATCH', route, {
          json: {
            id: made.id,
            name: 'administered by the form',
            description: 'described in the admin form',
            deleted: false,
            disabled: false,
            extra: {},
          },
        });
        assert.equal(saved.id, made.id);
        assert.equal(saved.description, 'described in the admin form');
        assert.equal(saved.version_id, made.version_id);
        const byVersionId = await gw.ok(admin, 'PATCH', route, {
          json: { id: made.version_id, description: 'described by the version id' },
        });
        assert.equal(byVersionId.description, 'described by the version id');
        for (const id of [randomUUID(), 42]) {
          const refused = await gw.call(admin, 'PATCH', route, {
            json: { id, description: 'never' },
          });
          assert.equal(refused.status, 400, refused.text);
          assert.equal(refused.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
          assert.equal(refused.body.field, 'id');
        }
        const details = await gw.ok(admin, 'GET', `/admin/apps/de/${made.id}/details`);
        assert.equal(details.description, 'described by the version id');
      });

      test('each publication request lists its app, integrator and tools with their image', async () => {
        const made = await gw.ok('carol', 'POST', '/apps/de', {
          json: {
            name: 'carol asks to publish',
            description: 'made in a test',
            tools: [{ id: wordCountTool }],
            groups: [{ label: 'Inputs', parameters: [{ type: 'FileInput', label: 'Text' }] }],
          },
        });
        await gw.ok('carol', 'POST', `/apps/de/${made.id}/publish`, {
          json: { documentation: '# How to use it' },
        });
        const { publication_requests: listed } = await gw.ok(
          admin,
          'GET',
          `/admin/apps/publication-requests?app_id=${made.id}`,
        );
        assert.equal(listed.length, 1);
        const { app } = listed[0];
        assert.deepEqual(
          [app.id, app.system_id, app.name, app.integrator_name, app.integrator_email],
          [made.id, 'de', 'carol asks to publish', 'Carol Tester', 'carol@example.org'],
        );
        assert.deepEqual(
          app.tools.map((tool: any) => [
            tool.id,
            tool.container.image.name,
            tool.container.image.tag,
          ]),
          [[wordCountTool, 'platform-gateway/built-in', 'word-count']],
        );
      });
    },
  );
}
