// Tag data: metadata and files (routes.md §13): saving an entry's metadata into a file, the
// OAI-ORE export, and applying AVUs to many files from a CSV file. Gateway aggregates over
// data-info (stats, listings, reading and writing files) and the metadata service (AVUs).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parse } from 'csv-parse/sync';
import { Type } from 'typebox';
import { baseName, joinDataPath, parentOf } from '../../common/data-path.ts';
import { documentedNotEnforced, takesNoBody } from '../../http/openapi.ts';
import { routeAtBoth } from '../../http/secured-alias.ts';
import { queryNormalizer } from '../../common/query-params.ts';
import { dataInfoCall, dataInfoJson, encodedPath, createStoredFile, overwriteStoredFile, readStoredFile, statById, statsByPath, type EntryStat } from '../../clients/data-info.ts';
import { entryId, type DataMetadataDeps } from './metadata-support.ts';
import { avusOf, metadataJson, targetType, type Avu } from '../../clients/metadata.ts';
import { dataPath } from '../filesystem/support.ts';
import { oreDocument } from './ore-document.ts';
import { errorAs, gatewayError } from '../../common/errors.ts';

/** Entries a recursive save or an ORE export walks at most: beyond that it is a job, not a request. */
const MAX_WALKED_ENTRIES = 10_000;
/** The largest CSV the parser reads, and the most rows (paths) it applies. */
const MAX_CSV_BYTES = 8 * 1024 * 1024;
const MAX_CSV_ROWS = 1000;

const DataParams = Type.Object({ dataId: Type.String({ description: 'File or folder UUID' }) });
const Stat = Type.Object(
  { id: Type.String(), path: Type.String(), type: Type.String() },
  { additionalProperties: true, description: 'The stat of the written file (backends.md §2.2)' },
);
const FileAnswer = Type.Object({ file: Stat });
const SaveBody = Type.Object({
  dest: Type.String({
    minLength: 1,
    description: 'Path of the file to write; it must not exist yet',
  }),
  recursive: Type.Optional(
    Type.Boolean({ description: 'For a folder: also the metadata of everything below it' }),
  ),
});
const CsvQuery = Type.Object(
  {
    dest: Type.String({
      minLength: 1,
      description: 'Folder that relative paths in the first column start from',
    }),
    src: Type.String({ minLength: 1, description: 'Path of the CSV file' }),
    separator: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2,
        description: 'Column separator, one character (default `,`; `%09` or `\\t` is a tab)',
      }),
    ),
  },
  { additionalProperties: true },
);
const CsvAnswer = Type.Object({
  'path-metadata': Type.Array(
    Type.Object({
      path: Type.String(),
      avus: Type.Array(
        Type.Object(
          { attr: Type.String(), value: Type.String(), unit: Type.String() },
          { additionalProperties: true },
        ),
      ),
    }),
  ),
});

interface WalkedEntry {
  id: string;
  path: string;
  type: 'file' | 'dir';
}

/** Everything below a folder the caller can see, folders before their contents, paged through data-info listings. */
async function walk(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  folder: string,
): Promise<WalkedEntry[]> {
  const found: WalkedEntry[] = [];
  const pending = [folder];
  while (pending.length > 0) {
    const current = pending.shift()!;
    for (let offset = 0; ;) {
      const page = await dataInfoJson<{
        files: { id: string; path: string }[];
        folders: { id: string; path: string }[];
        total: number;
      }>(dataInfoCall(deps, request), {
        method: 'GET',
        path: `/data/path${encodedPath(current)}`,
        query: { limit: '1000', offset: String(offset), 'sort-field': 'name', 'sort-dir': 'ASC' },
      });
      const entries = [
        ...page.folders.map((item) => ({ id: item.id, path: item.path, type: 'dir' as const })),
        ...page.files.map((item) => ({ id: item.id, path: item.path, type: 'file' as const })),
      ];
      found.push(...entries);
      if (found.length > MAX_WALKED_ENTRIES) {
        throw gatewayError(
          'ERR_TOO_MANY_RESULTS',
          `${folder} holds more than ${MAX_WALKED_ENTRIES} files and folders`,
          { path: folder, limit: MAX_WALKED_ENTRIES },
        );
      }
      pending.push(...entries.filter((entry) => entry.type === 'dir').map((entry) => entry.path));
      offset += entries.length;
      if (entries.length === 0 || offset >= page.total) break;
    }
  }
  return found;
}

