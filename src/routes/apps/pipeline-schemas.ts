// The bodies and answers of the pipeline editor's routes (docs/api/pipelines.md), for the
// passthrough rows of app-pipelines: the gateway checks a body's outline; the apps service judges
// its steps and mappings (which apps, which parameters, which order), naming the field at fault.
import { Type } from 'typebox';

const Step = Type.Object(
  {
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    task_id: Type.Optional(
      Type.String({ description: "The component app's step id (from `/tasks`) or the app's id" }),
    ),
    app_id: Type.Optional(Type.String()),
    app_version_id: Type.Optional(Type.String()),
    app_type: Type.Optional(Type.String({ description: '`DE`' })),
  },
  { additionalProperties: true },
);

const Mapping = Type.Object(
  {
    source_step: Type.Integer({ minimum: 0, description: 'The earlier step, 0-based' }),
    target_step: Type.Integer({ minimum: 0, description: 'The later step, 0-based' }),
    map: Type.Record(Type.String(), Type.String(), {
      description:
        "An input id of the target step to an output id of the source step (DE's direction)",
    }),
  },
  { additionalProperties: true },
);

/** A pipeline as the editor sends it (create, save, new version). */
export const PipelineBody = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Type.String()),
    version: Type.Optional(Type.String({ description: "The version's label" })),
    steps: Type.Array(Step, { description: 'At least one' }),
    // Not checked here: the apps service names the mapping at fault (`mappings[1].map`).
    mappings: Type.Optional(
      Type.Unknown({
        description:
          'A list of {source_step, target_step, map}: outputs of earlier steps onto inputs of later ones (as in the view)',
      }),
    ),
  },
  { additionalProperties: true },
);

/** A pipeline as the editor reads it (`ui`, and the answer of every save and copy). */
export const PipelineView = Type.Object(
  {
    id: Type.String(),
    system_id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    version: Type.String(),
    version_id: Type.String(),
    versions: Type.Array(Type.Object({ version: Type.String(), version_id: Type.String() })),
    steps: Type.Array(Step),
    mappings: Type.Array(Mapping),
    tasks: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: "Each step's task with its inputs and outputs",
    }),
  },
  { additionalProperties: true },
);
