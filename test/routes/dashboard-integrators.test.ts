// The integrator of the dashboard's app items, as the web UI (Sonora) reads it, through the gateway
// on each engine (issue 41, item 6a; docs/api/dashboard.md): src/components/dashboard/dashboardItem/
// ItemBase.js shows "Integrated by <user> on <date>" for an app card, `user` being the item's
// `username` less the UI's configured domain (src/components/utils/getUserName.js), as the DE's
// dashboard aggregator answers it. Every app item of `GET /dashboard` (`recentlyAdded`, `public`,
// `popularFeatured`; `recentlyUsed` in dashboard.test.ts) has `username`, the integrator's qualified
// username, and `integrator_name`: the app's, else the integrator's first and last name from the
// user records, else the username.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import { engines, skipWithout } from '../support/postgres.ts';
import { startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

const wordCountTool = builtInApps.find((app) => app.name === 'Word count')!.tool.id;

for (const engine of engines) {
  describe(
    `dashboard app items name their integrator (${engine})`,
    { skip: skipWithout(engine) },
    () => {
      let gw: MetadataGateway;
      let domain: string;
      before(async () => {
        gw = (await startMetadataGateway({ engine }))!;
        domain = gw.running.gateway.config.uidDomain;
      });
      after(async () => gw?.close());

      const makeApp = (owner: string, name: string) =>
        gw.ok(owner, 'POST', '/apps/de', {
          json: {
            name,
            description: `${name}, made in a test`,
            tools: [{ id: wordCountTool }],
            groups: [{ label: 'Inputs', parameters: [{ type: 'FileInput', label: 'Text' }] }],
          },
        });

      test('every app item has username and integrator_name', async () => {
        const named = await makeApp('alice', 'named by the app');
        const unnamed = await makeApp('alice', 'named by the user record');
        const orphan = await makeApp('alice', 'named by the username');
        const db = gw.running.gateway.store.db;
        // An app recording no integrator name; one whose integrator the platform has no record of.
        await db
          .updateTable('apps')
          .set({ integrator_name: '' })
          .where('id', '=', unnamed.id)
          .execute();
        await db
          .updateTable('apps')
          .set({ integrator_name: '', integrator: 'ghost', is_public: true })
          .where('id', '=', orphan.id)
          .execute();

        const dashboard = await gw.ok('alice', 'GET', '/dashboard?limit=20');
        assert.equal(dashboard.errors, undefined, JSON.stringify(dashboard.errors));
        const { recentlyAdded, public: publicApps, popularFeatured } = dashboard.apps;
        for (const item of [...recentlyAdded, ...publicApps, ...popularFeatured]) {
          assert.equal(typeof item.username, 'string', item.name);
          assert.match(item.username, /^[^@]+@/, item.name);
          assert.equal(typeof item.integrator_name, 'string', item.name);
          assert.ok(item.integrator_name.length > 0, item.name);
        }
        const added = new Map(recentlyAdded.map((item: any) => [item.id, item]));
        assert.deepEqual(
          [named.id, unnamed.id].map((id) => {
            const item: any = added.get(id);
            return [item.username, item.integrator_name];
          }),
          [
            [`alice@${domain}`, 'Alice Tester'],
            [`alice@${domain}`, 'Alice Tester'],
          ],
        );
        const ghost = publicApps.find((item: any) => item.id === orphan.id);
        assert.deepEqual([ghost.username, ghost.integrator_name], [`ghost@${domain}`, 'ghost']);
        const builtIn = popularFeatured.find((item: any) => item.name === 'Word count');
        assert.deepEqual(
          [builtIn.username, builtIn.integrator_name],
          [`platform@${domain}`, 'Platform'],
        );

        // Signed out too.
        const anonymous = await gw.ok(null, 'GET', '/dashboard');
        for (const item of [...anonymous.apps.public, ...anonymous.apps.popularFeatured])
          assert.match(item.username, /^[^@]+@/, item.name);
      });
    },
  );
}