/** The AVUs of many entries: metadata searches by target id, 1000 ids a call. */
async function avusByTarget(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  ids: string[],
): Promise<Map<string, Avu[]>> {
  const byTarget = new Map<string, Avu[]>();
  for (let start = 0; start < ids.length; start += 1000) {
    const { avus } = await metadataJson<{ avus: (Avu & { target_id: string })[] }>(deps, request, {
      method: 'POST',
      path: '/avus/search',
      json: { 'target-id': ids.slice(start, start + 1000), 'target-type': ['file', 'folder'] },
    });
    for (const avu of avus)
      byTarget.set(avu.target_id, [...(byTarget.get(avu.target_id) ?? []), avu]);
  }
  return byTarget;
}

/** An AVU as a saved file keeps it: the triple and its nested AVUs, enough to apply it again. */
const portable = (avu: Avu): Record<string, unknown> => ({
  attr: avu.attr,
  value: avu.value,
  unit: avu.unit,
  avus: (avu.avus ?? []).map(portable),
});

const described = (entry: { id: string; path: string; type: 'file' | 'dir' }, avus: Avu[]) => ({
  id: entry.id,
  path: entry.path,
  type: targetType(entry),
  avus: avus.map(portable),
  'store-avus': [],
});

/** The saved-metadata document: the entry, and with `recursive` everything below a folder. */
async function metadataDocument(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  stat: EntryStat,
  recursive: boolean,
): Promise<string> {
  const document: Record<string, unknown> = described(stat, await avusOf(deps, request, stat));
  if (recursive && stat.type === 'dir') {
    const below = await walk(deps, request, stat.path);
    const avus = await avusByTarget(
      deps,
      request,
      below.map((entry) => entry.id),
    );
    document.contents = below.map((entry) => described(entry, avus.get(entry.id) ?? []));
  }
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** The file a new document goes to: `dest` checked as a path, its folder and name. */
function destination(deps: DataMetadataDeps, dest: unknown): { folder: string; name: string } {
  const path = dataPath(deps.config, dest, 'dest');
  return { folder: parentOf(path), name: baseName(path) };
}

/** Writes an ORE document next to the entry, replacing an earlier export. */
async function writeNextTo(
  deps: DataMetadataDeps,
  request: FastifyRequest,
  stat: EntryStat,
  content: string,
): Promise<EntryStat> {
  const folder = parentOf(stat.path);
  const name = `${baseName(stat.path)}.ore.rdf`;
  const path = joinDataPath(folder, name, 'path');
  const existing = await dataInfoJson<{ paths: Record<string, boolean> }>(
    dataInfoCall(deps, request),
    { method: 'POST', path: '/existence-marker', json: { paths: [path] } },
  );
  if (existing.paths[path]) {
    const { [path]: old } = await statsByPath(deps, request, [path], 'write');
    if (old!.type !== 'file')
      throw errorAs('ERR_EXISTS', 'conflict', `${path} exists and is a folder`, { path });
    return overwriteStoredFile(deps, request, old!.id, content);
  }
  return createStoredFile(deps, request, folder, name, content);
}

/** A CSV separator as sent: one character; `\t` spelled out is a tab too. */
function separatorOf(raw: string | undefined): string {
  if (raw === undefined || raw === '') return ',';
  if (raw === '\\t') return '\t';
  if ([...raw].length !== 1)
    throw gatewayError(
      'ERR_BAD_QUERY_PARAMETER',
      'query parameter "separator" must be one character',
      { field: 'separator' },
    );
  return raw;
}

interface CsvPlan {
  /** Canonical path → AVUs for it, in CSV order. */
  byPath: Map<string, { attr: string; value: string; unit: string }[]>;
}

/** Rows after the header: first cell a path (relative to `dest` or absolute), then one value per attribute column. */
function csvPlan(
  deps: DataMetadataDeps,
  text: string,
  separator: string,
  dest: string,
  src: string,
): CsvPlan {
  let rows: string[][];
  try {
    rows = parse(text, {
      delimiter: separator,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as string[][];
  } catch (error) {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `${src} is not a CSV file the parser can read: ${(error as Error).message}`,
      { field: 'src', path: src },
    );
  }
  const [header, ...body] = rows;
  if (!header || header.length < 2)
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `${src} needs a header row: a path column, then attribute names`,
      { field: 'src', path: src },
    );
  if (body.length > MAX_CSV_ROWS)
    throw gatewayError(
      'ERR_TOO_MANY_RESULTS',
      `${src} has ${body.length} rows; at most ${MAX_CSV_ROWS} are applied`,
      { count: body.length, limit: MAX_CSV_ROWS },
    );
  const attributes = header.slice(1).map((name) => name.trim());
  const byPath = new Map<string, { attr: string; value: string; unit: string }[]>();
  body.forEach((row, index) => {
    const cell = (row[0] ?? '').trim();
    if (cell === '')
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `row ${index + 2} of ${src} names no path`, {
        field: 'src',
        row: index + 2,
      });
    const path = dataPath(deps.config, cell.startsWith('/') ? cell : `${dest}/${cell}`, 'path');
    const avus = byPath.get(path) ?? [];
    attributes.forEach((attr, column) => {
      const value = (row[column + 1] ?? '').trim();
      if (attr !== '' && value !== '') avus.push({ attr, value, unit: '' });
    });
    byPath.set(path, avus);
  });
  return { byPath };
}

