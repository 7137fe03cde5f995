// Tracing across the gateway's edges (docs/operations.md, "Tracing"), its spans received at an
// OTLP/HTTP receiver on loopback: a client's `traceparent` is continued (same trace, the client's
// span as parent), and a remote backend gets the `traceparent` of the gateway's call span, one
// header, never the client's; rate limiting's Redis commands (REDIS_URL) and a live notification's
// AMQP publish are spans of the request's trace. A sampler that keeps nothing exports nothing, and a
// collector that is down costs the spans, not the requests, with one warning.
// test: own process. Tracing registers OpenTelemetry's tracer provider and instrumentations for
// the whole process, and they patch only the modules loaded after them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { signEmbeddedToken } from '../../src/http/keys.ts';
import { startBackend, type TestBackend } from '../support/backend.ts';
import {
  noRateLimits,
  requiredInCi,
  startGateway,
  type RunningGateway,
} from '../support/gateway.ts';
import {
  ancestry,
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../support/otlp-receiver.ts';

/**
 * A request over node:http, which no instrumentation follows (the test's own `fetch` would be
 * undici's, traced in this process, and add a `traceparent` of its own).
 */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
    });
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    outgoing.end(options.body);
  });
}

/**
 * The local RabbitMQ (as test/support/amqp-consumer.ts has it, not imported: that would load
 * amqplib before the gateway's instrumentation, which patches amqplib's files as they load).
 */
const rabbitUri = process.env.AMQP_TEST_URI ?? 'amqp://guest:guest@127.0.0.1:5672';

const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
const clientSpan = '00f067aa0ba902b7';
const traceparent = `00-${clientTrace}-${clientSpan}-01`;

const inTrace = (
  spans: ReceivedSpan[],
  root: ReceivedSpan,
  match: (span: ReceivedSpan) => boolean,
) =>
  spans.find(
    (span) =>
      match(span) && ancestry(spans, span).some((ancestor) => ancestor.spanId === root.spanId),
  );

describe('trace context across the gateway', () => {
  let receiver: OtlpReceiver;
  let backend: TestBackend;
  let running: RunningGateway;
  let token: string;
  const redisUrl = requiredInCi('REDIS_URL');
  const exchange = `test-tracing-${randomUUID()}`;
  before(async () => {
    receiver = await startOtlpReceiver();
    backend = await startBackend();
    running = await startGateway({
      ...noRateLimits,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '1',
      USER_INFO_URL: backend.url,
      AMQP_URI: rabbitUri,
      AMQP_EXCHANGE: exchange,
      ...(redisUrl ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `tracing-${randomUUID()}:` } : {}),
    });
    token = await signEmbeddedToken(running.dataDir, { username: 'alice' });
  });
  after(async () => {
    await running?.close();
    await backend?.close();
    await receiver?.close();
  });

  test("a client's traceparent is continued, and the remote backend gets the call's own", async () => {
    const answer = await send(`${running.url}/secured/sessions`, {
      headers: { authorization: `Bearer ${token}`, traceparent, tracestate: 'client=1' },
    });
    assert.equal(answer.status, 200, answer.text);
    const [request, call] = await receiver.waitFor((spans) => {
      const request = spans.find((span) => span.name === 'GET /secured/sessions');
      const call =
        request &&
        inTrace(spans, request, (span) =>
          String(span.attributes['url.full']).startsWith(backend.url),
        );
      return call ? ([request, call] as const) : undefined;
    });
    assert.equal(request.traceId, clientTrace);
    assert.equal(request.parentSpanId, clientSpan);
    assert.equal(request.attributes['enduser.id'], 'alice');
    const received = backend.requests.at(-1)!.headers;
    assert.equal(received.traceparent, `00-${clientTrace}-${call.spanId}-01`);
    assert.equal(received.tracestate, 'client=1', 'the trace state travels with the trace');
  });

  test("rate limiting's Redis commands are spans of the request", async (t) => {
    if (!redisUrl) return t.skip('REDIS_URL is not set (CI sets it)');
    await send(`${running.url}/secured/sessions`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const command = await receiver.waitFor((spans) =>
      spans.find(
        (span) =>
          span.attributes['db.system.name'] === 'redis' &&
          ancestry(spans, span).some((ancestor) => ancestor.name === 'GET /secured/sessions'),
      ),
    );
    assert.equal(command.kind, 3);
  });

  test('a live notification’s AMQP publish is a span of the request that recorded it', async () => {
    const subject = `traced ${randomUUID()}`;
    const answer = await send(`${running.url}/send-notification`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'data', user: 'alice', subject }),
    });
    assert.equal(answer.status, 200, answer.text);
    const publish = await receiver.waitFor((spans) =>
      spans.find(
        (span) =>
          span.name === `publish ${exchange}` &&
          ancestry(spans, span).some((ancestor) => ancestor.name === 'POST /send-notification'),
      ),
    );
    assert.equal(publish.attributes['messaging.rabbitmq.routing_key'], 'notification.alice');
  });
});

describe('what is exported', () => {
  test('a sampler that keeps nothing exports nothing', async () => {
    const receiver = await startOtlpReceiver();
    const running = await startGateway({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    const token = await signEmbeddedToken(running.dataDir, { username: 'alice' });
    for (let i = 0; i < 3; i++)
      assert.equal(
        (
          await send(`${running.url}/secured/bootstrap`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).status,
        200,
      );
    // Closing flushes whatever was kept.
    await running.close();
    assert.equal(receiver.exports(), 0);
    await receiver.close();
  });

  test('a collector that is down costs the spans, not the requests: one warning', async () => {
    // A port nothing listens on.
    const vacant = createServer();
    await new Promise<void>((resolve) => vacant.listen(0, '127.0.0.1', resolve));
    const { port } = vacant.address() as { port: number };
    await new Promise((resolve) => vacant.close(resolve));
    const lines: Record<string, unknown>[] = [];
    let warn: () => void = () => {};
    const warned = new Promise<void>((resolve) => (warn = resolve));
    const logStream = {
      write(line: string) {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        lines.push(parsed);
        if (String(parsed.msg).startsWith('spans could not be exported')) warn();
      },
    };
    const running = await startGateway(
      {
        LOG_LEVEL: 'warn',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_BSP_SCHEDULE_DELAY: '1',
      },
      { logStream },
    );
    const token = await signEmbeddedToken(running.dataDir, { username: 'alice' });
    const headers = { authorization: `Bearer ${token}` };
    assert.equal((await send(`${running.url}/secured/bootstrap`, { headers })).status, 200);
    await warned;
    // More exports fail after the warning; the requests are still answered.
    for (let i = 0; i < 3; i++)
      assert.equal((await send(`${running.url}/secured/bootstrap`, { headers })).status, 200);
    await running.close();
    const warnings = lines.filter((line) =>
      String(line.msg).startsWith('spans could not be exported'),
    );
    assert.equal(warnings.length, 1);
  });
});
