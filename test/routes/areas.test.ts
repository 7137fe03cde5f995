// The route areas (src/routes/index.ts): every route the gateway serves carries a tag of the area
// that registered it, every tag of tags.ts belongs to exactly one area, and the area list is what
// app.ts registers: the gateway documents exactly the areas' routes (and its OpenAPI document).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type RouteOptions } from 'fastify';
import { registerAreas, type Area, type GatewayParts } from '../../src/routes/shared/area.ts';
import { areas } from '../../src/routes/index.ts';
import { allTags } from '../../src/routes/shared/tags.ts';
import { startGateway, type RunningGateway } from '../support/gateway.ts';

interface RegisteredRoute {
  method: string;
  url: string;
  tags: string[];
  /** Hidden from the OpenAPI document: `schema.hide`, or the HEAD route Fastify adds to a GET. */
  hidden: boolean;
}

/** The routes `registerAreas` adds for these areas alone, on an app of their own. */
async function routesOf(list: readonly Area[], parts: GatewayParts): Promise<RegisteredRoute[]> {
  const app = Fastify();
  const routes: RegisteredRoute[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as { tags?: string[]; hide?: boolean } | undefined;
    const addedHead = route.method === 'HEAD';
    for (const method of [route.method].flat())
      routes.push({
        method,
        url: route.url!,
        tags: schema?.tags ?? [],
        hidden: !!schema?.hide || addedHead,
      });
  });
  try {
    await registerAreas(app, list, parts);
    await app.ready();
  } finally {
    await app.close();
  }
  return routes;
}

/** `/apps/:systemId` → `/apps/{systemId}`, the form the OpenAPI document uses. */
/** A route's URL as the OpenAPI document writes it: `:name` → `{name}`, a trailing `*` → `{*}`. */
const documentPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{*}');

describe('route areas', () => {
  let running: RunningGateway;
  let parts: GatewayParts;
  const routesByArea = new Map<string, RegisteredRoute[]>();

  before(async () => {
    running = await startGateway();
    const { forwarder, config, store, metrics, identity } = running.gateway;
    parts = {
      forwarder,
      config,
      store,
      metrics,
      remoteBackends: [],
      ...(identity ? { identityProvider: identity } : {}),
    };
    for (const area of areas) routesByArea.set(area.name, await routesOf([area], parts));
  });
  after(() => running.close());

  test('every tag of tags.ts belongs to exactly one area, and areas have names of their own', () => {
    for (const tag of allTags) {
      const owners = areas.filter((area) => area.tags.includes(tag)).map((area) => area.name);
      assert.equal(owners.length, 1, `tag ${tag} belongs to ${JSON.stringify(owners)}`);
    }
    const names = areas.map((area) => area.name);
    assert.equal(new Set(names).size, names.length);
  });

  test('every route an area registers carries one of its tags, and every area registers routes', () => {
    for (const area of areas) {
      const routes = routesByArea.get(area.name)!;
      assert.ok(routes.length > 0, `area ${area.name} registers no route`);
      for (const route of routes) {
        assert.ok(route.tags.length > 0, `${route.method} ${route.url} has no tag`);
        for (const tag of route.tags)
          assert.ok(
            area.tags.includes(tag as (typeof area.tags)[number]),
            `${route.method} ${route.url} of area ${area.name} carries ${tag}`,
          );
      }
    }
  });

  test('an area whose route carries a tag of another area is refused at registration', async () => {
    const stray: Area = {
      name: 'bags',
      tags: ['bags'],
      passthroughs: [],
      plugin: async (app) => {
        app.get('/stray', { schema: { tags: ['misc'] } }, async () => 'stray');
      },
    };
    await assert.rejects(
      routesOf([stray], parts),
      /GET \/stray of area bags carries tags \["misc"\]/,
    );
  });

  test('the gateway serves every route of every area, and documents no other', async () => {
    const app = running.gateway.app;
    const documentedByAreas = new Set<string>();
    for (const routes of routesByArea.values())
      for (const route of routes) {
        assert.ok(
          app.hasRoute({ method: route.method as 'GET', url: route.url }),
          `the gateway does not serve ${route.method} ${route.url}`,
        );
        if (!route.hidden) documentedByAreas.add(`${route.method} ${documentPath(route.url)}`);
      }
    const response = await fetch(`${running.url}/openapi.json`);
    const document = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    documented.delete('GET /openapi.json');
    assert.deepEqual([...documented].sort(), [...documentedByAreas].sort());
  });
});
