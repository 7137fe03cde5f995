// The analyses service's quick-launch shapes (backends.md §6), shared by the service (validation)
// and the gateway (validation and OpenAPI), so both describe one API.
import { Type, type Static } from 'typebox';

const Id = Type.String({ minLength: 1, maxLength: 64 });
const Submission = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'An analysis submission; `config` maps `<step id>_<parameter id>` to values, required parameters may be absent',
  },
);

const quickLaunchFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Type.String({ maxLength: 65536 })),
  app_id: Id,
  app_version_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: "Default: the app's current version" }),
  ),
  is_public: Type.Optional(
    Type.Boolean({ description: 'Public quick launches are visible to everyone (default false)' }),
  ),
  submission: Submission,
};

/** What a client sends to create a quick launch (the gateway adds `creator`). */
export const QuickLaunchRequest = Type.Object(quickLaunchFields, { additionalProperties: false });
/** What the service takes: the request and, from the gateway, `creator` (qualified; default: the caller). */
export const QuickLaunchCreate = Type.Object(
  { ...quickLaunchFields, creator: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })) },
  { additionalProperties: false },
);
export type QuickLaunchCreate = Static<typeof QuickLaunchCreate>;

/** A partial update: the fields given replace the stored ones (`submission` as a whole). */
export const QuickLaunchPatch = Type.Object(
  {
    name: Type.Optional(quickLaunchFields.name),
    description: Type.Optional(Type.String({ maxLength: 65536 })),
    app_id: Type.Optional(Id),
    app_version_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    is_public: Type.Optional(Type.Boolean()),
    submission: Type.Optional(Submission),
  },
  { additionalProperties: false },
);
export type QuickLaunchPatch = Static<typeof QuickLaunchPatch>;

export const QuickLaunch = Type.Object({
  id: Type.String(),
  creator: Type.String({ description: 'Qualified username' }),
  app_id: Type.String(),
  app_version_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  is_public: Type.Boolean(),
  submission: Submission,
});

export const FavoriteRequest = Type.Object(
  { quick_launch_id: Id },
  { additionalProperties: false },
);
export type FavoriteRequest = Static<typeof FavoriteRequest>;
export const Favorite = Type.Object({
  id: Type.String(),
  quick_launch_id: Type.String(),
  user: Type.String(),
});

export const DefaultRequest = Type.Object(
  { quick_launch_id: Id, app_id: Id },
  { additionalProperties: false },
);
export type DefaultRequest = Static<typeof DefaultRequest>;
export const DefaultPatch = Type.Object(
  { quick_launch_id: Type.Optional(Id), app_id: Type.Optional(Id) },
  { additionalProperties: false },
);
export type DefaultPatch = Static<typeof DefaultPatch>;
export const UserDefault = Type.Object({
  id: Type.String(),
  user: Type.String(),
  quick_launch_id: Type.String(),
  app_id: Type.String(),
});
export const GlobalDefault = Type.Object({
  id: Type.String(),
  app_id: Type.String(),
  quick_launch_id: Type.String(),
});

export const Deleted = Type.Object({ id: Type.String() });
export const IdParams = Type.Object({ id: Id });
export const AppIdParams = Type.Object({ appId: Id });
