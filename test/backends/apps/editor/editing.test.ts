// Users create, relabel, replace, version, document and delete their own apps in the embedded apps
// service, through the gateway; nobody changes anyone else's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { requiredInCi } from '../../../support/gateway.ts';
import { startMetadataGateway, type MetadataGateway } from '../../../support/metadata-gateway.ts';

const wordCountTool = builtInApps[1]!.tool.id;
const request = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name}, made in a test`,
  tools: [{ id: wordCountTool }],
  groups: [
    {
      label: 'Inputs',
      parameters: [
        { type: 'FileInput', label: 'Text', required: true },
        { type: 'Integer', label: 'Top', defaultValue: 10 },
      ],
    },
  ],
  ...extra,
});

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`editing apps (${engine})`, () => {
    let gw: MetadataGateway;
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    test('create: the launch view answers, only its integrator sees a private app', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const made = await gw.ok('alice', 'POST', '/apps/de', { json: request('alice counter') });
      assert.equal(made.name, 'alice counter');
      assert.equal(made.version, '1.0');
      assert.deepEqual(
        made.groups[0].parameters.map((parameter: any) => [parameter.type, parameter.label]),
        [
          ['FileInput', 'Text'],
          ['Integer', 'Top'],
        ],
      );
      assert.match(made.groups[0].parameters[0].id, /^[0-9a-f-]{36}_[0-9a-f-]{36}$/);
      const mine = await gw.ok('alice', 'GET', '/apps?search=alice%20counter');
      assert.equal(mine.total, 1);
      assert.equal(mine.apps[0].permission, 'own');
      assert.equal(mine.apps[0].integrator_email, 'alice@example.org');
      assert.equal(mine.apps[0].can_run, true);
      assert.equal((await gw.ok('bob', 'GET', '/apps?search=alice%20counter')).total, 0);
      const details = await gw.ok('alice', 'GET', `/apps/de/${made.id}/details`);
      assert.deepEqual(
        details.tools.map((tool: any) => tool.id),
        [wordCountTool],
      );
    });

    test('bad app requests are 400 naming the field, and nothing is made', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const before = (await gw.ok('alice', 'GET', '/apps')).total;
      const cases: [unknown, string][] = [
        [{ ...request('x'), name: '' }, 'name'],
        [{ ...request('x'), tools: [{ id: randomUUID() }] }, 'tools'],
        [{ ...request('x'), tools: 'word count' }, 'tools'],
        [
          { ...request('x'), groups: [{ label: 'g', parameters: [{ type: 'Spreadsheet' }] }] },
          'groups[0].parameters[0].type',
        ],
        [
          { ...request('x'), groups: [{ label: 'g', step_number: 2, parameters: [] }] },
          'groups[0].step_number',
        ],
        [{ ...request('x'), groups: [{ parameters: [] }] }, 'groups[0].label'],
        [{ ...request('x'), references: [1] }, 'references'],
      ];
      for (const [body, field] of cases) {
        const answer = await gw.call('alice', 'POST', '/apps/de', { json: body });
        assert.equal(answer.status, 400, field);
        assert.equal(answer.body.error_code, 'ERR_BAD_OR_MISSING_FIELD', field);
        assert.equal(answer.body.field, field);
      }
      assert.equal(
        (await gw.call('alice', 'POST', '/apps/extapi', { json: request('x') })).status,
        400,
      );
      assert.equal((await gw.ok('alice', 'GET', '/apps')).total, before);
    });

    test("relabel, replace, version and document one's app; others cannot", async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const made = await gw.ok('carol', 'POST', '/apps/de', { json: request('carol tool') });
      const route = `/apps/de/${made.id}`;
      const relabelled = await gw.ok('carol', 'PATCH', route, {
        json: { name: 'carol counter', description: 'counts' },
      });
      assert.equal(relabelled.name, 'carol counter');
      assert.equal(relabelled.description, 'counts');

      const replaced = await gw.ok('carol', 'PUT', route, {
        json: request('carol counter', {
          groups: [{ label: 'Only', parameters: [{ type: 'Text', label: 'Word' }] }],
        }),
      });
      assert.equal(replaced.version_id, made.version_id, 'a replacement keeps the version');
      assert.deepEqual(
        replaced.groups.map((group: any) => group.label),
        ['Only'],
      );

      const second = await gw.ok('carol', 'POST', `${route}/versions`, {
        json: request('carol counter', { version: '2.0' }),
      });
      assert.equal(second.version, '2.0');
      assert.deepEqual(
        second.versions.map((version: any) => version.version),
        ['2.0', '1.0'],
      );
      const old = await gw.ok('carol', 'GET', `${route}/versions/${made.version_id}`);
      assert.deepEqual(
        old.groups.map((group: any) => group.label),
        ['Only'],
      );
      assert.equal(
        (
          await gw.call('carol', 'POST', `${route}/versions`, {
            json: request('carol counter', { version: '2.0' }),
          })
        ).status,
        409,
      );

      const documented = await gw.ok('carol', 'POST', `${route}/documentation`, {
        json: { documentation: '# How to count', references: ['https://example.org/wc'] },
      });
      assert.deepEqual(documented, {
        app_id: made.id,
        version_id: second.version_id,
        documentation: '# How to count',
        references: ['https://example.org/wc'],
      });
      assert.deepEqual(await gw.ok('carol', 'GET', `${route}/documentation`), documented);

      // dave cannot see carol's private app at all; nobody but the platform changes a built-in app.
      for (const [method, path, json] of [
        ['PATCH', route, { name: 'mine' }],
        ['DELETE', route, undefined],
        ['POST', `${route}/documentation`, { documentation: 'x' }],
      ] as const) {
        assert.equal(
          (await gw.call('dave', method, path, json ? { json } : {})).status,
          404,
          `${method} ${path}`,
        );
      }
      const builtIn = `/apps/de/${builtInApps[0]!.id}`;
      const refused = await gw.call('dave', 'PATCH', builtIn, { json: { name: 'mine' } });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error_code, 'ERR_NOT_OWNER');
      assert.equal((await gw.call('dave', 'DELETE', builtIn)).status, 403);

      assert.deepEqual(await gw.ok('carol', 'DELETE', `${route}/versions/${made.version_id}`), {
        id: made.id,
        version_id: made.version_id,
      });
      const only = await gw.call('carol', 'DELETE', `${route}/versions/${second.version_id}`);
      assert.equal(only.status, 400);
      assert.equal(only.body.error_code, 'ERR_ILLEGAL_ARGUMENT');

      assert.deepEqual(await gw.ok('carol', 'DELETE', route), { id: made.id });
      assert.equal((await gw.ok('carol', 'GET', '/apps?search=carol')).total, 0);
      assert.equal((await gw.call('carol', 'GET', route)).status, 404);
    });
  });
}
