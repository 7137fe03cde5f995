// An OTLP/HTTP trace receiver on loopback, standing in for Jaeger or an OpenTelemetry Collector:
// it accepts the JSON exports of @opentelemetry/exporter-trace-otlp-http at /v1/traces and keeps
// their spans, flattened, for tests to read as a tree.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 2: error. */
  statusCode: number;
  serviceName: string;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter posts to `<url>/v1/traces`). */
  url: string;
  spans: ReceivedSpan[];
  /** How many export requests arrived. */
  exports(): number;
  /**
   * Resolves with what `match` finds among the spans received (checked on each export); rejects,
   * naming the spans received, when nothing matched within `limitMs`: a span that never comes
   * fails its test instead of holding the run.
   */
  waitFor<T>(match: (spans: ReceivedSpan[]) => T | undefined, limitMs?: number): Promise<T>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

interface OtlpExport {
  resourceSpans: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans: {
      spans: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

function attributes(list: OtlpAttribute[] = []): ReceivedSpan['attributes'] {
  return Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.doubleValue ??
        value.boolValue ??
        '',
    ]),
  );
}

/** OTLP JSON ids are hex; a base64 id (the protobuf mapping's) is turned into hex as well. */
function hexId(id: string | undefined): string | undefined {
  if (!id) return undefined;
  return /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex');
}

/** Starts a receiver; `status` is what it answers (503 plays a collector that refuses everything). */
export async function startOtlpReceiver(status = 200): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiting = new Set<() => void>();
  let exports = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      exports++;
      if (status === 200) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const resource of body.resourceSpans) {
          const serviceName = String(attributes(resource.resource?.attributes)['service.name']);
          for (const scope of resource.scopeSpans)
            for (const span of scope.spans)
              spans.push({
                traceId: hexId(span.traceId)!,
                spanId: hexId(span.spanId)!,
                parentSpanId: hexId(span.parentSpanId),
                name: span.name,
                kind: span.kind,
                attributes: attributes(span.attributes),
                statusCode: span.status?.code ?? 0,
                serviceName,
              });
        }
      }
      response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiting) wake();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    exports: () => exports,
    waitFor: (match, limitMs = 15_000) =>
      new Promise((resolve, reject) => {
        const limit = setTimeout(() => {
          waiting.delete(check);
          const names = [...new Set(spans.map((span) => span.name))].join(', ');
          reject(new Error(`no matching span within ${limitMs} ms; received: ${names || 'none'}`));
        }, limitMs);
        const check = () => {
          const found = match(spans);
          if (found === undefined) return;
          waiting.delete(check);
          clearTimeout(limit);
          resolve(found);
        };
        waiting.add(check);
        check();
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The chain of spans from `span` up to its trace's root, `span` first. */
export function ancestry(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const chain = [span];
  for (let current = span; current.parentSpanId !== undefined;) {
    const parent = spans.find(
      (candidate) =>
        candidate.spanId === current.parentSpanId && candidate.traceId === span.traceId,
    );
    if (!parent) break;
    chain.push(parent);
    current = parent;
  }
  return chain;
}
