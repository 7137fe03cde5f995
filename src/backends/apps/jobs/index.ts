// The jobs room of the apps service: the job lifecycle. Submission (job-submission.ts), the runner
// and its states (job-runner.ts), steps (analysis-steps.ts, job-step.ts, the built-in executors,
// sandboxed and interactive steps), staging, outputs and logs, concurrent-job limits, callbacks,
// and the analyses routes. The only room that reaches src/backends/executor/, through its door,
// for the engines steps run on (job-engines.ts). Uses the shared, tools and catalog rooms.
export { JobRunner } from './job-runner.ts';
export { jobEngines } from './job-engines.ts';
export { analysisRoutes } from './analysis-routes.ts';
export { jobCallbackRoutes } from './job-callback-routes.ts';
/**
 * Who may see or change an analysis (the interactive-apps routes ask, through the service's door).
 */
export { analysisAccess } from './analysis-access.ts';
/**
 * A launch form filled with a saved submission, as the web UI reads it (quick launches' app-info).
 */
export { groupsWithSaved } from './saved-form.ts';
export { documented } from './documented.ts';
