// Tracing in the built gateway as `npm start` runs it (dist/main.js, the bundle, with the
// OpenTelemetry packages left out of it): configured, its request spans reach an OTLP/HTTP
// receiver on loopback with the embedded call and the SQLite statements beneath; not configured,
// the process imports no OpenTelemetry module at all.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, test } from 'node:test';
import { signEmbeddedToken } from '../../src/http/keys.ts';
import { projectDir, startBundle } from '../support/bundle-process.ts';
import { ancestry, startOtlpReceiver } from '../support/otlp-receiver.ts';

const recorder = path.join(projectDir, 'test', 'support', 'record-imports.mjs');

/**
 * Runs `node dist/main.js` (its imports recorded) on a fresh data directory, asks
 * `/secured/bootstrap` as alice, stops it with SIGTERM; answers the status and the modules imported.
 */
async function bundleRun(
  env: Record<string, string>,
): Promise<{ status: number; imported: string[] }> {
  const importsDir = mkdtempSync(path.join(tmpdir(), 'gateway-imports-'));
  const imports = path.join(importsDir, 'imports.txt');
  try {
    const bundled = await startBundle({ RECORD_IMPORTS_FILE: imports, ...env }, [
      '--import',
      recorder,
    ]);
    let status: number;
    try {
      const token = await signEmbeddedToken(bundled.dataDir, { username: 'alice' });
      const answer = await fetch(`${bundled.url}/secured/bootstrap`, {
        headers: { authorization: `Bearer ${token}` },
      });
      await answer.arrayBuffer();
      status = answer.status;
    } finally {
      await bundled.stop();
    }
    return { status, imported: readFileSync(imports, 'utf8').split('\n') };
  } finally {
    rmSync(importsDir, { recursive: true, force: true });
  }
}

const openTelemetry = (url: string) => /@opentelemetry|@fastify\/otel/.test(url);

before(async () => {
  // What `npm start` does: build unless dist/ holds a build of the current sources.
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      ['scripts/build.mjs', '--if-changed'],
      { cwd: projectDir, timeout: 300_000 },
      (error, stdout, stderr) => (error ? reject(new Error(stdout + stderr)) : resolve()),
    ),
  );
});

test('configured, the bundle exports its request spans, and closing flushes them', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const run = await bundleRun({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    assert.equal(run.status, 200);
    assert.ok(run.imported.some(openTelemetry), 'the SDK was imported');
    // The default batch delay (5 s) has not passed: what arrived was sent by the shutdown.
    const spans = receiver.spans;
    const request = spans.find((span) => span.name === 'GET /secured/bootstrap');
    assert.ok(request, 'the request span arrived');
    assert.equal(request.serviceName, 'platform-gateway');
    assert.equal(request.attributes['enduser.id'], 'alice');
    const statement = spans.find(
      (span) =>
        span.attributes['db.system.name'] === 'sqlite' &&
        ancestry(spans, span).some((ancestor) => ancestor.spanId === request.spanId) &&
        ancestry(spans, span).some((ancestor) =>
          String(ancestor.attributes['url.full']).startsWith('http://embedded-backends/'),
        ),
    );
    assert.ok(statement, 'a statement of an embedded call is in the trace');
  } finally {
    await receiver.close();
  }
});

test('not configured, the process imports no OpenTelemetry module', async () => {
  const run = await bundleRun({});
  assert.equal(run.status, 200);
  assert.ok(
    run.imported.some((url) => url.endsWith('/dist/main.js')),
    'imports were recorded',
  );
  assert.deepEqual(run.imported.filter(openTelemetry), []);
});
