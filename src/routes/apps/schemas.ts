// Schemas shared by the app rows of several route files (index.ts, metadata.ts, admin.ts,
// hierarchies.ts, and the admin area's ontologies.ts): app listings, AVUs on apps, app categories,
// ontology class hierarchies, error answers (backends.md §5.1, §3.3). Answers are relayed from the
// apps service; these document them.
import { ErrorAnswer } from '../../common/error-replies.ts';
import { Type } from 'typebox';

/** AppListingDetail, with the fields the spec requires named (the service sends more). */
const AppListingDetail = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    app_type: Type.String(),
    system_id: Type.String(),
    integrator_name: Type.String(),
    integrator_email: Type.String(),
    deleted: Type.Boolean(),
    disabled: Type.Boolean(),
    is_public: Type.Boolean(),
    can_favor: Type.Boolean(),
    can_rate: Type.Boolean(),
    can_run: Type.Boolean(),
    step_count: Type.Integer(),
    permission: Type.String({ description: 'read, write or own' }),
  },
  { additionalProperties: true },
);

export const AppListing = Type.Object({
  total: Type.Integer({ description: 'Apps matching, before paging' }),
  apps: Type.Array(AppListingDetail),
});

/** Paging, search and sort of an app listing (as GET /apps). */
export const listingParameters = {
  search: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 0, description: '0 or absent: no limit' })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  'sort-field': Type.Optional(
    Type.String({
      description:
        'name, description, integrator_name, integration_date, edited_date or average_rating',
    }),
  ),
  'sort-dir': Type.Optional(Type.String({ description: 'ASC or DESC' })),
  'app-type': Type.Optional(Type.String()),
};

/** The query of an app listing (as GET /apps); other parameters still pass through. */
export const AppListingQuery = Type.Object(listingParameters, { additionalProperties: true });

/** A category listing: the category (without subcategories) with a page of its apps. */
export const CategoryListing = Type.Object(
  {
    system_id: Type.String(),
    id: Type.String(),
    name: Type.String(),
    is_public: Type.Boolean(),
    total: Type.Integer({ description: 'Apps matching, before paging' }),
    apps: Type.Array(AppListingDetail),
  },
  { additionalProperties: true },
);

const AvuRequest = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        format: 'uuid',
        description:
          'Present: update that AVU; absent: the AVU with this attr/value/unit, or a new one',
      }),
    ),
    attr: Type.String({ minLength: 1 }),
    value: Type.String(),
    unit: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    avus: Type.Optional(Type.Array(Type.Unknown(), { description: 'Nested AVUs, the same shape' })),
  },
  { additionalProperties: true },
);

export const AvuWrite = Type.Object({ avus: Type.Array(AvuRequest) });
export const AvuReplace = Type.Object({
  avus: Type.Optional(Type.Array(AvuRequest, { description: 'Absent: delete every AVU' })),
});

const Avu = Type.Object({
  id: Type.String(),
  attr: Type.String(),
  value: Type.String(),
  unit: Type.String(),
  target_id: Type.String(),
  target_type: Type.String(),
  created_by: Type.String(),
  modified_by: Type.String(),
  created_on: Type.Integer({ description: 'Milliseconds since the epoch' }),
  modified_on: Type.Integer({ description: 'Milliseconds since the epoch' }),
  avus: Type.Array(Type.Unknown(), { description: 'Nested AVUs, the same shape' }),
});
export const AvuList = Type.Object({ avus: Type.Array(Avu) });

/** A public app category as administrators see it. */
export const AdminAppCategory = Type.Object({
  system_id: Type.String(),
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  is_public: Type.Boolean(),
  total: Type.Integer({ description: 'Public apps placed directly in it' }),
  parent_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  categories: Type.Optional(
    Type.Array(Type.Unknown(), { description: 'Subcategories, the same shape' }),
  ),
});

/** Ontology class hierarchies, as the admin ontology routes and the users' app hierarchies show them. */
export const OntologyClassHierarchy = Type.Object({
  iri: Type.String(),
  label: Type.Union([Type.String(), Type.Null()]),
  description: Type.Optional(Type.String()),
  subclasses: Type.Optional(
    Type.Array(Type.Unknown(), {
      description: 'OntologyClassHierarchy objects, nested the same way',
    }),
  ),
});

export const Hierarchy = Type.Object({
  hierarchy: Type.Union([OntologyClassHierarchy, Type.Null()], {
    description: 'null when no class of it has apps',
  }),
});
export const Hierarchies = Type.Object({ hierarchies: Type.Array(OntologyClassHierarchy) });
export const hierarchyErrors = { 400: ErrorAnswer, 404: ErrorAnswer };

export const hierarchyAttrQuery = Type.Object(
  {
    attr: Type.String({
      minLength: 1,
      description: 'The AVU attribute whose values are class IRIs',
    }),
  },
  { additionalProperties: true },
);
const hierarchyListingQuery = Type.Object(
  {
    attr: Type.String({
      minLength: 1,
      description: 'The AVU attribute whose values are class IRIs',
    }),
    ...listingParameters,
  },
  { additionalProperties: true },
);
export const hierarchyListing = {
  query: hierarchyListingQuery,
  responses: { 200: AppListing, ...hierarchyErrors },
};
