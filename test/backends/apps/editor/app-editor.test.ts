// The app editor, versions and publication in the embedded apps service (docs/api/apps.md "Editing,
// versions and publication"), through the gateway on each engine: an app opened in the editor
// (`ui`), relabelled and saved back, its steps and tools; a `write` grantee editing while `read`
// grantees and others are refused; versions made, replaced, relabelled, copied, reordered and
// documented one by one, with per-version details, tasks and tools; publishability, a publication
// request, the administrators' list, approval (the app public to others, the integrator told with an
// `apps` notification) and blessing; the command-line preview in argument order; copies; the
// shredder for users and administrators; administrators' PATCH, documentation, details and delete;
// bad bodies refused with their error code.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { eventually } from '../../../support/fileio.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const wordCount = builtInApps[1]!;
const wordCountTool = wordCount.tool.id;
const user = (id: string) => ({ id, source_id: 'ldap' });
const request = (name: string) => ({
  name,
  description: `${name}, made in a test`,
  tools: [{ id: wordCountTool }],
  groups: [
    {
      label: 'Inputs',
      parameters: [
        { type: 'FileInput', name: 'input', label: 'Text', required: true },
        { type: 'Integer', name: '-k', label: 'Top', defaultValue: 10 },
      ],
    },
  ],
});

