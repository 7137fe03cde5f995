// The apps service's shared room: what every other room of the service uses and nothing of theirs.
// Who is calling (caller.ts) and their workspace (workspace.ts), what was shared with them
// (shared-access.ts), what an app is (definition.ts), a parameter's value (parameter-values.ts)
// and the arguments it gives a step (arg-preview.ts).
export { anonymousUser, shortUser, signedInUser } from './caller.ts';
export { levelOf, sharedIds, sharedLevels } from './shared-access.ts';
export {
  appRequest,
  definitionOf,
  isPipeline,
  mappedInputs,
  outputParameterTypes,
  parameterTypes,
  pathParameterTypes,
  type AppDefinition,
  type AppGroup,
  type AppParameter,
  type AppRequest,
  type AppStep,
  type PipelineMapping,
} from './definition.ts';
export { callerId, workspaceOf } from './workspace.ts';
export { argumentPreview, argumentsOf } from './arg-preview.ts';
export { blank, typed } from './parameter-values.ts';
/** Shapes of the OpenAPI tables that several rooms' routes take or answer. */
export {
  appVersionProperties,
  appListingRequired,
  listedAppProperties,
  unversionedAppProperties,
  versionedAppRequired,
  pipelineEligibility,
  rating,
  limitChecks,
  detailedAppProperties,
  adminAppDetailsProperties,
  containerImage,
  toolContainer,
  toolSummaryProperties,
  toolSummaryRequired,
  appToolDetail,
  appVersion,
  jobStats,
  appDocumentation,
  htcondorExtra,
  looseLimitChecks,
  appTool,
  looseAppVersion,
  namedItem,
  parameterGroup,
  appDefinitionProperties,
  looseAppDefinitionProperties,
  appTaskProperties,
  appJobViewProperties,
  appJobView,
  unreadOptionalBody,
  analysisSelection,
  uiParameterGroup,
  savedApp,
  elementType,
} from './documented-shapes.ts';
