// The web UI's home page (`GET /dashboard`) on the embedded platform, through the gateway on each
// engine, signed in and signed out: the public and featured apps, the caller's recently used apps
// and recent and running analyses (none for anonymous callers), the feeds' items administrators
// post and delete (refused to others, and for bad bodies), the instant launches tagged for the
// dashboard; `limit` bounds every list (default 8), and the number of backend calls does not grow
// with it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { eventually } from '../support/fileio.ts';
import { engines, skipWithout } from '../support/postgres.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

const wordCount = builtInApps.find((app) => app.name === 'Word count')!;
const inputKey = (() => {
  const parameter = wordCount.definition.groups
    .flatMap((group) => group.parameters)
    .find((each) => each.name === 'input')!;
  return `${wordCount.definition.steps[0]!.id}_${parameter.id}`;
})();
const publicAppCount = builtInApps.length;

for (const engine of engines) {
  describe(`dashboard (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    let instantLaunch: any;
    const news: any[] = [];
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
      await gw.ok('alice', 'GET', '/apps'); // the apps service has installed its apps
    });
    after(async () => gw?.close());

    test('administrators post feed items; others and bad bodies are refused', async () => {
      const feeds = '/admin/dashboard/feeds';
      const refused = await gw.call('alice', 'POST', `${feeds}/news`, { json: { title: 'x' } });
      assert.equal(refused.status, 403, refused.text);
      const noFeed = await gw.call(admin, 'POST', `${feeds}/gossip`, { json: { title: 'x' } });
      assert.equal(noFeed.status, 404, noFeed.text);
      assert.equal(noFeed.body.error_code, 'ERR_NOT_FOUND');
      for (const [body, field] of [
        [{}, 'title'],
        [{ title: 'x', link: 'javascript:alert(1)' }, 'link'],
        [{ title: 'x', publication_date: 'soon' }, 'publication_date'],
      ] as const) {
        const bad = await gw.call(admin, 'POST', `${feeds}/news`, { json: body });
        assert.equal(bad.status, 400, bad.text);
        assert.equal(bad.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
        assert.equal(bad.body.field, field);
      }
      for (let day = 1; day <= 9; day++) {
        news.push(
          await gw.ok(admin, 'POST', `${feeds}/news`, {
            json: {
              title: `News ${day}`,
              link: `https://example.org/news/${day}`,
              publication_date: `2030-01-0${day}T00:00:00.000Z`,
            },
          }),
        );
      }
      const event = await gw.ok(admin, 'POST', `${feeds}/events`, {
        json: { title: 'Workshop', description: 'Hands on', author: 'Platform team' },
      });
      assert.deepEqual(
        { title: event.title, feed: event.feed, description: event.description },
        { title: 'Workshop', feed: 'events', description: 'Hands on' },
      );
      const listed = await gw.ok(admin, 'GET', `${feeds}?limit=3`);
      assert.deepEqual(
        listed.news.map((item: any) => item.title),
        ['News 9', 'News 8', 'News 7'],
      );
    });

    test('a signed-in user sees public apps, their recent analyses and apps, feeds and instant launches', async () => {
      // alice runs Word count; an administrator tags a public quick launch's instant launch for the dashboard.
      await gw.upload('alice', gw.home('alice'), 'words.txt', 'one two three');
      const launched = await gw.ok('alice', 'POST', '/analyses', {
        json: {
          system_id: 'de',
          app_id: wordCount.id,
          name: 'alice counts',
          output_dir: gw.home('alice'),
          config: { [inputKey]: `${gw.home('alice')}/words.txt` },
        },
      });
      const filter = encodeURIComponent(JSON.stringify([{ field: 'id', value: launched.id }]));
      await eventually(
        async () => {
          const [row] = (await gw.ok('alice', 'GET', `/analyses?filter=${filter}`)).analyses;
          return row?.status === 'Completed' ? row : undefined;
        },
        10_000,
        'the analysis to complete',
      );
      const quickLaunch = await gw.ok(admin, 'POST', '/quicklaunches', {
        json: {
          name: 'Count words',
          app_id: wordCount.id,
          is_public: true,
          submission: { system_id: 'de', app_id: wordCount.id, name: 'count', config: {} },
        },
      });
      instantLaunch = await gw.ok(admin, 'PUT', '/admin/instant-launches', {
        json: { quick_launch_id: quickLaunch.id },
      });
      await gw.ok(admin, 'POST', `/admin/instant-launches/${instantLaunch.id}/metadata`, {
        json: { avus: [{ attribute: 'ui_location', value: 'dashboard', unit: '' }] },
      });

      const dashboard = await gw.ok('alice', 'GET', '/dashboard');
      assert.equal(dashboard.errors, undefined, JSON.stringify(dashboard.errors));
      assert.equal(dashboard.apps.public.length, Math.min(publicAppCount, 8));
      assert.deepEqual(dashboard.apps.recentlyAdded, []);
      assert.deepEqual(
        dashboard.apps.recentlyUsed.map((each: any) => each.id),
        [wordCount.id],
      );
      // Its integrator, as the web UI's app card reads it (dashboard-integrators.test.ts).
      assert.equal(
        dashboard.apps.recentlyUsed[0].username,
        `platform@${gw.running.gateway.config.uidDomain}`,
      );
      assert.deepEqual(
        dashboard.analyses.recent.map((each: any) => each.id),
        [launched.id],
      );
      assert.deepEqual(dashboard.analyses.running, []);
      // Default limit 8: the newest eight of nine news items.
      assert.deepEqual(
        dashboard.feeds.news.map((item: any) => item.title),
        news
          .slice(1)
          .reverse()
          .map((item) => item.title),
      );
      assert.deepEqual(
        dashboard.feeds.events.map((item: any) => item.title),
        ['Workshop'],
      );
      assert.deepEqual(dashboard.feeds.videos, []);
      assert.deepEqual(
        dashboard.instantLaunches.map((each: any) => [each.id, each.app_name]),
        [[instantLaunch.id, 'Word count']],
      );
      // bob has run nothing.
      const bobs = await gw.ok('bob', 'GET', '/dashboard');
      assert.deepEqual([bobs.analyses.recent, bobs.apps.recentlyUsed], [[], []]);
    });

    test('an anonymous visitor sees public apps, feeds and instant launches, and no analyses', async () => {
      const dashboard = await gw.ok(null, 'GET', '/dashboard?limit=2');
      assert.equal(dashboard.errors, undefined, JSON.stringify(dashboard.errors));
      assert.equal(dashboard.apps.public.length, Math.min(publicAppCount, 2));
      assert.deepEqual(dashboard.apps.recentlyAdded, []);
      assert.deepEqual(dashboard.apps.recentlyUsed, []);
      assert.deepEqual(dashboard.analyses, { recent: [], running: [] });
      assert.deepEqual(
        dashboard.feeds.news.map((item: any) => item.title),
        ['News 9', 'News 8'],
      );
      assert.equal(dashboard.instantLaunches.length, 1);
      const bad = await gw.call(null, 'GET', '/dashboard?limit=many');
      assert.equal(bad.status, 400, bad.text);
    });

    test('the backend calls per dashboard do not grow with the limit or the items', async () => {
      const callsFor = async (limit: number) => {
        const before = await Promise.all(
          ['apps', 'user-info', 'interactive-apps'].map(gw.backendCalls),
        );
        await gw.ok('alice', 'GET', `/dashboard?limit=${limit}`);
        const after = await Promise.all(
          ['apps', 'user-info', 'interactive-apps'].map(gw.backendCalls),
        );
        return after.map((count, index) => count - before[index]!);
      };
      const few = await callsFor(1);
      assert.deepEqual(await callsFor(100), few);
      // apps: the apps part, recent and running analyses; one feeds call; one instant-launch call.
      assert.deepEqual(few, [3, 1, 1]);
    });

    test('a deleted feed item leaves the dashboard; deleting it again is 404', async () => {
      const path = `/admin/dashboard/feeds/items/${news[8].id}`;
      assert.equal((await gw.call('alice', 'DELETE', path)).status, 403);
      assert.deepEqual(await gw.ok(admin, 'DELETE', path), { id: news[8].id });
      const again = await gw.call(admin, 'DELETE', path);
      assert.equal(again.status, 404, again.text);
      const dashboard = await gw.ok(null, 'GET', '/dashboard?limit=1');
      assert.deepEqual(
        dashboard.feeds.news.map((item: any) => item.title),
        ['News 8'],
      );
    });
  });
}

