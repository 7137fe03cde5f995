// OpenTelemetry tracing (docs/operations.md, "Tracing"), its spans received at an OTLP/HTTP
// receiver on loopback, on each engine: a request is a server span named by its route, with its
// status and user; each backend call it makes, embedded here, is a client span beneath it, the
// embedded service's own request span beneath that, and the database statements beneath those
// (SQLite's hand-made, PostgreSQL's from the pg instrumentation); an upload's bytes are a blob
// write; an analysis launch is one trace from the launch request to the executor's step, which
// runs after the request was answered.
// test: own process. Tracing registers OpenTelemetry's tracer provider and instrumentations for
// the whole process, and they patch only the modules loaded after them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../src/backends/apps/catalog/built-in.ts';
import { endedAnalysis } from '../support/analyses.ts';
import { startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';
import { requiredInCi } from '../support/gateway.ts';
import {
  ancestry,
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../support/otlp-receiver.ts';

const wordCount = builtInApps.find((app) => app.name === 'Word count')!;
const server = 2;
const client = 3;

/** A span of the trace below `root` (`root` among its ancestors) that `match` accepts. */
const below = (spans: ReceivedSpan[], root: ReceivedSpan, match: (span: ReceivedSpan) => boolean) =>
  spans.find(
    (span) =>
      span !== root &&
      match(span) &&
      ancestry(spans, span).some((ancestor) => ancestor.spanId === root.spanId),
  );

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`tracing on ${engine}`, () => {
    let receiver: OtlpReceiver;
    let gw: MetadataGateway | undefined;
    before(async () => {
      receiver = await startOtlpReceiver();
      gw = await startMetadataGateway({
        engine,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_SERVICE_NAME: `gateway-under-test-${engine}`,
          // Spans leave as soon as they end: the tests wait for them, not for a batch's timer.
          OTEL_BSP_SCHEDULE_DELAY: '1',
        },
      });
    });
    after(async () => {
      await gw?.close();
      await receiver?.close();
    });
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');
    const statement = (span: ReceivedSpan) =>
      span.attributes['db.system.name'] === (engine === 'sqlite' ? 'sqlite' : 'postgresql');

    test('a request: its span, the embedded call beneath it and that call’s statements', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      assert.equal((await gw!.call('alice', 'GET', '/secured/bootstrap')).status, 200);
      const [request, call, embedded, query] = await receiver.waitFor((spans) => {
        const request = spans.find(
          (span) => span.name === 'GET /secured/bootstrap' && span.kind === server,
        );
        const call =
          request &&
          below(
            spans,
            request,
            (span) =>
              span.kind === client &&
              /^http:\/\/embedded-backends\/apps\//.test(String(span.attributes['url.full'])),
          );
        const embedded = call && spans.find((span) => span.parentSpanId === call.spanId);
        const query = embedded && below(spans, embedded, statement);
        return query ? ([request, call, embedded, query] as const) : undefined;
      });
      assert.equal(request.serviceName, `gateway-under-test-${engine}`);
      assert.equal(request.attributes['http.route'], '/secured/bootstrap');
      assert.equal(request.attributes['http.response.status_code'], 200);
      assert.equal(request.attributes['enduser.id'], 'alice');
      assert.equal(call.attributes['http.response.status_code'], 200);
      assert.equal(
        String(call.attributes['url.full']).includes('?'),
        false,
        'a backend call’s span leaves out its identity parameters',
      );
      assert.equal(embedded.kind, server);
      assert.match(embedded.name, /^(GET|POST) \/apps\//);
      assert.ok(String(query.attributes['db.query.text']).length > 0);
      assert.equal(new Set([request, call, embedded, query].map((span) => span.traceId)).size, 1);
    });

    test('an upload’s bytes are a blob write in the upload’s trace', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw!.uploadThroughGateway('alice', gw!.home('alice'), 'traced.txt', 'twelve bytes');
      const write = await receiver.waitFor((spans) => {
        const request = spans.find((span) => span.name === 'POST /secured/fileio/upload');
        return request && below(spans, request, (span) => span.name === 'blob write');
      });
      assert.equal(write.attributes['blob.store'], 'file');
      assert.equal(write.attributes['blob.size'], 12);
    });

    test('an analysis launch is one trace from the request to the executor step', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw!.upload('alice', gw!.home('alice'), 'words.txt', 'one two three');
      const input = wordCount.definition.groups
        .flatMap((group) => group.parameters)
        .find((parameter) => parameter.name === 'input')!;
      const launched = await gw!.ok('alice', 'POST', '/analyses', {
        json: {
          system_id: 'de',
          app_id: wordCount.id,
          name: 'traced count',
          output_dir: gw!.home('alice'),
          config: {
            [`${wordCount.definition.steps[0]!.id}_${input.id}`]: `${gw!.home('alice')}/words.txt`,
          },
        },
      });
      assert.equal((await endedAnalysis(gw!, 'alice', launched.id)).status, 'Completed');
      const [launch, step] = await receiver.waitFor((spans) => {
        const step = spans.find(
          (span) => span.name === 'executor step' && span.attributes['analysis.id'] === launched.id,
        );
        const launch =
          step &&
          ancestry(spans, step).find(
            (span) => span.name === 'POST /analyses' && span.attributes['enduser.id'] === 'alice',
          );
        return launch ? ([launch, step] as const) : undefined;
      });
      assert.equal(step.traceId, launch.traceId);
      assert.equal(step.attributes['analysis.executor'], 'built-in word-count');
      assert.equal(step.statusCode, 0);
    });
  });
}
