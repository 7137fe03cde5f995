// The bare forwarder the gateway is compared with: node:http in front, one undici Pool (keep-alive)
// behind, the answer relayed in one write. No auth, no limits, no logging: the floor for a Node proxy.
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { keepTickShape } from '../../src/tick-shape.ts';
import { relay } from './relay.ts';

// Like the gateway, kept from slowing down after idling while other rows run (src/tick-shape.ts).
keepTickShape();

const backend = new Pool(String(process.env.BACKEND_URL), { connections: 64 });
createServer((request, response) => relay(backend, request, response, request.url ?? '/')).listen(
  Number(process.env.PORT),
  '127.0.0.1',
);
