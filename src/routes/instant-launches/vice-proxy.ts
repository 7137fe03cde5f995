// Tag vice: an interactive session (VICE) reached through the gateway at `/vice/{host}/...`, by its
// analysis's owner and those it is shared with (`read`), never by anyone else (404, as for a
// session that does not exist). The interactive-apps service says where the session listens
// (`GET /vice/{host}/target`: the embedded one answers a loopback URL); the request goes there
// with the path after the host, its body streamed, without the caller's token. A WebSocket upgrade
// takes the same route (and the same checks), then the two sockets are joined.
import { IncomingMessage, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { request as upstream } from 'undici';
import { hasBody } from '../../common/request-body.ts';
import { ErrorAnswer } from '../../common/error-replies.ts';
import { requestBody } from '../../http/connection-limits.ts';
import { endToEndHeaders } from '../../http/end-to-end-headers.ts';
import { routeSecurity } from '../../http/openapi.ts';
import type { AreaDeps } from '../shared/area.ts';

/** The caller's credentials stop at the gateway: the session gets none of them. */
const withheld = new Set(['authorization', 'x-vendor-de-jwt', 'x-backend-secret']);

type SessionParams = { Params: { host: string; '*': string } };

/** The upgrade requests in flight: their socket and the bytes read past their head. */
const upgrades = new WeakMap<IncomingMessage, { socket: Duplex; head: Buffer }>();

/** The path and query the session gets: what follows `/vice/{host}`. */
function sessionPath(request: FastifyRequest<SessionParams>): string {
  const query = request.raw.url?.split('?')[1];
  return `/${request.params['*'] ?? ''}${query ? `?${query}` : ''}`;
}

/** Joins the client's upgraded socket to the session: the request head re-sent, then raw bytes. */
function tunnel(
  request: FastifyRequest<SessionParams>,
  client: { socket: Duplex; head: Buffer },
  target: URL,
): void {
  const session: Socket = connect({ host: target.hostname, port: Number(target.port) });
  const headers = Object.entries(request.headers).filter(
    ([name]) => !withheld.has(name) && name !== 'host',
  );
  const lines = [
    `${request.method} ${sessionPath(request)} HTTP/1.1`,
    `host: ${target.host}`,
    ...headers.flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).map((each) => `${name}: ${each ?? ''}`),
    ),
  ];
  session.once('connect', () => {
    session.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (client.head.length > 0) session.write(client.head);
    client.socket.pipe(session).pipe(client.socket);
  });
  const close = () => {
    session.destroy();
    client.socket.destroy();
  };
  session.once('error', () => {
    if (client.socket.writable)
      client.socket.end(
        'HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n',
      );
    close();
  });
  session.once('close', close);
  client.socket.once('close', close);
  client.socket.once('error', close);
}

export async function viceProxyRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  const { forwarder } = deps;

  // Upgrade requests go through the routes like any other (auth, limits, this route's checks):
  // their socket is kept aside for the tunnel, and an answer that is not an upgrade ends it.
  app.server.on('upgrade', (raw: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    upgrades.set(raw, { socket, head });
    const response = new ServerResponse(raw);
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.once('finish', () => socket.end());
    app.routing(raw, response);
  });

  /** Where the session listens, if the caller may reach it (the backend's 404 otherwise). */
  const targetOf = async (request: FastifyRequest<SessionParams>) => {
    const answer = await forwarder.callJson<{ url: string }>(
      'interactive-apps',
      {
        method: 'GET',
        path: `/vice/${encodeURIComponent(request.params.host)}/target`,
        identity: request.identity,
        identityStyle: 'user',
      },
      request.id,
    );
    return new URL(answer.url);
  };

  const proxy = async (request: FastifyRequest<SessionParams>, reply: FastifyReply) => {
    const target = await targetOf(request);
    const upgrade = upgrades.get(request.raw);
    if (upgrade) {
      upgrades.delete(request.raw);
      reply.hijack();
      tunnel(request, upgrade, target);
      return reply;
    }
    const headers = endToEndHeaders(request.headers, withheld);
    headers.host = target.host;
    const answer = await upstream(new URL(sessionPath(request), target), {
      method: request.method as 'GET',
      headers,
      body:
        request.method !== 'GET' && request.method !== 'HEAD' && hasBody(request)
          ? requestBody(request)
          : null,
    });
    reply.code(answer.statusCode);
    reply.headers(endToEndHeaders(answer.headers));
    return reply.send(answer.body);
  };

  await app.register(async (streamed) => {
    // The session reads the body itself, whatever its type.
    streamed.removeAllContentTypeParsers();
    streamed.addContentTypeParser('*', (_request, _payload, done) => done(null));
    streamed.route<SessionParams>({
      method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: '/vice/:host/*',
      config: {
        auth: 'user',
        // Whatever the session's program takes and answers: any body, any content type.
        openapi: {
          // Optional (`nullable`: a GET has none), of any type (`consumes`).
          body: { description: "The session program's own request, relayed", nullable: true },
          response: {
            200: {
              description: "The session program's own answer, relayed",
              content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
            },
          },
        },
      },
      schema: {
        tags: ['vice'],
        summary:
          "An interactive session's own pages and API, WebSocket upgrades included (its owner and those it is shared with)",
        security: routeSecurity('user'),
        consumes: ['*/*'],
        params: Type.Object({ host: Type.String(), '*': Type.String() }),
        response: { 404: ErrorAnswer },
      },
      handler: proxy,
    });
  });
}
