// docs/api/apps.md lists the apps-service routes the embedded apps service does not serve yet (they
// answer 501 naming the route; none since pipelines are served). This keeps that list equal to the
// truth, both ways, and checks the 501 a path the service does not serve is answered.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { backendSecretHeader, buildBackendHost } from '../../../src/embedded/host.ts';
import { loadConfig } from '../../../src/config/index.ts';
import type { HTTPMethods } from 'fastify';
import { passthroughRoutes } from '../../../src/routes/index.ts';
import { openStore } from '../../../src/store/database.ts';
import { unservedLiteralRoutes } from '../../../src/backends/apps/index.ts';

type BackendHost = Awaited<ReturnType<typeof buildBackendHost>>;
const secret = 'x'.repeat(20);

/** The literal paths registered only to answer 501 in place of a parameter route (unserved-literal-routes.ts). */
function unservedLiteral(method: string, url: string): boolean {
  return unservedLiteralRoutes.some(
    ([literalMethod, path]) =>
      literalMethod === method &&
      new RegExp(`^/apps${path.replace(/:[A-Za-z]+/g, '[^/]+')}$`).test(url),
  );
}

function documented(): string[] {
  const page = readFileSync(new URL('../../../docs/api/apps.md', import.meta.url), 'utf8');
  const section =
    /<!-- apps-unimplemented:start -->([\s\S]*?)<!-- apps-unimplemented:end -->/.exec(page)?.[1] ??
    '';
  return [...section.matchAll(/^- `([A-Z]+ [^`]+)`$/gm)].map((match) => match[1]!);
}

/** The embedded apps service alone, on a store of its own, for `use`. */
async function withAppsHost(use: (host: BackendHost) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'apps-unimplemented-'));
  const config = loadConfig({ GATEWAY_DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const store = await openStore({ dataDir: dir });
  const host = await buildBackendHost({
    names: ['apps'],
    context: { store, config, notify: async () => true },
    secret,
    logger: pino({ level: 'silent' }),
    bodyLimitBytes: 1e6,
    logRequests: false,
  });
  try {
    await host.ready();
    await use(host);
  } finally {
    await host.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('docs/api/apps.md lists exactly the apps routes the embedded apps service does not serve', async () => {
  await withAppsHost(async (host) => {
    const missing: string[] = [];
    for (const row of passthroughRoutes.filter((candidate) => candidate.backend === 'apps')) {
      const backendPath = row.backendPath ?? row.path;
      for (const method of Array.isArray(row.method) ? row.method : [row.method]) {
        const url = `/apps${backendPath.replace(/\{[^}]+\}/g, 'x1')}`;
        if (!host.findRoute({ method: method as HTTPMethods, url }) || unservedLiteral(method, url))
          missing.push(`${method} ${backendPath}`);
      }
    }
    assert.deepEqual(documented(), missing);
  });
});

test('a path the embedded apps service does not serve answers 501 ERR_NOT_IMPLEMENTED naming it', async () => {
  await withAppsHost(async (host) => {
    const answer = await host.inject({
      method: 'POST',
      url: '/apps/apps/not-a-route/x1/x2/x3',
      headers: { [backendSecretHeader]: secret },
    });
    assert.equal(answer.statusCode, 501);
    const body = answer.json();
    assert.equal(body.error_code, 'ERR_NOT_IMPLEMENTED');
    assert.equal(body.backend, 'apps');
    assert.match(body.reason, /POST \/apps\/apps\/not-a-route\/x1\/x2\/x3/);
    assert.match(body.reason, /APPS_URL/);
  });
});
