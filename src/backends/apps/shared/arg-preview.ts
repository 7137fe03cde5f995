// The command-line preview of the app editor (`POST /apps/{system-id}/arg-preview`, routes.md §16):
// from an app as the editor holds it, with values in its parameters, the arguments a step would be
// given, in argument order. Values are read and typed exactly as a submission's are
// (parameter-values.ts `blank`, `typed`); what a submission would refuse is refused here too.
import { appRequest, type AppParameter } from './definition.ts';
import { blank, typed } from './parameter-values.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import { gatewayError } from '../../../common/errors.ts';

export interface PreviewArgument {
  name: string;
  value: string;
  order: number;
}

/** A path as submissions carry it: a string, or `{path}`. */
const pathText = (value: unknown): string =>
  isJsonObject(value) && typeof value.path === 'string' ? value.path : String(value);

/**
 * The arguments one parameter with its (typed) value gives (also a sandboxed step's,
 * jobs/sandbox-step.ts).
 */
export function argumentsOf(
  parameter: AppParameter,
  value: unknown,
  order: number,
): PreviewArgument[] {
  const name = parameter.name ?? '';
  switch (parameter.type) {
    case 'Flag':
      return value === true ? [{ name, value: '', order }] : [];
    case 'TextSelection':
    case 'IntegerSelection':
    case 'DoubleSelection': {
      const chosen = (parameter.arguments ?? []).find(
        (argument) => String(argument.value ?? argument.name) === String(value),
      );
      return [
        {
          name: typeof chosen?.name === 'string' && chosen.value !== undefined ? chosen.name : name,
          value: String(value),
          order,
        },
      ];
    }
    case 'MultiFileSelector':
      return (value as unknown[]).map((item) => ({ name, value: pathText(item), order }));
    case 'FileInput':
    case 'FolderInput':
      return [{ name, value: pathText(value), order }];
    default:
      return [{ name, value: String(value), order }];
  }
}

/**
 * The arguments of every parameter of an editor's app, sorted by `order` (parameters without one
 * count as 0 and keep their place in the form). A parameter's value is its `value`, else its
 * `defaultValue`; a blank one gives nothing when `omit_if_blank` (the default), else its name with
 * an empty value. Info parameters give nothing. A value the parameter's type cannot take is 400
 * ERR_BAD_OR_MISSING_FIELD naming the parameter.
 */
export function argumentPreview(body: unknown): { params: PreviewArgument[] } {
  const request = appRequest(body, { name: 'preview', description: '' });
  const found: PreviewArgument[] = [];
  for (const [index, group] of request.groups.entries())
    for (const [position, parameter] of group.parameters.entries()) {
      if (parameter.type === 'Info') continue;
      const order = typeof parameter.order === 'number' ? parameter.order : 0;
      const value = blank(parameter.value) ? parameter.defaultValue : parameter.value;
      if (blank(value)) {
        if (parameter.omit_if_blank === false)
          found.push({ name: parameter.name ?? '', value: '', order });
        continue;
      }
      const checked = typed(parameter, value);
      if ('reason' in checked)
        throw gatewayError(
          'ERR_BAD_OR_MISSING_FIELD',
          `parameter ${parameter.label ?? parameter.name ?? parameter.id} needs ${checked.reason}`,
          { field: `groups[${index}].parameters[${position}].value` },
        );
      found.push(...argumentsOf(parameter, checked.value, order));
    }
  // Array.prototype.sort is stable: equal orders keep the form's order.
  return { params: found.sort((a, b) => a.order - b.order) };
}
