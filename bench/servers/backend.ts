// The benchmark's tiny backend: node:http answering every request with one small JSON document
// (an app's description), in its own process so its CPU is not the gateway's. PORT from the env.
import { createServer } from 'node:http';
import { keepTickShape } from '../../src/tick-shape.ts';

// Like the gateway, kept from slowing down after idling while other rows run (src/tick-shape.ts).
keepTickShape();

const body = JSON.stringify({
  id: '00000000-0000-0000-0000-000000000001',
  name: 'word count',
  description: 'counts words',
});
const length = String(Buffer.byteLength(body));
createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
  response.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
