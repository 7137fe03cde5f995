// A file's or folder's stat as data-info describes it (backends.md §2.2): what the data-info service
// answers and the gateway reshapes.

export type Permission = 'read' | 'write' | 'own';

export interface Stat {
  id: string;
  path: string;
  type: 'file' | 'dir';
  label: string;
  'date-created': number;
  'date-modified': number;
  permission: Permission;
  'share-count'?: number;
  'file-size'?: number;
  md5?: string;
  'content-type'?: string;
  infoType?: string;
  'file-count'?: number;
  'dir-count'?: number;
}
