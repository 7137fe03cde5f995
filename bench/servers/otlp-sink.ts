// A collector that accepts every OTLP/HTTP export and discards it: what the gateway's tracing rows
// of `npm run bench` export to, so that they time the gateway's side of tracing alone.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 4318);

createServer((request, response) => {
  // Read to the end (the exporter waits for the answer), then drop it.
  request.resume();
  request.on('end', () =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
  );
}).listen(port, '127.0.0.1');
