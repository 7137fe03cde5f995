// A stand-in backend for gateway tests: a real HTTP server on a loopback port that records every
// request it gets (method, path, query, headers, body) and answers as the test says (default: echo).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type BackendHandler = (
  request: RecordedRequest,
  response: ServerResponse,
) => void | Promise<void>;

export interface TestBackend {
  url: string;
  requests: RecordedRequest[];
  /** Replaces how the backend answers (default: 200 JSON echo of method, path and query). */
  handle(handler: BackendHandler): void;
  close(): Promise<void>;
}

export const echo: BackendHandler = (request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      method: request.method,
      path: request.path,
      query: Object.fromEntries(
        [...new Set(request.query.keys())].map((key) => [key, request.query.getAll(key)]),
      ),
      bodyBytes: request.body.length,
    }),
  );
};

/** A real HTTP server standing in for a backend service; it records what the gateway sent. */
export async function startBackend(
  handler: BackendHandler = echo,
  options: { recordBody?: boolean } = {},
): Promise<TestBackend> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    if (options.recordBody !== false) for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://backend');
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    requests.push(recorded);
    try {
      await current(recorded, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
