// The permissions service's door (backends.md §8 "permissions": subjects `user/<short>` and group
// subjects, resource permissions on apps, analyses and tools). It is a store other services use
// in-process, not an HTTP service of its own: the apps service keeps and reads grants through it,
// and the groups service forgets or copies a group's grants when the group goes. It depends on no
// other service: whose groups a user is in comes from the caller as a subquery.
export {
  atLeast,
  copyGroupGrants,
  grantedIds,
  grantedLevels,
  grantsOn,
  higher,
  isLevel,
  levels,
  removeGrant,
  removeGrantsOn,
  removeGroupGrants,
  setGrant,
  type Grant,
  type GrantSubject,
  type Level,
  type MemberOf,
  type ResourceType,
} from './grants.ts';