export async function dataMetadataFileRoutes(
  app: FastifyInstance,
  deps: DataMetadataDeps,
): Promise<void> {
  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/filesystem/:dataId/metadata/save',
    ...documentedNotEnforced,
    schema: {
      tags: ['data'],
      summary: 'Save metadata to a file',
      description:
        'Writes a JSON file at `dest` (which must not exist: `ERR_EXISTS`) holding `{id, path, type, avus, store-avus}` of the entry and, with `recursive` on a folder, `contents`: the same for everything below it. Needs read permission on the entry and write on the folder of `dest`.',
      params: DataParams,
      body: SaveBody,
      response: { 200: FileAnswer },
    },
    handler: async (request) => {
      const body = request.body as { dest: string; recursive?: boolean };
      const { folder, name } = destination(deps, body.dest);
      const stat = await statById(
        deps,
        request,
        entryId((request.params as { dataId: string }).dataId),
        'read',
      );
      const content = await metadataDocument(deps, request, stat, body.recursive === true);
      return { file: await createStoredFile(deps, request, folder, name, content) };
    },
  });

  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/filesystem/:dataId/ore/save',
    ...documentedNotEnforced,
    schema: {
      tags: ['data'],
      summary: 'Export metadata as OAI-ORE',
      ...takesNoBody,
      description:
        'Writes an OAI-ORE resource map (RDF/XML) for the entry next to it, as `<name>.ore.rdf` (replacing an earlier export): the aggregation carries the AVUs that have Dublin Core terms, and aggregates the file or every file below the folder. Needs read permission on the entry and write on its folder.',
      params: DataParams,
      response: { 200: FileAnswer },
    },
    handler: async (request) => {
      const stat = await statById(
        deps,
        request,
        entryId((request.params as { dataId: string }).dataId),
        'read',
      );
      const files =
        stat.type === 'dir'
          ? (await walk(deps, request, stat.path)).filter((entry) => entry.type === 'file')
          : [stat];
      const content = oreDocument(
        { id: stat.id, path: stat.path, avus: await avusOf(deps, request, stat) },
        files,
      );
      return { file: await writeNextTo(deps, request, stat, content) };
    },
  });

  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/filesystem/metadata/csv-parser',
    ...documentedNotEnforced,
    preValidation: queryNormalizer(),
    schema: {
      tags: ['data'],
      summary: 'Apply metadata to files from a CSV file',
      ...takesNoBody,
      description: `Reads the CSV file \`src\`: a header row (a path column, then attribute names), then one row per file or folder, its path relative to \`dest\` or absolute. Adds each row's non-empty values as AVUs (write permission needed on every path, checked before anything is written). At most ${MAX_CSV_ROWS} rows and ${MAX_CSV_BYTES} bytes. Answers the AVUs each path has afterwards.`,
      querystring: CsvQuery,
      response: { 200: CsvAnswer },
    },
    handler: async (request) => {
      const query = request.query as { dest: string; src: string; separator?: string };
      const dest = dataPath(deps.config, query.dest, 'dest');
      const src = dataPath(deps.config, query.src, 'src');
      const text = (await readStoredFile(deps, request, src, MAX_CSV_BYTES)).toString('utf8');
      const { byPath } = csvPlan(deps, text, separatorOf(query.separator), dest, src);
      const stats = await statsByPath(deps, request, [...byPath.keys()], 'write');
      const results = [];
      for (const [path, avus] of byPath) {
        const stat = stats[path]!;
        const answer = await metadataJson<{ avus: Avu[] }>(deps, request, {
          method: 'POST',
          path: `/avus/${targetType(stat)}/${stat.id}`,
          json: { avus },
        });
        results.push({ path, avus: answer.avus });
      }
      return { 'path-metadata': results };
    },
  });
}
