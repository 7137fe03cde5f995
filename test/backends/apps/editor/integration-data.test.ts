// Integration data of apps and tools (docs/api/apps.md "Integration data") through the gateway on
// each engine: an app's and a tool's record made from their integrator on first use, the
// administrators' records (create, search, page, change, delete) and pointing an app or tool at
// one, which its listing then shows; records in use kept; users refused the admin routes; bad
// bodies and unknown ids answered with codes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const wordCountTool = builtInApps[1]!.tool.id;

for (const engine of engines) {
  describe(`integration data (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
      for (const name of ['alice', 'bob', admin])
        await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
    });
    after(async () => gw?.close());

    test("an app's and a tool's record, and administrators pointing them at another", async () => {
      const made = await gw.ok('alice', 'POST', '/apps/de', {
        json: {
          name: 'integrated by alice',
          tools: [{ id: wordCountTool }],
          groups: [{ label: 'Inputs', parameters: [{ type: 'FileInput', label: 'Text' }] }],
        },
      });
      const own = await gw.ok('alice', 'GET', `/apps/de/${made.id}/integration-data`);
      assert.equal(own.user, 'alice');
      const details = await gw.ok('alice', 'GET', `/apps/de/${made.id}/details`);
      assert.equal(own.integrator_name, details.integrator_name);
      assert.equal(own.integrator_email, details.integrator_email);
      // The same record each time, for each version, and for another app of hers.
      assert.equal(
        (await gw.ok('alice', 'GET', `/apps/de/${made.id}/integration-data`)).id,
        own.id,
      );
      assert.equal(
        (
          await gw.ok(
            'alice',
            'GET',
            `/apps/de/${made.id}/versions/${made.version_id}/integration-data`,
          )
        ).id,
        own.id,
      );
      // Someone who cannot see the app cannot see its record.
      assert.equal(
        (await gw.call('bob', 'GET', `/apps/de/${made.id}/integration-data`)).status,
        404,
      );

      const tool = await gw.ok('bob', 'GET', `/tools/${wordCountTool}/integration-data`);
      assert.ok(tool.id);
      assert.equal(
        (await gw.call('bob', 'GET', '/tools/no-such-tool/integration-data')).status,
        404,
      );

      const lab = await gw.ok(admin, 'POST', '/admin/integration-data', {
        json: { integrator_name: 'The Lab', integrator_email: 'lab@example.org' },
      });
      assert.deepEqual(Object.keys(lab).sort(), ['id', 'integrator_email', 'integrator_name']);
      const pointed = await gw.ok(
        admin,
        'PUT',
        `/admin/apps/de/${made.id}/integration-data/${lab.id}`,
      );
      assert.equal(pointed.id, lab.id);
      const listed = await gw.ok(
        'alice',
        'GET',
        `/apps?search=${encodeURIComponent('integrated by')}`,
      );
      assert.equal(listed.apps[0].integrator_name, 'The Lab');
      assert.equal(listed.apps[0].integrator_email, 'lab@example.org');

      // Changing the record changes what the app shows.
      await gw.ok(admin, 'PUT', `/admin/integration-data/${lab.id}`, {
        json: { integrator_name: 'The Big Lab', integrator_email: 'lab@example.org' },
      });
      assert.equal(
        (await gw.ok('alice', 'GET', `/apps?search=${encodeURIComponent('integrated by')}`)).apps[0]
          .integrator_name,
        'The Big Lab',
      );
      await gw.ok(admin, 'PUT', `/admin/tools/${wordCountTool}/integration-data/${lab.id}`);
      assert.equal(
        (await gw.ok('bob', 'GET', `/tools/${wordCountTool}/integration-data`)).id,
        lab.id,
      );

      // In use: kept.
      const inUse = await gw.call(admin, 'DELETE', `/admin/integration-data/${lab.id}`);
      assert.equal(inUse.status, 400);
      assert.equal(inUse.body.error_code, 'ERR_ILLEGAL_ARGUMENT');
    });

    test('administrators list, search, page and delete records; users are refused', async () => {
      for (const name of ['Zed Person', 'Amy Person'])
        await gw.ok(admin, 'POST', '/admin/integration-data', {
          json: { integrator_name: name, integrator_email: `${name.split(' ')[0]}@example.org` },
        });
      const found = await gw.ok(
        admin,
        'GET',
        '/admin/integration-data?search=person&sort-field=name',
      );
      assert.deepEqual(
        found.integration_data.map((row: any) => row.integrator_name),
        ['Amy Person', 'Zed Person'],
      );
      assert.equal(found.total, 2);
      const page = await gw.ok(
        admin,
        'GET',
        '/admin/integration-data?search=person&sort-field=name&sort-dir=desc&limit=1&offset=1',
      );
      assert.deepEqual(
        page.integration_data.map((row: any) => row.integrator_name),
        ['Amy Person'],
      );
      assert.equal(page.total, 2);

      const amy = found.integration_data[0];
      assert.deepEqual(await gw.ok(admin, 'GET', `/admin/integration-data/${amy.id}`), amy);
      await gw.ok(admin, 'DELETE', `/admin/integration-data/${amy.id}`);
      const gone = await gw.call(admin, 'GET', `/admin/integration-data/${amy.id}`);
      assert.equal(gone.status, 404);
      assert.equal(gone.body.error_code, 'ERR_NOT_FOUND');

      // One record per user.
      await gw.ok(admin, 'POST', '/admin/integration-data', {
        json: { integrator_name: 'Bob', integrator_email: 'bob@example.org', user: 'bob' },
      });
      const twice = await gw.call(admin, 'POST', '/admin/integration-data', {
        json: { integrator_name: 'Bob', integrator_email: 'bob@example.org', user: 'bob' },
      });
      assert.equal(twice.status, 400);
      assert.equal(twice.body.error_code, 'ERR_EXISTS');

      const bad = await gw.call(admin, 'POST', '/admin/integration-data', {
        json: { integrator_name: '', integrator_email: 'not an address' },
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const sort = await gw.call(admin, 'GET', '/admin/integration-data?sort-field=age');
      assert.equal(sort.status, 400);
      assert.equal(sort.body.error_code, 'ERR_BAD_QUERY_PARAMETER');
      assert.equal((await gw.call('alice', 'GET', '/admin/integration-data')).status, 403);
    });
  });
}
