import type { DataObject } from './object-index.ts';
import type { DataStore } from './store.ts';
import { gatewayError } from '../../common/errors.ts';
import { isUuid } from '../../common/ids.ts';

/** The object with this id (any letter case), or ERR_DOES_NOT_EXIST naming it; a non-UUID cannot exist. */
export async function objectById(data: DataStore, id: unknown): Promise<DataObject> {
  const object = isUuid(id) ? await data.catalog.byId(id.toLowerCase()) : undefined;
  if (!object)
    throw gatewayError('ERR_DOES_NOT_EXIST', `no file or folder has the id ${JSON.stringify(id)}`, {
      id,
    });
  return object;
}

/** The `{id}` path parameter. */
export function idFromParams(params: unknown): unknown {
  return (params as { id?: unknown }).id;
}

export function requireFile(object: DataObject): void {
  if (object.type !== 'file')
    throw gatewayError('ERR_NOT_A_FILE', `${object.path} is not a file`, { path: object.path });
}

export function requireFolder(object: DataObject, field?: string): void {
  if (object.type !== 'dir')
    throw gatewayError('ERR_NOT_A_FOLDER', `${object.path} is not a folder`, {
      path: object.path,
      ...(field ? { field } : {}),
    });
}
