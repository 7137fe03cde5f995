// A pipeline's mappings between the editor and the store. The editor sends and reads DE's shape,
// `{source_step, target_step, map: {<input id>: <output id>}}` (steps by 0-based index, the map
// keyed by the target step's input); the store keeps shared/definition.ts's PipelineMapping, keyed
// by the source step's output, which the job runner reads. A map entry the other way round (output
// → input) is taken too: parameter ids are the groups' own, so which side is which is never in
// doubt.
import {
  outputParameterTypes,
  pathParameterTypes,
  type AppGroup,
  type PipelineMapping,
} from '../shared/index.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';

const bad = (field: string, reason: string, extra: Record<string, unknown> = {}) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field, ...extra });

/** Per step (index), the ids of its path inputs and of its outputs. */
function parameterKinds(groups: AppGroup[], stepCount: number) {
  const inputs = Array.from({ length: stepCount }, () => new Set<string>());
  const outputs = Array.from({ length: stepCount }, () => new Set<string>());
  for (const group of groups)
    for (const parameter of group.parameters) {
      const step = (group.step_number ?? 1) - 1;
      if (pathParameterTypes.includes(parameter.type)) inputs[step]?.add(parameter.id);
      else if (outputParameterTypes.includes(parameter.type)) outputs[step]?.add(parameter.id);
    }
  return { inputs, outputs };
}

/** One (source, target) pair of steps and its links, output → input, in the order sent. */
interface Links {
  source: number;
  target: number;
  links: [output: string, input: string][];
}

/**
 * Checks the editor's `mappings` against the pipeline's steps (their groups, as stored) and
 * answers them as stored: steps in range, the source before the target, each entry pairing an
 * output of the source with a path input of the target, no input fed twice. 400
 * ERR_BAD_OR_MISSING_FIELD names the field at fault.
 */
export function storedMappings(
  body: unknown,
  groups: AppGroup[],
  stepCount: number,
): PipelineMapping[] {
  if (body === undefined || body === null) return [];
  if (!Array.isArray(body))
    throw bad('mappings', '"mappings" must be a list of {source_step, target_step, map}');
  const { inputs, outputs } = parameterKinds(groups, stepCount);
  const fed = new Set<string>();
  const pairs = new Map<string, Links>();
  for (const [index, mapping] of body.entries()) {
    const field = `mappings[${index}]`;
    if (!isJsonObject(mapping))
      throw bad(field, 'a mapping must be an object {source_step, target_step, map}');
    const stepOf = (name: 'source_step' | 'target_step') => {
      const step = mapping[name];
      if (typeof step !== 'number' || !Number.isInteger(step) || step < 0 || step >= stepCount)
        throw bad(
          `${field}.${name}`,
          `"${name}" must be the index of a step, 0 to ${stepCount - 1}`,
        );
      return step;
    };
    const source = stepOf('source_step');
    const target = stepOf('target_step');
    if (source >= target)
      throw bad(
        `${field}.target_step`,
        'a mapping feeds a later step: "target_step" must be above "source_step"',
      );
    const map = mapping.map;
    if (!isJsonObject(map) || Object.values(map).some((id) => typeof id !== 'string'))
      throw bad(
        `${field}.map`,
        '"map" must be an object of parameter ids, {<input id>: <output id>}',
      );
    const pair = pairs.get(`${source}/${target}`) ?? { source, target, links: [] };
    pairs.set(`${source}/${target}`, pair);
    for (const [key, value] of Object.entries(map) as [string, string][]) {
      const [output, input] =
        inputs[target]!.has(key) && outputs[source]!.has(value)
          ? [value, key]
          : outputs[source]!.has(key) && inputs[target]!.has(value)
            ? [key, value]
            : [];
      if (output === undefined || input === undefined)
        throw bad(
          `${field}.map`,
          `"${key}": "${value}" must pair an input (${pathParameterTypes.join(', ')}) of step ${target + 1} with an output (${outputParameterTypes.join(', ')}) of step ${source + 1}`,
          { parameter_ids: [key, value] },
        );
      if (fed.has(`${target}/${input}`))
        throw bad(`${field}.map`, `input ${input} of step ${target + 1} is mapped more than once`, {
          parameter_id: input,
        });
      fed.add(`${target}/${input}`);
      pair.links.push([output, input]);
    }
  }
  // Stored maps are keyed by output: an output feeding several inputs takes one map per input.
  return [...pairs.values()].flatMap(({ source, target, links }) => {
    const maps: [string, string][][] = [];
    for (const link of links) {
      const free = maps.find((entries) => !entries.some(([output]) => output === link[0]));
      if (free) free.push(link);
      else maps.push([link]);
    }
    return maps.map((entries) => ({
      source_step: source,
      target_step: target,
      map: Object.fromEntries(entries),
    }));
  });
}

/** Stored mappings as the editor reads them: one per pair of steps, `{<input id>: <output id>}`. */
export function editorMappings(stored: PipelineMapping[] = []) {
  const pairs = new Map<string, { source: number; target: number; entries: [string, string][] }>();
  for (const mapping of stored) {
    const key = `${mapping.source_step}/${mapping.target_step}`;
    const pair = pairs.get(key) ?? {
      source: mapping.source_step,
      target: mapping.target_step,
      entries: [],
    };
    pairs.set(key, pair);
    for (const [output, input] of Object.entries(mapping.map)) pair.entries.push([input, output]);
  }
  return [...pairs.values()].map(({ source, target, entries }) => ({
    source_step: source,
    target_step: target,
    map: Object.fromEntries(entries),
  }));
}
