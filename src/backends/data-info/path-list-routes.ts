import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import mime from 'mime-types';
import { Type } from 'typebox';
import { booleanParam, newChildPath, pathList, repeatedParam, stringParam } from './bulk.ts';
import { atLeast, type DataObject, type NewObject } from './object-index.ts';
import { baseName, isWithin, parentOf } from '../../common/data-path.ts';
import { trashBase } from './moves.ts';
import type { Caller, DataStore } from './store.ts';
import { below } from './tree.ts';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import { errorAs, gatewayError } from '../../common/errors.ts';

/** First line of every path-list file: what HT analyses recognise as a list of inputs. */
export const PATH_LIST_HEADER = '# application/vnd.de.path-list+csv; version=1';
const DEFAULT_INFO_TYPE = 'ht-analysis-path-list';

/**
 * `name-pattern` is a glob matched against the whole base name, case-sensitively: `*` is any run
 * of characters (also none), `?` exactly one, `[abc]` / `[a-z]` / `[!abc]` one of (or none of) a
 * set; everything else is literal. A regular expression is not accepted (it could be made to
 * backtrack for minutes on a long name).
 */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const character = pattern[index]!;
    if (character === '*') source += '.*';
    else if (character === '?') source += '.';
    else if (character === '[') {
      const close = pattern.indexOf(']', index + 2);
      if (close === -1) {
        source += '\\[';
        continue;
      }
      let set = pattern.slice(index + 1, close);
      const negated = set.startsWith('!');
      if (negated) set = set.slice(1);
      source += `[${negated ? '^' : ''}${set.replace(/[\\\]^]/g, '\\$&')}]`;
      index = close;
    } else source += character.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

interface PathListQuery {
  dest: string;
  infoType: string;
  namePattern?: RegExp;
  infoTypes: string[];
  foldersOnly: boolean;
  recursive: boolean;
}

function parseQuery(data: DataStore, query: unknown): PathListQuery {
  const dest = stringParam(query, 'dest');
  if (dest === undefined || dest === '')
    throw gatewayError('ERR_MISSING_QUERY_PARAMETER', 'missing query parameter "dest"', {
      field: 'dest',
    });
  const pattern = stringParam(query, 'name-pattern');
  return {
    dest: data.path(dest, 'dest'),
    infoType: stringParam(query, 'path-list-info-type') || DEFAULT_INFO_TYPE,
    ...(pattern ? { namePattern: globToRegExp(pattern) } : {}),
    infoTypes: repeatedParam(query, 'info-type'),
    foldersOnly: booleanParam(query, 'folders-only', false),
    recursive: booleanParam(query, 'recursive', false),
  };
}

/** The entries a path list holds for the requested paths, in request order, each once. */
async function collect(
  data: DataStore,
  caller: Caller,
  paths: string[],
  options: PathListQuery,
): Promise<string[]> {
  const wanted = (object: DataObject): boolean =>
    object.type === (options.foldersOnly ? 'dir' : 'file') &&
    (options.namePattern === undefined || options.namePattern.test(object.name)) &&
    (options.infoTypes.length === 0 ||
      object.type === 'dir' ||
      options.infoTypes.includes(object.info_type));

  const entries = new Set<string>();
  for (const path of paths) {
    const object = await data.existing(path);
    await data.require(caller, object, 'read'); // grants cover what lies below, so the contents are readable too
    let candidates: DataObject[];
    if (object.type === 'file') candidates = [object];
    else if (options.recursive)
      candidates = (await data.db
        .selectFrom('data_objects')
        .selectAll()
        .where(below(path))
        .execute()) as DataObject[];
    else candidates = await data.catalog.children(path);
    for (const candidate of candidates
      .filter(wanted)
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)))
      entries.add(candidate.path);
  }
  return [...entries];
}

/**
 * POST /path-list-creator (backends.md §2.1): writes a path-list file to `dest` (which must not
 * exist; its folder must be writable) listing the requested files, or with `folders-only` the
 * folders, found in the requested paths (their children, or everything below with `recursive`),
 * filtered by `name-pattern` and `info-type`. Answers `{file: Stat}`.
 */
export const pathListRoutes: FastifyPluginAsync<{ data: DataStore }> = async (app, { data }) => {
  app.post(
    '/path-list-creator',
    {
      schema: {
        querystring: Type.Object(
          { user: Type.String({ minLength: 1 }) },
          { additionalProperties: true },
        ),
      },
    },
    async (request) => {
      const caller = await data.writerOf(request.query);
      const options = parseQuery(data, request.query);
      const paths = pathList(data, request.body, 'paths');

      const folder = await data.existing(parentOf(options.dest));
      if (folder.type !== 'dir')
        throw gatewayError('ERR_NOT_A_FOLDER', `${folder.path} is not a folder`, {
          path: folder.path,
        });
      if (isWithin(folder.path, trashBase(data.zone)))
        throw gatewayError('ERR_ILLEGAL_ARGUMENT', 'a path list cannot be written into the trash', {
          path: options.dest,
        });
      if (!atLeast(await data.permission(caller, folder.path), 'write')) {
        throw gatewayError('ERR_NOT_WRITEABLE', `${caller.name} cannot write ${folder.path}`, {
          path: folder.path,
          user: caller.name,
        });
      }
      const dest = newChildPath(folder.path, baseName(options.dest), 'dest');
      if (await data.catalog.byPath(dest))
        throw errorAs('ERR_EXISTS', 'conflict', `${dest} already exists`, { path: dest });

      const entries = await collect(data, caller, paths, options);
      const content = [PATH_LIST_HEADER, ...entries].join('\n') + '\n';
      const id = randomUUID();
      const written = await data.blobs.write(id, content);
      let file: DataObject;
      try {
        const row: NewObject = {
          id,
          path: dest,
          type: 'file',
          owner: caller.name,
          size: written.size,
          md5: written.md5,
          contentType: mime.lookup(dest) || 'text/plain',
          infoType: options.infoType,
        };
        file = await data.db.transaction().execute((trx) => data.catalog.create(row, trx));
      } catch (error) {
        await data.blobs.remove(id);
        if (isUniqueViolation(error))
          throw errorAs('ERR_EXISTS', 'conflict', `${dest} already exists`, { path: dest });
        throw error;
      }
      return { file: await data.stat(caller, file, 'own') };
    },
  );
};
