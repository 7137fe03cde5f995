// Tools in the embedded apps service, through the gateway, on each engine (docs/api/tools.md): a
// user imports a private tool (bad bodies 400 naming the field), lists it (search, `search=*`,
// paging, sorting, the `public` filter), fetches it (with `include-defaults`), changes it, lists
// the apps that use it; shares it and the grantee sees it, builds an app on it (not before) and
// changes it with `write`; deleting
// a tool in use is refused unless forced; administrators list every tool, import public tools
// (their owners told with `tool_deployment`), change, publish (then public to everyone) and delete
// any; non-administrators are refused the admin routes; GPU models are listed.
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

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name}, imported in a test`,
  type: 'executable',
  version: '1.0',
  location: '/usr/bin',
  attribution: 'the test suite',
  container: {
    image: { name: 'docker.io/library/alpine', tag: '3.20' },
    min_cpu_cores: 1,
    max_cpu_cores: 2,
    memory_limit: 1_073_741_824,
  },
  ...extra,
});

for (const engine of engines) {
  describe(`tools (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    const tag = randomUUID().slice(0, 8);
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
      for (const name of ['alice', 'bob', 'carol', admin])
        await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
    });
    after(async () => gw?.close());

    const makeApp = (owner: string, name: string, toolId: string) =>
      gw.ok(owner, 'POST', '/apps/de', {
        json: {
          name,
          description: `${name}, made in a test`,
          tools: [{ id: toolId }],
          groups: [{ label: 'Inputs', parameters: [{ type: 'FileInput', label: 'Text' }] }],
        },
      });
    const toolNotifications = (caller: string, action: string, count = 1) =>
      eventually(
        async () => {
          const { messages } = await gw.ok(
            caller,
            'GET',
            '/secured/notifications/messages?sortDir=asc',
          );
          const found = (messages as any[]).filter(
            (n) => n.type === 'tool' && n.payload?.action === action,
          );
          return found.length >= count ? found : undefined;
        },
        10_000,
        `${count} tool ${action} notification(s) for ${caller}`,
      ) as Promise<any[]>;

    test('import, list, search, page, fetch and change a private tool', async () => {
      const made = await gw.ok('alice', 'POST', '/tools', { json: tool(`alpha ${tag}`) });
      assert.match(made.id, /^[0-9a-f-]{36}$/);
      assert.equal(made.is_public, false);
      assert.equal(made.permission, 'own');
      assert.deepEqual(made.container.image, { name: 'docker.io/library/alpine', tag: '3.20' });
      assert.equal(made.implementation.implementor_email, 'alice@example.org');
      await gw.ok('alice', 'POST', '/tools', { json: tool(`beta ${tag}`, { version: '2.0' }) });
      await gw.ok('alice', 'POST', '/tools', { json: tool(`gamma ${tag}`) });

      const mine = await gw.ok('alice', 'GET', `/tools?search=${tag}`);
      assert.equal(mine.total, 3);
      assert.deepEqual(
        mine.tools.map((t: any) => t.name),
        [`alpha ${tag}`, `beta ${tag}`, `gamma ${tag}`],
      );
      const page = await gw.ok(
        'alice',
        'GET',
        `/tools?search=${tag}&sort-field=name&sort-dir=desc&limit=2&offset=1`,
      );
      assert.equal(page.total, 3);
      assert.deepEqual(
        page.tools.map((t: any) => t.name),
        [`beta ${tag}`, `alpha ${tag}`],
      );
      // `search=*` is everything: the built-in tools (public) and alice's own.
      const all = await gw.ok('alice', 'GET', '/tools?search=*&limit=0');
      const names = all.tools.map((t: any) => t.name);
      assert.ok(names.includes(builtInApps[1]!.tool.name));
      assert.ok(names.includes(`alpha ${tag}`));
      const publicOnly = await gw.ok('alice', 'GET', '/tools?search=*&public=true');
      assert.ok(publicOnly.tools.every((t: any) => t.is_public && t.permission === 'read'));
      assert.ok(!publicOnly.tools.some((t: any) => t.name === `alpha ${tag}`));
      // Nobody else sees a private tool.
      assert.equal((await gw.ok('bob', 'GET', `/tools?search=${tag}`)).total, 0);
      assert.equal((await gw.call('bob', 'GET', `/tools/${made.id}`)).status, 404);
      const badSort = await gw.call('alice', 'GET', '/tools?sort-field=colour');
      assert.equal(badSort.status, 400);
      assert.equal(badSort.body.error_code, 'ERR_BAD_QUERY_PARAMETER');

      const fetched = await gw.ok('alice', 'GET', `/tools/${made.id}`);
      assert.equal(fetched.name, `alpha ${tag}`);
      assert.equal(fetched.container.min_cpu_cores, 1);
      assert.equal(fetched.container.network_mode, undefined);
      const withDefaults = await gw.ok('alice', 'GET', `/tools/${made.id}?include-defaults=true`);
      assert.equal(withDefaults.container.network_mode, 'bridge');
      assert.equal(withDefaults.container.min_cpu_cores, 1);

      const patched = await gw.ok('alice', 'PATCH', `/tools/${made.id}`, {
        json: { id: made.id, name: `alpha prime ${tag}`, version: '1.1' },
      });
      assert.equal(patched.name, `alpha prime ${tag}`);
      assert.equal(patched.version, '1.1');
      assert.equal(patched.description, `alpha ${tag}, imported in a test`);
      assert.equal(patched.container.image.tag, '3.20');
      const refused = await gw.call('alice', 'PATCH', `/tools/${made.id}`, { json: { name: '' } });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.field, 'name');
    });

    test('bad tools are 400 naming the field, and nothing is imported', async () => {
      const cases: [unknown, string][] = [
        [{ ...tool('x'), name: '' }, 'name'],
        [{ ...tool('x'), name: undefined }, 'name'],
        [{ ...tool('x'), type: 'spaceship' }, 'type'],
        [{ ...tool('x'), version: 3 }, 'version'],
        [{ ...tool('x'), container: undefined }, 'container'],
        [{ ...tool('x'), container: { image: { tag: 'latest' } } }, 'container.image.name'],
        [
          { ...tool('x'), container: { image: { name: 'alpine' }, min_cpu_cores: -1 } },
          'container.min_cpu_cores',
        ],
        [{ ...tool('x'), implementation: 'me' }, 'implementation'],
        [{ ...tool('x'), time_limit_seconds: 'soon' }, 'time_limit_seconds'],
      ];
      for (const [body, field] of cases) {
        const answer = await gw.call('carol', 'POST', '/tools', { json: body });
        assert.equal(answer.status, 400, field);
        assert.equal(answer.body.error_code, 'ERR_BAD_OR_MISSING_FIELD', field);
        assert.equal(answer.body.field, field);
      }
      assert.equal((await gw.ok('carol', 'GET', '/tools?search=x')).total, 0);
    });

    test('the apps using a tool; deleting one in use is refused unless forced', async () => {
      const made = await gw.ok('alice', 'POST', '/tools', { json: tool(`used ${tag}`) });
      const appMade = await makeApp('alice', `app using ${tag}`, made.id);
      const listed = await gw.ok('alice', 'GET', `/tools/${made.id}/apps`);
      assert.deepEqual(
        listed.apps.map((a: any) => [a.id, a.name, a.permission]),
        [[appMade.id, `app using ${tag}`, 'own']],
      );
      const details = await gw.ok('alice', 'GET', `/apps/de/${appMade.id}/details`);
      assert.deepEqual(
        details.tools.map((t: any) => [t.id, t.container?.image?.name]),
        [[made.id, 'docker.io/library/alpine']],
      );

      const refused = await gw.call('alice', 'DELETE', `/tools/${made.id}`);
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error_code, 'ERR_ILLEGAL_ARGUMENT');
      assert.deepEqual(refused.body.app_ids, [appMade.id]);
      assert.equal((await gw.call('bob', 'DELETE', `/tools/${made.id}`)).status, 404);

      const forced = await gw.ok('alice', 'DELETE', `/tools/${made.id}?force-delete=true`);
      assert.deepEqual(forced, { id: made.id });
      assert.equal((await gw.call('alice', 'GET', `/tools/${made.id}`)).status, 404);
      const orphan = await gw.ok(
        'alice',
        'GET',
        `/apps?search=${encodeURIComponent(`app using ${tag}`)}`,
      );
      assert.equal(orphan.apps[0].can_run, false);

      const unused = await gw.ok('alice', 'POST', '/tools', { json: tool(`unused ${tag}`) });
      assert.deepEqual(await gw.ok('alice', 'DELETE', `/tools/${unused.id}`), { id: unused.id });
      // Built-in tools belong to the platform.
      const builtIn = await gw.call(admin, 'DELETE', `/admin/tools/${builtInApps[1]!.tool.id}`);
      assert.equal(builtIn.status, 400);
      assert.equal(builtIn.body.error_code, 'ERR_ILLEGAL_ARGUMENT');
    });

    test('a shared tool: the grantee sees it, changes it with write, never deletes it', async () => {
      const made = await gw.ok('alice', 'POST', '/tools', { json: tool(`shared ${tag}`) });
      const share = (permission: string) =>
        gw.ok('alice', 'POST', '/tools/sharing', {
          json: {
            sharing: [
              {
                subject: { id: 'bob', source_id: 'ldap' },
                tools: [{ tool_id: made.id, permission }],
              },
            ],
          },
        });
      // An app may run only tools its integrator may see.
      const unseen = await gw.call('bob', 'POST', '/apps/de', {
        json: {
          name: `bob borrows ${tag}`,
          tools: [{ id: made.id }],
          groups: [{ label: 'In', parameters: [] }],
        },
      });
      assert.equal(unseen.status, 400);
      assert.equal(unseen.body.field, 'tools');
      assert.equal((await share('read')).sharing[0].tools[0].success, true);
      const borrowed = await makeApp('bob', `bob borrows ${tag}`, made.id);
      assert.deepEqual(
        (await gw.ok('alice', 'GET', `/tools/${made.id}/apps`)).apps,
        [],
        "bob's private app is not alice's to see",
      );
      assert.deepEqual(
        (await gw.ok('bob', 'GET', `/tools/${made.id}/apps`)).apps.map((a: any) => a.id),
        [borrowed.id],
      );
      const seen = await gw.ok(
        'bob',
        'GET',
        `/tools?search=${encodeURIComponent(`shared ${tag}`)}`,
      );
      assert.deepEqual(
        seen.tools.map((t: any) => [t.id, t.permission]),
        [[made.id, 'read']],
      );
      assert.equal((await gw.ok('bob', 'GET', `/tools/${made.id}`)).permission, 'read');
      const readOnly = await gw.call('bob', 'PATCH', `/tools/${made.id}`, {
        json: { description: 'bob was here' },
      });
      assert.equal(readOnly.status, 403);
      assert.equal(readOnly.body.error_code, 'ERR_NOT_WRITEABLE');

      await share('write');
      const changed = await gw.ok('bob', 'PATCH', `/tools/${made.id}`, {
        json: { description: 'bob was here' },
      });
      assert.equal(changed.description, 'bob was here');
      assert.equal(changed.permission, 'write');
      const notOwner = await gw.call('bob', 'DELETE', `/tools/${made.id}`);
      assert.equal(notOwner.status, 403);
      assert.equal(notOwner.body.error_code, 'ERR_NOT_OWNER');
      const lister = await gw.ok('alice', 'POST', '/tools/permission-lister', {
        json: { tools: [made.id] },
      });
      assert.deepEqual(
        lister.tools[0].permissions.map((p: any) => [p.subject.id, p.permission]),
        [['bob', 'write']],
      );
    });

    test('administrators list, import, change, publish and delete any tool', async () => {
      const made = await gw.ok('carol', 'POST', '/tools', { json: tool(`to publish ${tag}`) });
      const everything = await gw.ok(admin, 'GET', `/admin/tools?search=${tag}&limit=100`);
      assert.ok(everything.tools.some((t: any) => t.id === made.id));
      assert.equal(everything.total, everything.tools.length);
      assert.equal((await gw.ok(admin, 'GET', `/admin/tools/${made.id}`)).name, made.name);

      assert.equal((await gw.call('bob', 'GET', `/tools/${made.id}`)).status, 404);
      const published = await gw.ok(admin, 'POST', `/admin/tools/${made.id}/publish`);
      assert.equal(published.is_public, true);
      const seen = await gw.ok('bob', 'GET', `/tools/${made.id}`);
      assert.equal(seen.is_public, true);
      assert.equal(seen.permission, 'read');
      assert.ok(
        (await gw.ok('bob', 'GET', '/tools?search=*&public=true&limit=0')).tools.some(
          (t: any) => t.id === made.id,
        ),
      );
      const told = await toolNotifications('carol', 'tool_published');
      assert.equal(told[0].payload.tool_id, made.id);
      // A public tool is the administrators' to change.
      const ownerPatch = await gw.call('carol', 'PATCH', `/tools/${made.id}`, {
        json: { description: 'mine still?' },
      });
      assert.equal(ownerPatch.status, 403);
      assert.equal(ownerPatch.body.error_code, 'ERR_FORBIDDEN');
      const relabelled = await gw.ok(admin, 'PATCH', `/admin/tools/${made.id}`, {
        json: { description: 'reviewed' },
      });
      assert.equal(relabelled.description, 'reviewed');
      const container = { image: { name: 'docker.io/library/alpine', tag: '3.21' } };
      const guarded = await gw.call(admin, 'PATCH', `/admin/tools/${made.id}`, {
        json: { container },
      });
      assert.equal(guarded.status, 403);
      assert.equal(guarded.body.error_code, 'ERR_NOT_WRITEABLE');
      assert.deepEqual(guarded.body.apps, []); // no public app uses it
      const overwritten = await gw.ok(
        admin,
        'PATCH',
        `/admin/tools/${made.id}?overwrite-public=true`,
        { json: { container } },
      );
      assert.equal(overwritten.container.image.tag, '3.21');

      const appMade = await makeApp('carol', `admin app ${tag}`, made.id);
      const apps = await gw.ok(admin, 'GET', `/admin/tools/${made.id}/apps`);
      assert.deepEqual(
        apps.apps.map((a: any) => a.id),
        [appMade.id],
      );
      // Bob sees the public tool but not carol's private app that uses it.
      assert.deepEqual((await gw.ok('bob', 'GET', `/tools/${made.id}/apps`)).apps, []);
      assert.equal((await gw.call(admin, 'DELETE', `/admin/tools/${made.id}`)).status, 400);
      assert.deepEqual(await gw.ok(admin, 'DELETE', `/admin/tools/${made.id}?force-delete=true`), {
        id: made.id,
      });
      assert.equal((await gw.call(admin, 'GET', `/admin/tools/${made.id}`)).status, 404);
    });

    test('an administrator imports public tools; each owner is told of its deployment', async () => {
      const imported = await gw.ok(admin, 'POST', '/admin/tools', {
        json: {
          tools: [tool(`deployed one ${tag}`, { user: 'bob' }), tool(`deployed two ${tag}`)],
        },
      });
      assert.equal(imported.tool_ids.length, 2);
      const [first, second] = imported.tool_ids as string[];
      const seen = await gw.ok('carol', 'GET', `/tools/${first}`);
      assert.equal(seen.is_public, true);
      assert.equal(seen.name, `deployed one ${tag}`);
      const told = await toolNotifications('bob', 'tool_deployment');
      assert.equal(told[0].payload.tool_id, first);
      const adminTold = await toolNotifications(admin, 'tool_deployment');
      assert.ok(adminTold.some((n) => n.payload.tool_id === second));
      const bad = await gw.call(admin, 'POST', '/admin/tools', {
        json: { tools: [tool('fine'), { ...tool('broken'), type: 'spaceship' }] },
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.field, 'tools[1].type');
      const empty = await gw.call(admin, 'POST', '/admin/tools', { json: {} });
      assert.equal(empty.status, 400);
      assert.equal(empty.body.field, 'tools');
    });

    test('non-administrators are refused the admin tool routes', async () => {
      const id = builtInApps[1]!.tool.id;
      for (const [method, route] of [
        ['GET', '/admin/tools'],
        ['POST', '/admin/tools'],
        ['GET', `/admin/tools/${id}`],
        ['PATCH', `/admin/tools/${id}`],
        ['DELETE', `/admin/tools/${id}`],
        ['GET', `/admin/tools/${id}/apps`],
        ['POST', `/admin/tools/${id}/publish`],
      ] as const) {
        const answer = await gw.call(
          'alice',
          method,
          route,
          method === 'POST' || method === 'PATCH' ? { json: {} } : {},
        );
        assert.equal(answer.status, 403, `${method} ${route}`);
      }
    });

    test('GPU models are listed (not taken for a tool id)', async () => {
      const { gpu_models: models } = await gw.ok('alice', 'GET', '/tools/gpu-models');
      assert.ok(Array.isArray(models) && models.length > 0);
      assert.ok(models.every((model: unknown) => typeof model === 'string'));
    });
  });
}
