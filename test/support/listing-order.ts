// A folder's children for the paged-listing tests, with names whose byte order, case-folded order
// and creation order all differ and ties on every field, and the listing's order computed here
// (docs/api: folders first; ties broken by case-folded name, then name, ascending); writing them
// straight into the catalog and reading a page through data-info's Lister.
import { randomUUID } from 'node:crypto';
import type {
  FolderListing,
  Lister,
  SortDir,
  SortField,
} from '../../src/backends/data-info/listing.ts';
import { visibilityOf } from '../../src/backends/data-info/visibility.ts';
import type { DataInfoHost } from './data-info-host.ts';

export interface Child {
  id: string;
  name: string;
  type: 'dir' | 'file';
  created_at: number;
  modified_at: number;
  size: number;
}

/** `count` children (every 40th a folder) and two files whose names differ only in letter case; `prime` > `count` keeps names unique. */
export function children(count: number, prime: number): Child[] {
  const stems = ['apple', 'Banana', 'cherry', 'Date', 'elder', 'Fig', 'grape', 'Honeydew'];
  const digits = String(prime).length;
  const list: Child[] = [];
  for (let i = 0; i < count; i++) {
    const stem = stems[(i * 5) % stems.length]!;
    const name = `${i % 3 === 0 ? stem.toUpperCase() : stem}-${String((i * 37) % prime).padStart(digits, '0')}`;
    list.push({
      id: randomUUID(),
      name: i % 40 === 0 ? `${name}.d` : `${name}.txt`,
      type: i % 40 === 0 ? 'dir' : 'file',
      created_at: 1000 + (i % 17), // many ties
      modified_at: 5000 - ((i * 13) % 50),
      size: i % 40 === 0 ? 0 : (i * 7) % 11,
    });
  }
  // Two names equal but for letter case: the byte order breaks the case-folded tie.
  for (const name of ['same', 'SAME'])
    list.push({ id: randomUUID(), name, type: 'file', created_at: 1, modified_at: 1, size: 1 });
  return list;
}

const bytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const fields: Record<Exclude<SortField, 'name' | 'path'>, keyof Child> = {
  datecreated: 'created_at',
  datemodified: 'modified_at',
  size: 'size',
};

/** The names of `list` in the listing's order. */
export function expected(list: Child[], field: SortField, dir: SortDir): string[] {
  const sign = dir === 'ASC' ? 1 : -1;
  const byName = (a: Child, b: Child) =>
    bytes(a.name.toLowerCase(), b.name.toLowerCase()) || bytes(a.name, b.name);
  const compare = (a: Child, b: Child): number => {
    if (field === 'name') return sign * byName(a, b);
    if (field === 'path') return sign * bytes(a.name, b.name);
    const key = fields[field];
    return sign * ((a[key] as number) - (b[key] as number)) || byName(a, b);
  };
  return [
    ...list.filter((child) => child.type === 'dir').sort(compare),
    ...list.filter((child) => child.type === 'file').sort(compare),
  ].map((child) => child.name);
}

/** `list` written straight into the catalog as children of `folder`, owned by `owner`. */
export async function insertChildren(
  service: DataInfoHost,
  folder: string,
  list: Child[],
  owner = 'alice',
): Promise<void> {
  await service.store.db
    .insertInto('data_objects')
    .values(
      list.map((child) => ({
        ...child,
        path: `${folder}/${child.name}`,
        parent_path: folder,
        owner,
        info_type: '',
      })),
    )
    .execute();
}

/** A file child of size 1 dated 1, for a test's single writes. */
export const fileChild = (name: string, id: string = randomUUID()): Child => ({
  id,
  name,
  type: 'file',
  created_at: 1,
  modified_at: 1,
  size: 1,
});

/** The page of `folder` at `offset` that `lister` answers alice, in `field` and `dir` order. */
export async function listPage(
  service: DataInfoHost,
  lister: Lister,
  folder: string,
  {
    field,
    dir,
    offset,
    limit = 25,
  }: { field: SortField; dir: SortDir; offset: number; limit?: number },
): Promise<FolderListing> {
  const data = service.data;
  const caller = await data.caller('alice');
  const object = await data.existing(folder);
  const access = await visibilityOf(data).requireRead(caller, object);
  return lister.list(caller, object, access, {
    limit,
    offset,
    sortField: field,
    sortDir: dir,
    entityType: 'any',
    infoTypes: [],
    badChars: '',
    badNames: [],
    badPaths: [],
  });
}

/** A page's names, folders first, as the listing orders them. */
export const namesOf = (page: FolderListing) =>
  [...page.folders, ...page.files].map((entry) => entry.name);
