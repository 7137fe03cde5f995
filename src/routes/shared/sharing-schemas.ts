// The bodies and answers of sharing apps, analyses and tools (docs/api/sharing.md), for the
// passthrough rows of the apps, analyses and tools route files: the gateway checks a body's shape;
// the apps service judges each item (a level it does not know fails that item alone).
import { Type, type TSchema } from 'typebox';
import { ErrorAnswer } from '../../common/error-replies.ts';

const Subject = Type.Object(
  {
    id: Type.String({ description: 'Short username, or a group id (source_id `g:gsa`)' }),
    source_id: Type.Optional(
      Type.String({ description: '`g:gsa` for a team or collaborator list' }),
    ),
  },
  { additionalProperties: true },
);
const Permission = Type.String({ description: '`read`, `write` or `own`' });
const Outcome = { success: Type.Boolean(), error: Type.Optional(ErrorAnswer) };
const Permissions = Type.Array(Type.Object({ subject: Subject, permission: Permission }));

interface ItemShapes {
  /** The fields naming an item (`system_id, app_id`; `analysis_id`; `tool_id`). */
  key: Record<string, TSchema>;
  /** The field answers add with the item's name. */
  nameField: string;
  /** An unsharing list item: the key object, or a bare id. */
  unsharingItem: TSchema;
  listerItem: TSchema;
  listed: Record<string, TSchema>;
}

function schemasOf(items: string, shapes: ItemShapes) {
  const named = { ...shapes.key, [shapes.nameField]: Type.Optional(Type.String()) };
  const entry = (list: TSchema) => Type.Object({ subject: Subject, [items]: Type.Array(list) });
  return {
    sharing: {
      body: Type.Object({
        sharing: Type.Array(entry(Type.Object({ ...shapes.key, permission: Permission }))),
      }),
      answer: Type.Object({
        sharing: Type.Array(
          entry(Type.Object({ ...named, permission: Type.String(), ...Outcome })),
        ),
      }),
    },
    unsharing: {
      body: Type.Object({ unsharing: Type.Array(entry(shapes.unsharingItem)) }),
      answer: Type.Object({
        unsharing: Type.Array(entry(Type.Object({ ...named, ...Outcome }))),
      }),
    },
    lister: {
      body: Type.Object({ [items]: Type.Array(shapes.listerItem) }),
      answer: Type.Object({
        [items]: Type.Array(Type.Object({ ...shapes.listed, permissions: Permissions })),
      }),
    },
  };
}

const AppKey = { system_id: Type.String(), app_id: Type.String() };
export const appSharing = schemasOf('apps', {
  key: AppKey,
  nameField: 'app_name',
  unsharingItem: Type.Object(AppKey),
  listerItem: Type.Object(AppKey),
  listed: { ...AppKey, name: Type.String() },
});

const single = (field: string) => ({
  key: { [field]: Type.String() },
  unsharingItem: Type.String({ description: `the ${field}` }),
  listerItem: Type.String({ description: `the ${field}` }),
  listed: { id: Type.String(), name: Type.String() },
});
export const analysisSharing = schemasOf('analyses', {
  ...single('analysis_id'),
  nameField: 'analysis_name',
});
export const toolSharing = schemasOf('tools', { ...single('tool_id'), nameField: 'tool_name' });
