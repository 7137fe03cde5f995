// A parameter's value as a step is given it: whether a value counts as not given, and the value in
// the parameter's own type (or why it does not fit). Submissions (jobs/job-submission.ts), the
// command-line preview (arg-preview.ts), sandboxed steps and saved launch forms read values alike.
import { isJsonObject } from '../../../common/request-body.ts';
import type { AppParameter } from './definition.ts';

/** A value that counts as not given (the parameter's default, if any, applies). */
export const blank = (value: unknown) =>
  value === undefined ||
  value === null ||
  value === '' ||
  (Array.isArray(value) && value.length === 0);

/** A selection's value: the web UI sends the chosen argument (`{id, name, value, display}`). */
const chosenArgument = (value: unknown) =>
  isJsonObject(value) ? (value.value ?? value.name) : value;

/**
 * The value in the parameter's own type, or a reason it does not fit: what a step is given
 * (submissions) and what the command-line preview shows (arg-preview.ts).
 */
export function typed(
  parameter: AppParameter,
  value: unknown,
): { value: unknown } | { reason: string } {
  switch (parameter.type) {
    case 'Integer':
    case 'IntegerSelection': {
      const chosen = chosenArgument(value);
      const number = typeof chosen === 'string' && chosen.trim() !== '' ? Number(chosen) : chosen;
      return typeof number === 'number' && Number.isInteger(number)
        ? { value: number }
        : { reason: 'a whole number' };
    }
    case 'Double':
    case 'DoubleSelection': {
      const chosen = chosenArgument(value);
      const number = typeof chosen === 'string' && chosen.trim() !== '' ? Number(chosen) : chosen;
      return typeof number === 'number' && Number.isFinite(number)
        ? { value: number }
        : { reason: 'a number' };
    }
    case 'Flag':
      if (typeof value === 'boolean') return { value };
      if (value === 'true' || value === 'false') return { value: value === 'true' };
      return { reason: 'true or false' };
    case 'TextSelection': {
      const chosen = chosenArgument(value);
      const choices = (parameter.arguments ?? []).map((argument) =>
        String(argument.value ?? argument.name),
      );
      return typeof chosen === 'string' && (choices.length === 0 || choices.includes(chosen))
        ? { value: chosen }
        : { reason: `one of ${choices.join(', ')}` };
    }
    case 'MultiFileSelector': {
      // `{path: [...]}` is the shape relaunch-info and app-info show it in.
      const list = isJsonObject(value) && Array.isArray(value.path) ? value.path : value;
      return Array.isArray(list) || typeof list === 'string' || isJsonObject(list)
        ? { value: Array.isArray(list) ? list : [list] }
        : { reason: 'a list of paths' };
    }
    case 'FileInput':
    case 'FolderInput':
      return typeof value === 'string' || (isJsonObject(value) && typeof value.path === 'string')
        ? { value }
        : { reason: 'a path' };
    default:
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? { value: String(value) }
        : { reason: 'text' };
  }
}
