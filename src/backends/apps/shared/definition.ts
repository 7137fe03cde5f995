import { randomUUID } from 'node:crypto';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';

/**
 * An app version's definition as stored (app_versions.definition): its steps, each run by one
 * tool, and the parameter groups of the launch form (spec "App models": AppGroup, AppParameter).
 * A group's `step_number` defaults to 1; parameter ids are UUIDs, shown in the launch view as
 * `<step id>_<parameter id>`.
 *
 * A pipeline (pipelines/pipeline-routes.ts) is an app whose steps each come from a single-step app:
 * the step names that app (`app_id`) and the version it was made from (`app_version_id`), runs its
 * tool, and the app's groups are copied under the step's `step_number` with their parameter ids
 * kept, so that `mappings` can name them. The job runner reads this shape as it is.
 */
export interface AppDefinition {
  steps: AppStep[];
  groups: AppGroup[];
  requirements?: Record<string, unknown>[];
  mappings?: PipelineMapping[];
}

export interface AppStep {
  id: string;
  name: string;
  tool_id: string | null;
  description?: string;
  /** A pipeline's step: the single-step app it runs, and that app's version it was made from. */
  app_id?: string;
  app_version_id?: string;
}

/**
 * In a pipeline, what a later step is given from an earlier one's outputs: `source_step` and
 * `target_step` are 0-based indexes into `steps` (source before target), and `map` names an output
 * parameter of the source step (`FileOutput`, `FolderOutput`) → the input parameter of the target
 * step it feeds (`FileInput`, `FolderInput`, `MultiFileSelector`), by their ids in the groups. An
 * input is fed at most once; an output feeding several inputs of one step takes one entry per
 * input, so the same pair of steps may appear more than once.
 */
export interface PipelineMapping {
  source_step: number;
  target_step: number;
  map: Record<string, string>;
}

export interface AppGroup {
  id: string;
  name?: string;
  label: string;
  description?: string;
  isVisible?: boolean;
  step_number?: number;
  parameters: AppParameter[];
}

export interface AppParameter {
  id: string;
  type: string;
  name?: string;
  label?: string;
  description?: string;
  required?: boolean;
  isVisible?: boolean;
  omit_if_blank?: boolean;
  order?: number;
  defaultValue?: unknown;
  value?: unknown;
  arguments?: Record<string, unknown>[];
  validators?: Record<string, unknown>[];
  file_parameters?: Record<string, unknown>;
}

/**
 * Parameter types of the launch form (routes.md app-element-types); the file-like ones name
 * data-store paths, the reference ones a reference genome (catalog/reference-genomes.ts).
 */
export const parameterTypes = [
  'Text',
  'MultiLineText',
  'Integer',
  'Double',
  'Flag',
  'TextSelection',
  'IntegerSelection',
  'DoubleSelection',
  'FileInput',
  'FolderInput',
  'MultiFileSelector',
  'FileOutput',
  'FolderOutput',
  'Info',
  'ReferenceGenome',
  'ReferenceSequence',
  'ReferenceAnnotation',
] as const;
export const pathParameterTypes: readonly string[] = [
  'FileInput',
  'FolderInput',
  'MultiFileSelector',
];
/** Parameters naming what a step writes; a pipeline maps them onto later steps' path inputs. */
export const outputParameterTypes: readonly string[] = ['FileOutput', 'FolderOutput'];

/** Whether a definition is a pipeline's: its steps name the apps they come from. */
export const isPipeline = (definition: AppDefinition): boolean =>
  definition.steps.some((step) => step.app_id !== undefined);

/**
 * Which inputs of a pipeline get their value from an earlier step's output at run time (the
 * launch form neither shows nor requires them): `(step index, parameter id) → mapped`.
 */
export function mappedInputs(
  definition: AppDefinition,
): (step: number, parameterId: string) => boolean {
  const mapped = new Set(
    (definition.mappings ?? []).flatMap((mapping) =>
      Object.values(mapping.map).map((input) => `${mapping.target_step}/${input}`),
    ),
  );
  return (step, parameterId) => mapped.has(`${step}/${parameterId}`);
}

