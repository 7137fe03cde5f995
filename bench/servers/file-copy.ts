// The bare stream copy the gateway's uploads and downloads are compared with (`npm run bench:files`):
// node:http piping a request body into a file and a file back out with createReadStream, nothing
// else. PORT and FILE_DIR from the env. `PUT /file` stores the body (`?fsync=1`: fsynced before the
// answer, which then says how long the fsync took), `GET /file` serves it, `DELETE /file` removes it.
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const file = path.join(String(process.env.FILE_DIR), 'bare-copy.bin');

async function store(request: IncomingMessage, fsync: boolean) {
  const sink = createWriteStream(file);
  await pipeline(request, sink);
  if (!fsync) return { size: sink.bytesWritten, fsyncMs: 0 };
  // fsync is of the file, whichever descriptor asks: the copy itself stays the plain one above.
  const started = performance.now();
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { size: sink.bytesWritten, fsyncMs: performance.now() - started };
}

createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://bench');
  const answer = (status: number, body: unknown) => {
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    response.end(text);
  };
  const failed = (error: unknown) => answer(500, { error: String(error) });
  if (url.pathname !== '/file') return answer(404, { error: 'only /file' });
  switch (request.method) {
    case 'PUT':
      store(request, url.searchParams.get('fsync') === '1').then(
        (stored) => answer(200, stored),
        failed,
      );
      return;
    case 'GET':
      stat(file).then((info) => {
        response.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-length': info.size,
        });
        pipeline(createReadStream(file), response).catch(() => response.destroy());
      }, failed);
      return;
    case 'DELETE':
      rm(file, { force: true }).then(() => answer(200, {}), failed);
      return;
    default:
      answer(405, { error: 'PUT, GET or DELETE' });
  }
}).listen(Number(process.env.PORT), '127.0.0.1');
