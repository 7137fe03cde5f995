/**
 * An app version's definition as stored (app_versions.definition): its steps, each run by one
 * tool, and the parameter groups of the launch form (spec "App models": AppGroup, AppParameter).
 * A group's `step_number` defaults to 1; parameter ids are UUIDs, shown in the launch view as
 * `<step id>_<parameter id>`.
 */
export interface AppDefinition {
  steps: { id: string; name: string; tool_id: string | null; description?: string }[];
  groups: AppGroup[];
  requirements?: Record<string, unknown>[];
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

/** Parameter types of the launch form (routes.md app-element-types); the file-like ones name data-store paths. */
export const parameterTypes = ['Text', 'MultiLineText', 'Integer', 'Double', 'Flag', 'TextSelection', 'IntegerSelection', 'DoubleSelection', 'FileInput', 'FolderInput', 'MultiFileSelector', 'FileOutput', 'FolderOutput', 'Info'] as const;
export const pathParameterTypes: readonly string[] = ['FileInput', 'FolderInput', 'MultiFileSelector'];
