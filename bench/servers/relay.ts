// The bare forwarder's relay, shared by forwarder.ts and its floor (forwarder-floor.ts) so that the
// floor is the bare forwarder plus the gateway's work and nothing else: the request body collected,
// one undici call, the answer collected and written in one write.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Pool } from 'undici';

export function relay(
  backend: Pool,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  /** Sent to the backend, and added to the answer: the floor's, none for the bare forwarder. */
  extra?: { requestHeaders: Record<string, string>; answerHeaders: OutgoingHttpHeaders },
): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    backend
      .request({
        method: request.method as 'GET',
        path,
        headers: extra?.requestHeaders,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      })
      .then(async (answer) => {
        const body = Buffer.from(await answer.body.arrayBuffer());
        const headers: OutgoingHttpHeaders = {
          'content-type': String(answer.headers['content-type'] ?? 'application/octet-stream'),
          'content-length': body.length,
        };
        if (extra) Object.assign(headers, extra.answerHeaders);
        response.writeHead(answer.statusCode, headers);
        response.end(body);
      })
      .catch(() => {
        response.writeHead(502).end();
      });
  });
}
