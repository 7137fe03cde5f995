// Tag app-hierarchies: the apps by ontology class (`/apps/hierarchies` rows of routes.md §16), all
// passthroughs to the apps service.
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';
import {
  Hierarchies,
  Hierarchy,
  hierarchyAttrQuery,
  hierarchyErrors,
  hierarchyListing,
} from './schemas.ts';

export const hierarchyPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/apps/hierarchies',
    backend: 'apps',
    tag: 'app-hierarchies',
    summary: 'List app hierarchies (active ontology version)',
    responses: { 200: Hierarchies },
  },
  {
    method: 'GET',
    path: '/apps/hierarchies/{root-iri}',
    backend: 'apps',
    tag: 'app-hierarchies',
    summary: 'Get an app hierarchy filtered to classes with apps',
    query: hierarchyAttrQuery,
    responses: { 200: Hierarchy, ...hierarchyErrors },
  },
  {
    method: 'GET',
    path: '/apps/hierarchies/{root-iri}/apps',
    backend: 'apps',
    tag: 'app-hierarchies',
    summary: 'List the apps in a hierarchy',
    ...hierarchyListing,
  },
  {
    method: 'GET',
    path: '/apps/hierarchies/{root-iri}/unclassified',
    backend: 'apps',
    tag: 'app-hierarchies',
    summary: 'List the unclassified apps of a hierarchy',
    ...hierarchyListing,
  },
];