const bad = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });
const optionalString = (body: Record<string, unknown>, field: string): string | undefined => {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw bad(field, `"${field}" must be a string`);
  return value;
};

/** The parts of an app request (AppRequest) an app version is made of. */
export interface AppRequest {
  name: string;
  description: string;
  wikiUrl?: string;
  version: string;
  references: string[];
  toolIds: string[];
  groups: AppGroup[];
}

/**
 * Checks an app request: a name, tools (each a step, in order), parameter groups whose
 * parameters have known types and fit the steps; ids are made for groups and parameters without
 * one. Whether the tools exist is checked against the store by the caller.
 */
export function appRequest(
  body: unknown,
  current?: { name: string; description: string },
): AppRequest {
  if (!isJsonObject(body)) throw bad('body', 'the body must be a JSON object (an app request)');
  const name = optionalString(body, 'name') ?? current?.name;
  if (!name || name.trim() === '') throw bad('name', '"name" must be a non-empty string');
  const tools = body.tools ?? [];
  if (
    !Array.isArray(tools) ||
    tools.some((tool) => !isJsonObject(tool) || typeof tool.id !== 'string')
  )
    throw bad('tools', '"tools" must be a list of {id}');
  const references = body.references ?? [];
  if (!Array.isArray(references) || references.some((reference) => typeof reference !== 'string'))
    throw bad('references', '"references" must be a list of strings');
  const groups = body.groups ?? [];
  if (!Array.isArray(groups)) throw bad('groups', '"groups" must be a list');
  const steps = Math.max(tools.length, 1);
  return {
    name: name.trim(),
    description: optionalString(body, 'description') ?? current?.description ?? '',
    wikiUrl: optionalString(body, 'wiki_url'),
    version: optionalString(body, 'version') ?? '1.0',
    references: references as string[],
    toolIds: (tools as { id: string }[]).map((tool) => tool.id.toLowerCase()),
    groups: groups.map((group, index) => {
      if (!isJsonObject(group) || typeof group.label !== 'string' || group.label === '')
        throw bad(`groups[${index}].label`, 'every group needs a "label"');
      const stepNumber = group.step_number ?? 1;
      if (
        typeof stepNumber !== 'number' ||
        !Number.isInteger(stepNumber) ||
        stepNumber < 1 ||
        stepNumber > steps
      ) {
        throw bad(
          `groups[${index}].step_number`,
          `"step_number" must be a step of the app, 1 to ${steps}`,
        );
      }
      const parameters = group.parameters ?? [];
      if (!Array.isArray(parameters))
        throw bad(`groups[${index}].parameters`, '"parameters" must be a list');
      return {
        ...(group as unknown as AppGroup),
        id: typeof group.id === 'string' && group.id !== '' ? group.id : randomUUID(),
        step_number: stepNumber,
        parameters: parameters.map((parameter, position) => {
          const field = `groups[${index}].parameters[${position}]`;
          if (
            !isJsonObject(parameter) ||
            typeof parameter.type !== 'string' ||
            !(parameterTypes as readonly string[]).includes(parameter.type)
          ) {
            throw bad(
              `${field}.type`,
              `every parameter needs a "type", one of ${parameterTypes.join(', ')}`,
            );
          }
          return {
            ...(parameter as unknown as AppParameter),
            id:
              typeof parameter.id === 'string' && parameter.id !== '' ? parameter.id : randomUUID(),
          };
        }),
      };
    }),
  };
}

/** The stored definition of a checked request. */
export function definitionOf(request: AppRequest): AppDefinition {
  const steps =
    request.toolIds.length > 0
      ? request.toolIds.map((toolId, index) => ({
          id: randomUUID(),
          name: `step ${index + 1}`,
          tool_id: toolId,
        }))
      : [{ id: randomUUID(), name: 'step 1', tool_id: null }];
  return { steps, groups: request.groups };
}
