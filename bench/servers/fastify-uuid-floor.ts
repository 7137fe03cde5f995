// Bare Fastify's GET /uuid (fastify-uuid.ts) plus the gateway's per-request work written as
// cheaply as it can be (per-request-work.ts), in one onRequest and one onResponse hook: the floor
// for a Fastify server that does the gateway's work on every request.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { keepTickShape } from '../../src/tick-shape.ts';
import { PerRequestWork } from './per-request-work.ts';

// Like the gateway, kept from slowing down after idling while other rows run (src/tick-shape.ts).
keepTickShape();

const work = new PerRequestWork();
const app = Fastify({ logger: false, genReqId: work.requestId });
app.decorateRequest('receivedAt', 0);
app.addHook('onRequest', (request, reply, done) => {
  const [limit, remaining, reset] = work.take(request.ip);
  reply.header('x-request-id', request.id);
  reply.header('ratelimit-limit', limit);
  reply.header('ratelimit-remaining', remaining);
  reply.header('ratelimit-reset', reset);
  done();
});
app.addHook('onResponse', (request, reply, done) => {
  work.finish(
    request.id,
    request.method,
    '/uuid',
    request.url,
    reply.statusCode,
    reply.elapsedTime,
    undefined,
  );
  done();
});
app.get('/uuid', async (_request, reply) =>
  reply.type('text/plain; charset=utf-8').send(randomUUID()),
);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
