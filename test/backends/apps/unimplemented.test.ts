// docs/api/apps.md lists the apps-service routes the embedded apps service does not serve yet (they
// answer 501 naming the route). This keeps that list equal to the truth, both ways.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { buildBackendHost } from '../../../src/embedded/host.js';
import { loadConfig } from '../../../src/config.js';
import type { HTTPMethods } from 'fastify';
import { passthroughRoutes } from '../../../src/routes/index.js';
import { openStore } from '../../../src/store/database.js';
import { unservedLiteralRoutes } from '../../../src/backends/apps/index.js';
import { startMetadataGateway } from '../../support/metadata-gateway.js';

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

test('docs/api/apps.md lists exactly the apps routes the embedded apps service does not serve', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'apps-unimplemented-'));
  const config = loadConfig({ GATEWAY_DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const store = await openStore({ dataDir: dir });
  const host = await buildBackendHost({
    names: ['apps'],
    context: { store, config, notify: async () => true },
    secret: 'x'.repeat(20),
    logger: pino({ level: 'silent' }),
    bodyLimitBytes: 1e6,
    logRequests: false,
  });
  try {
    await host.ready();
    const missing: string[] = [];
    for (const row of passthroughRoutes.filter((candidate) => candidate.backend === 'apps')) {
      const backendPath = row.backendPath ?? row.path;
      for (const method of Array.isArray(row.method) ? row.method : [row.method]) {
        const url = `/apps${backendPath.replace(/\{[^}]+\}/g, 'x1')}`;
        if (!host.findRoute({ method: method as HTTPMethods, url }) || unservedLiteral(method, url))
          missing.push(`${method} ${backendPath}`);
      }
    }
    assert.ok(missing.length > 0);
    assert.deepEqual(documented(), missing);
  } finally {
    await host.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unserved apps route answers 501 ERR_NOT_IMPLEMENTED naming the route', async () => {
  const gw = (await startMetadataGateway())!;
  try {
    // Any route still listed whose path has no parameter to fill in.
    const [method, route] = documented()
      .find((entry) => !entry.includes('{'))!
      .split(' ') as [string, string];
    const answer = await gw.call('alice', method, route);
    assert.equal(answer.status, 501);
    assert.equal(answer.body.error_code, 'ERR_NOT_IMPLEMENTED');
    assert.match(answer.body.reason, new RegExp(`${method} /apps${route}`));
    assert.match(answer.body.reason, /APPS_URL/);
  } finally {
    await gw.close();
  }
});
