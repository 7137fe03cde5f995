// The build's bundle (scripts/build.mjs: dist/main.js and the chunk modules beside it hold the
// gateway and most packages) serves like the modules it was made from: /openapi.json byte for
// byte what the gateway built from src/ answers, the docs page (from @fastify/swagger-ui, left out
// of the bundle), the same 400 for a body that breaks its schema, and WORKERS=2, whose workers run
// the bundle again.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { signEmbeddedToken } from '../../src/http/keys.ts';
import { projectDir, startBundle, type Bundled } from '../support/bundle-process.ts';
import { noRateLimits, startGateway } from '../support/gateway.ts';

describe('the bundled dist/main.js', () => {
  before(async () => {
    // What `npm start` and `npm ci` do: build unless dist/ holds a build of the current sources.
    const built = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['scripts/build.mjs', '--if-changed'],
        { cwd: projectDir, timeout: 300_000 },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, output: stdout + stderr }),
      );
    });
    assert.equal(built.code, 0, built.output);
  });

  let bundled: Bundled;
  before(async () => {
    bundled = await startBundle();
  });
  after(() => bundled.stop());

  test('answers the OpenAPI document of the modules, the docs page and schema refusals', async () => {
    const fromSources = await startGateway();
    try {
      const [bundledDocument, sourceDocument] = await Promise.all(
        [bundled.url, fromSources.url].map(async (url) =>
          (await fetch(`${url}/openapi.json`)).text(),
        ),
      );
      assert.ok((bundledDocument ?? '').length > 100_000);
      assert.equal(bundledDocument, sourceDocument);
    } finally {
      await fromSources.close();
    }
    const docs = await fetch(`${bundled.url}/docs/`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /swagger-ui/i);

    const token = await signEmbeddedToken(bundled.dataDir, { username: 'carol' });
    const refused = await fetch(`${bundled.url}/secured/notifications/seen`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"uuids": {"not": "a list"}}',
    });
    assert.equal(refused.status, 400);
    const body = (await refused.json()) as Record<string, unknown>;
    assert.deepEqual([body.error_code, body.field], ['ERR_BAD_OR_MISSING_FIELD', 'uuids']);
  });

  test('WORKERS=2: the workers run the bundle and answer', async () => {
    const cluster = await startBundle({ ...noRateLimits, WORKERS: '2' });
    try {
      // A worker answers once it listens: new connections reach the next worker, until both have.
      const workers = new Set<string>();
      const deadline = Date.now() + 60_000;
      while (workers.size < 2 && Date.now() < deadline) {
        const answer = await fetch(`${cluster.url}/uuid`, { headers: { connection: 'close' } });
        assert.equal(answer.status, 200);
        workers.add(answer.headers.get('x-gateway-worker') ?? '');
      }
      assert.deepEqual([...workers].sort(), ['1', '2']);
    } finally {
      await cluster.stop();
    }
  });
});