// With DASHBOARD_URL set the dashboard is the aggregator's: `/users/{user@domain}` for a signed-in
// caller, `/` for an anonymous one, with the limit, the answer relayed. So are instant launches with
// INTERACTIVE_APPS_URL: the embedded analyses service no longer answers them.
describe('dashboard and instant launches against stand-in services', () => {
  let service: TestBackend;
  let gw: DataStoreGateway;
  before(async () => {
    service = await startBackend((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ from: 'stand-in' }));
    });
    gw = (await startDataStoreGateway({
      env: {
        DASHBOARD_URL: `${service.url}/dash`,
        INTERACTIVE_APPS_URL: `${service.url}/ias`,
      },
    }))!;
  });
  after(async () => {
    await gw?.close();
    await service?.close();
  });

  test('signed in and anonymous callers reach the aggregator; instant launches reach their service', async () => {
    const domain = gw.running.gateway.config.uidDomain;
    assert.deepEqual(await gw.ok('alice', 'GET', '/dashboard?limit=3'), { from: 'stand-in' });
    let last = service.requests.at(-1)!;
    assert.equal(last.path, `/dash/users/alice@${domain}`);
    assert.equal(last.query.get('limit'), '3');
    assert.deepEqual(await gw.ok(null, 'GET', '/dashboard'), { from: 'stand-in' });
    last = service.requests.at(-1)!;
    assert.equal(last.path, '/dash/');
    assert.equal(last.query.get('limit'), '8');
    assert.deepEqual(await gw.ok('alice', 'GET', '/instantlaunches'), { from: 'stand-in' });
    assert.equal(service.requests.at(-1)!.path, '/ias/instantlaunches');
  });
});
