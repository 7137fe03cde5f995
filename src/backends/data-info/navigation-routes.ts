import type { FastifyPluginAsync } from 'fastify';
import type { DataObject } from './object-index.ts';
import type { Permission } from '../../common/data-stat.ts';
import { Lister } from './listing.ts';
import type { Caller, DataStore } from './store.ts';
import { reported, visibilityOf } from './visibility.ts';
import { gatewayError } from '../../common/errors.ts';

/** backends.md §2.1: a root or navigation entry carries only these keys. */
export interface NavigationEntry {
  id: string;
  path: string;
  label: string;
  'date-created': number;
  'date-modified': number;
  permission: Permission;
}

export function navigationEntry(
  data: DataStore,
  caller: Caller,
  object: DataObject,
  permission: Permission,
): NavigationEntry {
  return {
    id: object.id,
    path: object.path,
    label: data.label(caller, object),
    'date-created': Number(object.created_at),
    'date-modified': Number(object.modified_at),
    permission,
  };
}

/** `/data/path/<zone>/<rest>` and `/navigation/path/<zone>/<rest>`: the wildcard is the path without its leading slash. */
export function wildcardPath(data: DataStore, params: unknown): string {
  const rest = (params as { '*'?: unknown })['*'];
  return data.path(`/${typeof rest === 'string' ? rest : ''}`, 'path');
}

/** GET /navigation/home, /navigation/root, /navigation/path/{zone}/{path...} (backends.md §2.1). */
export const navigationRoutes: FastifyPluginAsync<{ data: DataStore }> = async (app, { data }) => {
  const visibility = visibilityOf(data);
  const lister = new Lister(data);

  /** The entry of a folder the caller can see, with the level they hold on it. */
  const entryOf = async (caller: Caller, path: string): Promise<NavigationEntry> => {
    const object = await data.existing(path);
    return navigationEntry(
      data,
      caller,
      object,
      reported(await visibility.requireRead(caller, object)),
    );
  };

  app.get('/navigation/home', async (request) => {
    const caller = await data.writerOf(request.query);
    return entryOf(caller, data.catalog.basePaths(caller.name).user_home_path);
  });

  app.get('/navigation/root', async (request) => {
    const caller = await data.writerOf(request.query);
    const basePaths = data.catalog.basePaths(caller.name);
    const roots = [
      basePaths.user_home_path,
      data.catalog.communityPath,
      `/${data.zone}/home`,
      basePaths.user_trash_path,
    ];
    return {
      roots: await Promise.all(roots.map((path) => entryOf(caller, path))),
      'base-paths': basePaths,
    };
  });

  app.get('/navigation/path/*', async (request) => {
    const caller = await data.callerOf(request.query);
    const folder = await data.existing(wildcardPath(data, request.params));
    const access = await visibility.requireRead(caller, folder);
    if (folder.type !== 'dir') {
      throw gatewayError('ERR_NOT_A_FOLDER', `${folder.path} is not a folder`, {
        path: folder.path,
      });
    }
    const folders = await lister.subfolders(caller, folder, access);
    return {
      folder: {
        ...navigationEntry(data, caller, folder, reported(access)),
        folders: folders.map(({ object, permission }) =>
          navigationEntry(data, caller, object, permission),
        ),
      },
    };
  });
};
