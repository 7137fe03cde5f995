import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { FastifyPluginAsync } from 'fastify';
import { requireUserParam } from '../../common/query-params.ts';
import type { OpenBlob } from './blob-store.ts';
import type { DataObject } from './object-index.ts';
import { idFromParams, objectById, requireFile } from './ids.ts';
import { badParameter, integerParam, missingParameter, single } from './query.ts';
import type { Caller, DataStore } from './store.ts';
import { visibilityOf } from './visibility.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Reading a file piece by piece (backends.md §2.1, §2.7): raw chunks by byte position, and
 * tabular chunks by page, where page N holds the rows that start within bytes
 * [(N-1)·size, N·size). Both answer every number as a string, as the reference service does.
 */

/** Largest chunk served in one answer (it is held in memory and sent as JSON). */
export const MAX_CHUNK_BYTES = 16 * 1024 * 1024;

async function readableFile(
  data: DataStore,
  user: string,
  id: unknown,
): Promise<{ caller: Caller; object: DataObject; blob: OpenBlob }> {
  const caller = await data.caller(user);
  const object = await objectById(data, id);
  requireFile(object);
  await visibilityOf(data).requireRead(caller, object);
  return { caller, object, blob: await data.content(object) };
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The separator as sent: URL-encoded once more by some callers (`%09`), decoded here; `,` by default. */
function separatorOf(query: unknown): string {
  const raw = single(query, 'separator');
  if (raw === undefined || raw === '') return ',';
  let separator = raw;
  if (/%[0-9a-f]{2}/i.test(raw)) {
    try {
      separator = decodeURIComponent(raw);
    } catch {
      throw badParameter('separator', 'is not validly URL-encoded', raw);
    }
  }
  if (
    separator === '' ||
    separator.includes('"') ||
    separator.includes('\r') ||
    [...separator].length > 4
  ) {
    throw badParameter(
      'separator',
      'must be one to four characters other than a double quote or carriage return',
      raw,
    );
  }
  return separator;
}

interface TabularPage {
  rows: Record<string, string>[];
  maxCols: number;
  bytes: number;
}

/**
 * Parses the rows that start in [start, end) from a stream that begins at a row boundary `start`.
 * Stops reading as soon as a row starts at or past `end`.
 */
async function readRows(
  stream: Readable,
  start: number,
  end: number,
  separator: string,
): Promise<TabularPage> {
  // A newline separator means one column per line: no character of the file splits columns.
  const delimiter = separator === '\n' ? '\u0000' : separator;
  const parser = parse({
    delimiter,
    info: true,
    bom: start === 0,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    max_record_size: MAX_CHUNK_BYTES,
    ...(separator === '\n' ? { quote: false } : {}),
  });
  stream.on('error', (error) => parser.destroy(error));
  stream.pipe(parser);
  const rows: Record<string, string>[] = [];
  let maxCols = 0;
  let consumed = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { bytes: number };
    }>) {
      if (start + consumed >= end) break;
      rows.push(Object.fromEntries(record.map((value, index) => [String(index), value])));
      maxCols = Math.max(maxCols, record.length);
      consumed = info.bytes;
    }
  } catch (error) {
    throw gatewayError(
      'ERR_ILLEGAL_ARGUMENT',
      `the file cannot be read as separated values: ${(error as Error).message}`,
      {},
    );
  } finally {
    stream.unpipe(parser);
    stream.destroy();
    parser.destroy();
  }
  return { rows, maxCols, bytes: consumed };
}

/** GET /data/{id}/chunks and /data/{id}/chunks-tabular. */
export const chunkRoutes: FastifyPluginAsync<{ data: DataStore }> = async (app, { data }) => {
  app.get('/data/:id/chunks', async (request) => {
    const user = requireUserParam(request.query);
    const position = integerParam(request.query, 'position', 0, Number.MAX_SAFE_INTEGER) ?? 0;
    const size = integerParam(request.query, 'size', 1, MAX_CHUNK_BYTES);
    if (size === undefined) throw missingParameter('size');
    const { caller, object, blob } = await readableFile(data, user, idFromParams(request.params));
    let bytes: Buffer = Buffer.alloc(0);
    if (position < blob.size) {
      bytes = await collect(
        blob.stream({ start: position, end: Math.min(position + size, blob.size) - 1 }),
      );
    } else {
      await blob.close();
    }
    return {
      path: object.path,
      user: caller.name,
      start: String(position),
      'chunk-size': String(bytes.length),
      'file-size': String(blob.size),
      chunk: bytes.toString('utf8'),
    };
  });

  app.get('/data/:id/chunks-tabular', async (request) => {
    const user = requireUserParam(request.query);
    const separator = separatorOf(request.query);
    const page = integerParam(request.query, 'page', 1, Number.MAX_SAFE_INTEGER) ?? 1;
    const size = integerParam(request.query, 'size', 1, MAX_CHUNK_BYTES);
    if (size === undefined) throw missingParameter('size');
    const { caller, object, blob } = await readableFile(data, user, idFromParams(request.params));
    const pages = Math.ceil(blob.size / size);
    if (page > Math.max(pages, 1)) {
      await blob.close();
      throw badParameter(
        'page',
        `must be at most ${Math.max(pages, 1)} (the file has ${pages} page(s) of ${size} bytes)`,
        String(page),
      );
    }
    const pageStart = (page - 1) * size;
    const pageEnd = Math.min(page * size, blob.size);
    let result: TabularPage = { rows: [], maxCols: 0, bytes: 0 };
    if (blob.size > 0) {
      // The first row of the page starts just past the first newline at or after pageStart - 1.
      let rowStart = 0;
      let reader = blob;
      if (pageStart > 0) {
        rowStart = await firstRowStart(blob, pageStart);
        reader = await data.content(object);
      }
      if (rowStart < pageEnd) {
        result = await readRows(
          reader.stream({ start: rowStart, end: reader.size - 1 }),
          rowStart,
          pageEnd,
          separator,
        );
      } else {
        await reader.close();
      }
    } else {
      await blob.close();
    }
    return {
      path: object.path,
      user: caller.name,
      page: String(page),
      'number-pages': String(pages),
      'max-cols': String(result.maxCols),
      'chunk-size': String(result.bytes),
      'file-size': String(blob.size),
      csv: result.rows,
    };
  });
};

/** Scans from pageStart - 1 for a newline; the row after it is the page's first. Consumes `blob`. */
async function firstRowStart(blob: OpenBlob, pageStart: number): Promise<number> {
  const stream = blob.stream({ start: pageStart - 1, end: blob.size - 1 });
  let offset = pageStart - 1;
  try {
    for await (const chunk of stream) {
      const index = (chunk as Buffer).indexOf(0x0a);
      if (index >= 0) return offset + index + 1;
      offset += (chunk as Buffer).length;
    }
    return blob.size;
  } finally {
    stream.destroy();
  }
}
