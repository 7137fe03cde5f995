// A bare Fastify route, GET /uuid answering a random UUID as text: what the gateway's own /uuid
// is compared with (Fastify's floor, without the gateway's hooks, logging and metrics).
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { keepTickShape } from '../../src/tick-shape.ts';

// Like the gateway, kept from slowing down after idling while other rows run (src/tick-shape.ts).
keepTickShape();

const app = Fastify({ logger: false });
app.get('/uuid', async (_request, reply) =>
  reply.type('text/plain; charset=utf-8').send(randomUUID()),
);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