for (const engine of engines) {
  describe(
    `the app editor, versions and publication (${engine})`,
    { skip: skipWithout(engine) },
    () => {
      let gw: MetadataGateway;
      before(async () => {
        gw = (await startMetadataGateway({ engine }))!;
        for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', admin])
          await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
      });
      after(async () => gw?.close());

      const makeApp = (owner: string, name: string) =>
        gw.ok(owner, 'POST', '/apps/de', { json: request(name) });
      const share = (owner: string, to: string, appId: string, permission: string) =>
        gw.ok(owner, 'POST', '/apps/sharing', {
          json: {
            sharing: [
              { subject: user(to), apps: [{ system_id: 'de', app_id: appId, permission }] },
            ],
          },
        });
      const refused = async (
        caller: string,
        method: string,
        route: string,
        status: number,
        code: string,
        json?: unknown,
      ) => {
        const answer = await gw.call(caller, method, route, json === undefined ? {} : { json });
        assert.equal(answer.status, status, `${caller} ${method} ${route}: ${answer.text}`);
        assert.equal(answer.body.error_code, code, `${caller} ${method} ${route}`);
        return answer.body;
      };

      test('the editor: ui, relabel and save back, tasks and tools; who may edit', async () => {
        const made = await makeApp('alice', 'alice edits this');
        const route = `/apps/de/${made.id}`;
        const ui = await gw.ok('alice', 'GET', `${route}/ui`);
        assert.equal(ui.id, made.id);
        assert.equal(ui.name, 'alice edits this');
        assert.equal(ui.version_id, made.version_id);
        assert.deepEqual(ui.references, []);
        assert.deepEqual(
          ui.tools.map((tool: any) => [tool.id, tool.name]),
          [[wordCountTool, wordCount.tool.name]],
        );
        const [text, top] = ui.groups[0].parameters;
        assert.match(text.id, /^[0-9a-f-]{36}$/, 'the editor sees parameters under their own ids');
        assert.equal(made.groups[0].parameters[0].id.endsWith(`_${text.id}`), true);
        assert.equal(top.defaultValue, 10);

        // Change a label, save the app back as the editor holds it, and find it changed.
        ui.groups[0].label = 'Files';
        ui.groups[0].parameters[0].label = 'Text file';
        const saved = await gw.ok('alice', 'PUT', route, { json: ui });
        assert.equal(saved.groups[0].label, 'Files');
        const again = await gw.ok('alice', 'GET', `${route}/ui`);
        assert.equal(again.groups[0].label, 'Files');
        assert.equal(again.groups[0].parameters[0].label, 'Text file');
        assert.equal(again.version_id, made.version_id, 'saving replaces the current version');
        assert.deepEqual(
          saved.groups[0].parameters.map((parameter: any) => parameter.id),
          made.groups[0].parameters.map((parameter: any) => parameter.id),
          "the launch form's parameter ids survive a save",
        );

        const tasks = await gw.ok('alice', 'GET', `${route}/tasks`);
        assert.equal(tasks.id, made.id);
        assert.equal(tasks.tasks.length, 1);
        assert.equal(tasks.tasks[0].tool.id, wordCountTool);
        assert.deepEqual(
          tasks.tasks[0].inputs.map((input: any) => [input.id, input.label]),
          [[text.id, 'Text file']],
        );
        assert.deepEqual(
          (await gw.ok('alice', 'GET', `${route}/tools`)).tools.map((tool: any) => tool.id),
          [wordCountTool],
        );

        // Others: not seen at all; a read grantee sees tasks but may not edit; a write grantee edits.
        await refused('bob', 'GET', `${route}/ui`, 404, 'ERR_NOT_FOUND');
        await refused('bob', 'GET', `${route}/tasks`, 404, 'ERR_NOT_FOUND');
        await share('alice', 'bob', made.id, 'read');
        assert.equal((await gw.ok('bob', 'GET', `${route}/tasks`)).tasks.length, 1);
        await refused('bob', 'GET', `${route}/ui`, 403, 'ERR_NOT_OWNER');
        await refused('bob', 'PUT', route, 403, 'ERR_NOT_OWNER', again);
        await refused('bob', 'PATCH', route, 403, 'ERR_NOT_OWNER', { name: 'bob was here' });
        await share('alice', 'bob', made.id, 'write');
        const bobs = await gw.ok('bob', 'GET', `${route}/ui`);
        bobs.groups[0].label = 'Chosen by bob';
        await gw.ok('bob', 'PUT', route, { json: bobs });
        await gw.ok('bob', 'PATCH', route, { json: { description: 'described by bob' } });
        await gw.ok('bob', 'POST', `${route}/documentation`, { json: { documentation: 'by bob' } });
        const seen = await gw.ok('alice', 'GET', `${route}/ui`);
        assert.equal(seen.groups[0].label, 'Chosen by bob');
        assert.equal(seen.description, 'described by bob');
        // Deleting and publishing stay the owner's.
        await refused('bob', 'DELETE', route, 403, 'ERR_NOT_OWNER');
        await refused('bob', 'POST', `${route}/publish`, 403, 'ERR_NOT_OWNER', {});
        await refused(
          'bob',
          'DELETE',
          `${route}/versions/${made.version_id}`,
          403,
          'ERR_NOT_OWNER',
        );
        // The platform's apps: seen by all, edited by none.
        await refused('alice', 'GET', `/apps/de/${wordCount.id}/ui`, 403, 'ERR_NOT_OWNER');
        assert.equal(
          (await gw.ok('alice', 'GET', `/apps/de/${wordCount.id}/tools`)).tools[0].id,
          wordCountTool,
        );

        // Bad bodies: 400 naming the field, nothing changed.
        await refused('alice', 'PUT', route, 400, 'ERR_BAD_OR_MISSING_FIELD', {
          ...seen,
          name: '',
        });
        await refused('alice', 'PUT', route, 400, 'ERR_BAD_OR_MISSING_FIELD', {
          ...seen,
          groups: [{ label: 'g', parameters: [{ type: 'Spreadsheet' }] }],
        });
        await refused('alice', 'PATCH', route, 400, 'ERR_BAD_OR_MISSING_FIELD', {
          groups: 'none',
        });
        assert.equal((await gw.ok('alice', 'GET', `${route}/ui`)).name, 'alice edits this');
      });

      test('versions: new, replaced, relabelled, copied, reordered, documented one by one', async () => {
        const made = await makeApp('alice', 'alice versions this');
        const route = `/apps/de/${made.id}`;
        const v1 = made.version_id;
        const first = await gw.ok('alice', 'GET', `${route}/ui`);
        await gw.ok('alice', 'POST', `${route}/versions`, { json: { ...first, version: '2.0' } });
        const second = await gw.ok('alice', 'GET', `${route}/ui`);
        const v2 = second.version_id;
        assert.notEqual(v2, v1);
        assert.equal(second.version, '2.0');
        assert.deepEqual(
          second.versions.map((version: any) => version.version_id),
          [v2, v1],
        );

        // Replace the older version: only it changes.
        const older = await gw.ok('alice', 'GET', `${route}/versions/${v1}/ui`);
        older.groups[0].label = 'Old inputs';
        const replaced = await gw.ok('alice', 'PUT', `${route}/versions/${v1}`, { json: older });
        assert.equal(replaced.version_id, v1);
        assert.equal(replaced.groups[0].label, 'Old inputs');
        assert.equal((await gw.ok('alice', 'GET', `${route}/ui`)).groups[0].label, 'Inputs');

        // Relabel the current version and the app; a label another version has is refused.
        const patched = await gw.ok('alice', 'PATCH', `${route}/versions/${v2}`, {
          json: {
            version: '2.1',
            name: 'alice versions this, renamed',
            groups: [
              {
                id: second.groups[0].id,
                label: 'Relabelled',
                parameters: [{ id: second.groups[0].parameters[1].id, label: 'How many' }],
              },
            ],
          },
        });
        assert.equal(patched.version, '2.1');
        assert.equal(patched.name, 'alice versions this, renamed');
        assert.equal(patched.groups[0].label, 'Relabelled');
        assert.equal(patched.groups[0].parameters[1].label, 'How many');
        assert.equal(patched.groups[0].parameters[1].type, 'Integer');
        await refused('alice', 'PATCH', `${route}/versions/${v2}`, 409, 'ERR_EXISTS', {
          version: '1.0',
        });

        // Copy the first version: the copy becomes the current version.
        const copy = await gw.ok('alice', 'POST', `${route}/versions/${v1}/copy`, { json: {} });
        assert.equal(copy.id, made.id);
        assert.equal(copy.version, '1.0 (copy)');
        assert.equal(copy.groups[0].label, 'Old inputs');
        const v3 = copy.version_id;
        assert.equal((await gw.ok('alice', 'GET', route)).version_id, v3);

        // Reorder: the first listed becomes current.
        const reordered = await gw.ok('alice', 'PUT', `${route}/versions`, {
          json: { versions: [{ version_id: v2 }, { version_id: v3 }, { version_id: v1 }] },
        });
        assert.equal(reordered.version_id, v2);
        assert.deepEqual(
          reordered.versions.map((version: any) => version.version_id),
          [v2, v3, v1],
        );
        await refused('alice', 'PUT', `${route}/versions`, 400, 'ERR_BAD_OR_MISSING_FIELD', {
          versions: [{ version_id: v2 }],
        });
        await refused('alice', 'PUT', `${route}/versions`, 400, 'ERR_BAD_OR_MISSING_FIELD', {
          versions: 'v2',
        });

        // Documentation per version; the app's documentation is its current version's.
        const documented = await gw.ok('alice', 'POST', `${route}/versions/${v1}/documentation`, {
          json: { documentation: '# Version one', references: ['https://example.org/one'] },
        });
        assert.deepEqual(documented, {
          app_id: made.id,
          version_id: v1,
          documentation: '# Version one',
          references: ['https://example.org/one'],
        });
        await gw.ok('alice', 'PATCH', `${route}/versions/${v2}/documentation`, {
          json: { documentation: '# Version two' },
        });
        assert.equal(
          (await gw.ok('alice', 'GET', `${route}/versions/${v1}/documentation`)).documentation,
          '# Version one',
        );
        assert.equal(
          (await gw.ok('alice', 'GET', `${route}/documentation`)).documentation,
          '# Version two',
        );
        await refused(
          'alice',
          'PATCH',
          `${route}/versions/${v1}/documentation`,
          400,
          'ERR_BAD_OR_MISSING_FIELD',
          { documentation: 7 },
        );

        // Per-version details, tasks and tools; an unknown version is 404.
        const details = await gw.ok('alice', 'GET', `${route}/versions/${v1}/details`);
        assert.equal(details.id, made.id);
        assert.equal(details.version_id, v1);
        assert.deepEqual(details.references, ['https://example.org/one']);
        assert.deepEqual(
          details.tools.map((tool: any) => tool.id),
          [wordCountTool],
        );
        assert.equal(details.versions.length, 3);
        assert.equal((await gw.ok('alice', 'GET', `${route}/versions/${v1}/tasks`)).version_id, v1);
        assert.equal(
          (await gw.ok('alice', 'GET', `${route}/versions/${v1}/tools`)).tools[0].id,
          wordCountTool,
        );
        for (const path of ['ui', 'details', 'tasks', 'tools', 'documentation'])
          await refused(
            'alice',
            'GET',
            `${route}/versions/${randomUUID()}/${path}`,
            404,
            'ERR_NOT_FOUND',
          );
      });

      test('publication: publishable, requested, listed, approved (public, integrator told), blessed', async () => {
        const made = await makeApp('carol', 'carol publishes this');
        const route = `/apps/de/${made.id}`;
        assert.deepEqual(await gw.ok('carol', 'GET', `${route}/is-publishable`), {
          publishable: false,
          reason: 'the app has no documentation',
        });
        const early = await refused(
          'carol',
          'POST',
          `${route}/publish`,
          400,
          'ERR_ILLEGAL_ARGUMENT',
          {},
        );
        assert.match(early.reason, /documentation/);
        await refused('dave', 'POST', `${route}/publish`, 404, 'ERR_NOT_FOUND', {});
        await refused('carol', 'POST', `${route}/publish`, 400, 'ERR_BAD_OR_MISSING_FIELD', {
          documentation: '# Use',
          references: 'one',
        });

        const asked = await gw.ok('carol', 'POST', `${route}/publish`, {
          json: { documentation: '# How to use it', references: ['https://example.org/carol'] },
        });
        assert.equal(asked.app_id, made.id);
        assert.equal(asked.requestor, 'carol');
        assert.equal(asked.completed, false);
        assert.equal(
          (await gw.ok('carol', 'GET', `${route}/documentation`)).documentation,
          '# How to use it',
        );
        assert.deepEqual(await gw.ok('carol', 'GET', `${route}/is-publishable`), {
          publishable: true,
        });
        await refused('carol', 'POST', `${route}/publish`, 400, 'ERR_EXISTS', {});

        // Administrators list pending requests, narrowed by app and requestor; others may not.
        const listed = await gw.ok(admin, 'GET', '/admin/apps/publication-requests');
        const mine = listed.publication_requests.filter((entry: any) => entry.app_id === made.id);
        assert.equal(mine.length, 1);
        assert.equal(mine[0].id, asked.id);
        assert.equal(mine[0].app_name, 'carol publishes this');
        assert.equal(mine[0].documentation, '# How to use it');
        assert.deepEqual(
          (
            await gw.ok(admin, 'GET', `/admin/apps/publication-requests?app_id=${made.id}`)
          ).publication_requests.map((entry: any) => entry.id),
          [asked.id],
        );
        assert.deepEqual(
          (await gw.ok(admin, 'GET', '/admin/apps/publication-requests?requestor=nobody'))
            .publication_requests,
          [],
        );
        await refused('carol', 'GET', '/admin/apps/publication-requests', 403, 'ERR_FORBIDDEN');
        await refused('carol', 'POST', `/admin${route}/publish`, 403, 'ERR_FORBIDDEN', {});

        // Approval: public to everyone, the request completed, carol told.
        const search = `/apps?search=${encodeURIComponent('carol publishes')}`;
        assert.equal((await gw.ok('dave', 'GET', search)).total, 0);
        // As the web UI sends it (clients.md), with a doubled slash.
        const approved = await gw.ok(admin, 'POST', `/admin${route}//publish`, { json: {} });
        assert.equal(approved.is_public, true);
        assert.deepEqual(approved.publication_request_ids, [asked.id]);
        const seen = await gw.ok('dave', 'GET', search);
        assert.equal(seen.total, 1);
        assert.equal(seen.apps[0].is_public, true);
        assert.equal(seen.apps[0].permission, 'read');
        const told = await eventually(
          async () => {
            const { messages } = await gw.ok('carol', 'GET', '/secured/notifications/messages');
            return (messages as any[]).find(
              (n) => n.type === 'apps' && n.payload?.action === 'app_publication',
            );
          },
          10_000,
          'the app_publication notification',
        );
        assert.equal(told.payload.app_id, made.id);
        assert.equal(told.payload.app_name, 'carol publishes this');
        assert.match(told.subject, /carol publishes this/);
        assert.equal(
          (await gw.ok(admin, 'GET', `/admin/apps/publication-requests?app_id=${made.id}`))
            .publication_requests.length,
          0,
        );
        const all = await gw.ok(
          admin,
          'GET',
          `/admin/apps/publication-requests?app_id=${made.id}&include_completed=true`,
        );
        assert.equal(all.publication_requests[0].completed, true);
        assert.equal(all.publication_requests[0].completed_by, admin);
        await refused(admin, 'POST', `/admin${route}/publish`, 400, 'ERR_ILLEGAL_ARGUMENT', {});
        assert.deepEqual(await gw.ok('carol', 'GET', `${route}/is-publishable`), {
          publishable: false,
          reason: 'the app is already public',
        });

        // Blessing: reviewed by administrators, shown as isBlessed.
        assert.equal(seen.apps[0].isBlessed, false);
        assert.equal((await gw.ok(admin, 'POST', `/admin${route}/blessing`)).isBlessed, true);
        assert.equal((await gw.ok('dave', 'GET', search)).apps[0].isBlessed, true);
        await gw.ok(admin, 'DELETE', `/admin${route}/blessing`);
        assert.equal((await gw.ok('dave', 'GET', search)).apps[0].isBlessed, false);
        await refused('carol', 'POST', `/admin${route}/blessing`, 403, 'ERR_FORBIDDEN');
        await refused(
          admin,
          'POST',
          `/admin/apps/de/${randomUUID()}/blessing`,
          404,
          'ERR_NOT_FOUND',
        );
      });

      test('arg-preview: the arguments a submission would give, in argument order', async () => {
        const app = {
          name: 'preview',
          tools: [{ id: wordCountTool }],
          groups: [
            {
              label: 'Options',
              parameters: [
                { type: 'Text', name: '-n', label: 'Name', order: 2, value: 'sample' },
                { type: 'Flag', name: '--verbose', label: 'Verbose', order: 1, value: true },
                { type: 'Flag', name: '--quiet', label: 'Quiet', order: 1, value: false },
                { type: 'Integer', name: '-k', label: 'Top', order: 3, defaultValue: '5' },
                { type: 'Text', name: '--skip', label: 'Skipped', order: 4, value: '' },
                {
                  type: 'Text',
                  name: '--keep',
                  label: 'Kept',
                  order: 4,
                  value: '',
                  omit_if_blank: false,
                },
                { type: 'Info', label: 'Just text', order: 0 },
              ],
            },
            {
              label: 'Inputs',
              parameters: [
                {
                  type: 'MultiFileSelector',
                  name: '-i',
                  label: 'Files',
                  order: 5,
                  value: ['/zone/home/a.txt', { path: '/zone/home/b.txt' }],
                },
                {
                  type: 'TextSelection',
                  name: '--mode',
                  label: 'Mode',
                  order: 0,
                  arguments: [
                    { name: '--mode', value: 'fast' },
                    { name: '--mode', value: 'slow' },
                  ],
                  value: 'slow',
                },
              ],
            },
          ],
        };
        assert.deepEqual(await gw.ok('alice', 'POST', '/apps/de/arg-preview', { json: app }), {
          params: [
            { name: '--mode', value: 'slow', order: 0 },
            { name: '--verbose', value: '', order: 1 },
            { name: '-n', value: 'sample', order: 2 },
            { name: '-k', value: '5', order: 3 },
            { name: '--keep', value: '', order: 4 },
            { name: '-i', value: '/zone/home/a.txt', order: 5 },
            { name: '-i', value: '/zone/home/b.txt', order: 5 },
          ],
        });
        const bad: any = structuredClone(app);
        bad.groups[0].parameters[3].defaultValue = 'many';
        const answer = await refused(
          'alice',
          'POST',
          '/apps/de/arg-preview',
          400,
          'ERR_BAD_OR_MISSING_FIELD',
          bad,
        );
        assert.equal(answer.field, 'groups[0].parameters[3].value');
        await refused('alice', 'POST', '/apps/de/arg-preview', 400, 'ERR_BAD_OR_MISSING_FIELD', {
          groups: 'none',
        });
        assert.equal(
          (await gw.call(null, 'POST', '/apps/de/arg-preview', { json: app })).status,
          401,
        );
      });

      test('copies and the shredder', async () => {
        // A copy of a platform app: private, the caller's, named "Copy of ...".
        const copy = await gw.ok('erin', 'POST', `/apps/de/${wordCount.id}/copy`, { json: {} });
        assert.notEqual(copy.id, wordCount.id);
        assert.equal(copy.name, `Copy of ${wordCount.name}`);
        assert.equal(copy.is_public, false);
        assert.deepEqual(
          copy.groups.map((group: any) => group.label),
          wordCount.definition.groups.map((group) => group.label),
        );
        assert.deepEqual(
          copy.tools.map((tool: any) => tool.id),
          [wordCountTool],
        );
        const listed = await gw.ok('erin', 'GET', `/apps?search=${encodeURIComponent('Copy of')}`);
        assert.equal(listed.apps.find((entry: any) => entry.id === copy.id).permission, 'own');
        await refused('dave', 'GET', `/apps/de/${copy.id}`, 404, 'ERR_NOT_FOUND');
        const alices = await makeApp('alice', 'alice keeps this');
        await refused('erin', 'POST', `/apps/de/${alices.id}/copy`, 404, 'ERR_NOT_FOUND', {});

        // The shredder: one's own apps only, all or none.
        await refused('erin', 'POST', '/apps/shredder', 404, 'ERR_NOT_FOUND', {
          app_ids: [copy.id, alices.id],
        });
        await refused('erin', 'POST', '/apps/shredder', 403, 'ERR_NOT_OWNER', {
          app_ids: [copy.id, wordCount.id],
        });
        assert.equal((await gw.call('erin', 'GET', `/apps/de/${copy.id}`)).status, 200);
        await refused('erin', 'POST', '/apps/shredder', 400, 'ERR_BAD_OR_MISSING_FIELD', {
          app_ids: [],
        });
        assert.deepEqual(
          await gw.ok('erin', 'POST', '/apps/shredder', { json: { app_ids: [copy.id] } }),
          { app_ids: [copy.id] },
        );
        await refused('erin', 'GET', `/apps/de/${copy.id}`, 404, 'ERR_NOT_FOUND');

        // Administrators shred anyone's apps; an unknown id refuses the body.
        await refused(admin, 'POST', '/admin/apps/shredder', 404, 'ERR_NOT_FOUND', {
          app_ids: [alices.id, randomUUID()],
        });
        await gw.ok(admin, 'POST', '/admin/apps/shredder', { json: { app_ids: [alices.id] } });
        await refused('alice', 'GET', `/apps/de/${alices.id}`, 404, 'ERR_NOT_FOUND');
        await refused('alice', 'POST', '/admin/apps/shredder', 403, 'ERR_FORBIDDEN', {
          app_ids: [alices.id],
        });
      });

      test('administrators: PATCH an app and a version, documentation, details, delete', async () => {
        const made = await makeApp('bob', 'bob is administered');
        const route = `/admin/apps/de/${made.id}`;
        const patched = await gw.ok(admin, 'PATCH', route, {
          json: {
            id: made.id,
            description: 'set by an administrator',
            disabled: true,
            extra: { htcondor: { extra_requirements: 'HasBigMemory' } },
          },
        });
        assert.equal(patched.description, 'set by an administrator');
        assert.equal(patched.disabled, true);
        assert.deepEqual(patched.extra, { htcondor: { extra_requirements: 'HasBigMemory' } });
        assert.equal((await gw.ok('bob', 'GET', `/apps/de/${made.id}`)).disabled, true);
        await gw.ok(admin, 'PATCH', route, { json: { disabled: false } });
        for (const body of [
          { disabled: 'yes' },
          { id: randomUUID() },
          { extra: 'x' },
          { name: '' },
        ])
          await refused(admin, 'PATCH', route, 400, 'ERR_BAD_OR_MISSING_FIELD', body);

        const version = await gw.ok(admin, 'PATCH', `${route}/versions/${made.version_id}`, {
          json: { version: '1.0-reviewed', name: 'bob is administered, renamed' },
        });
        assert.equal(version.version, '1.0-reviewed');
        assert.equal(version.name, 'bob is administered, renamed');
        const details = await gw.ok(admin, 'GET', `${route}/versions/${made.version_id}/details`);
        assert.equal(details.id, made.id);
        assert.equal(details.version_id, made.version_id);
        assert.deepEqual(details.extra, { htcondor: { extra_requirements: 'HasBigMemory' } });

        await gw.ok(admin, 'POST', `${route}/documentation`, {
          json: { documentation: '# Admin' },
        });
        assert.equal(
          (await gw.ok('bob', 'GET', `/apps/de/${made.id}/documentation`)).documentation,
          '# Admin',
        );
        const versionDocs = await gw.ok(
          admin,
          'PATCH',
          `${route}/versions/${made.version_id}/documentation`,
          {
            json: { documentation: '# Admin, per version', references: ['https://example.org/a'] },
          },
        );
        assert.equal(versionDocs.version_id, made.version_id);
        assert.equal(
          (await gw.ok(admin, 'GET', `${route}/details`)).documentation.documentation,
          '# Admin, per version',
        );
        await refused(admin, 'POST', `${route}/documentation`, 400, 'ERR_BAD_OR_MISSING_FIELD', {});

        for (const [method, path] of [
          ['PATCH', route],
          ['DELETE', route],
          ['GET', `${route}/versions/${made.version_id}/details`],
          ['PATCH', `${route}/documentation`],
        ] as const)
          await refused(
            'bob',
            method,
            path,
            403,
            'ERR_FORBIDDEN',
            method === 'PATCH' ? {} : undefined,
          );

        assert.deepEqual(await gw.ok(admin, 'DELETE', route), { id: made.id });
        await refused('bob', 'GET', `/apps/de/${made.id}`, 404, 'ERR_NOT_FOUND');
        assert.equal((await gw.ok(admin, 'GET', `${route}/details`)).deleted, true);
        await gw.ok(admin, 'PATCH', route, { json: { deleted: false } });
        assert.equal((await gw.ok('bob', 'GET', `/apps/de/${made.id}`)).id, made.id);
        await refused(admin, 'PATCH', `/admin/apps/de/${randomUUID()}`, 404, 'ERR_NOT_FOUND', {});
      });
    },
  );
}
