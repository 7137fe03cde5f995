// The bare forwarder the gateway is compared with: node:http in front, one undici Pool (keep-alive)
// behind, the answer relayed in one write. No auth, no limits, no logging: the floor for a Node proxy.
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { keepTickShape } from '../../src/tick-shape.js';

// Like the gateway, kept from slowing down after idling while other rows run (src/tick-shape.ts).
keepTickShape();

const backend = new Pool(String(process.env.BACKEND_URL), { connections: 64 });
createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    backend
      .request({
        method: request.method as 'GET',
        path: request.url ?? '/',
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      })
      .then(async (answer) => {
        const body = Buffer.from(await answer.body.arrayBuffer());
        response.writeHead(answer.statusCode, {
          'content-type': String(answer.headers['content-type'] ?? 'application/octet-stream'),
          'content-length': body.length,
        });
        response.end(body);
      })
      .catch(() => {
        response.writeHead(502).end();
      });
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
