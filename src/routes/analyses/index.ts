// The analyses area (routes.md §11): analyses (tag analyses, all passthroughs) and quick launches
// (tag analyses-quicklaunches, quicklaunches.ts).
import { Type, type TSchema } from 'typebox';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';
import { ErrorAnswer } from '../../common/error-replies.ts';
import { quickLaunchPassthroughs } from './quicklaunches.ts';
import { analysisSharing } from '../shared/sharing-schemas.ts';

const msString = (description: string) =>
  Type.String({
    pattern: '^\\d+$',
    description: `${description}: milliseconds since the epoch, as a string ("0": none)`,
  });

/** One step of an analysis (the upstream AnalysisStep). */
const stepFields = {
  step_number: Type.Integer({ minimum: 1, description: 'The step number in the analysis' }),
  external_id: Type.String({ description: 'The id of the step on the system that runs it' }),
  startdate: msString('When the step started'),
  enddate: msString('When the step ended'),
  status: Type.String({ description: 'Submitted, Running, Completed, Failed or Canceled' }),
  app_step_number: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: "The app's step number (several app steps may run as one)",
    }),
  ),
  step_type: Type.String({
    description:
      'The kind of job the step runs: DE (a batch step on the platform executor), Interactive (a VICE step)',
  }),
};

const stepList = <Step extends TSchema>(step: Step) =>
  Type.Object({
    analysis_id: Type.String({ format: 'uuid' }),
    steps: Type.Array(step),
    timestamp: msString('When the list was read'),
    total: Type.Integer({ description: 'The number of steps' }),
  });

/** The status history as the web UI reads it (routes.md §11, clients.md §5.4): per step, its updates in order. */
const AnalysisHistory = stepList(
  Type.Object({
    ...stepFields,
    updates: Type.Array(
      Type.Object({
        status: Type.String(),
        message: Type.String(),
        timestamp: msString('When the status was reached'),
      }),
      { description: 'Oldest first' },
    ),
  }),
);

const analysisRows: PassthroughRoute<Tag>[] = [
  {
    method: ['GET', 'POST'],
    path: '/analyses',
    backend: 'apps',
    tag: 'analyses',
    summary: 'List analyses or launch one',
  },
  {
    method: 'GET',
    path: '/analyses/stats',
    backend: 'apps',
    tag: 'analyses',
    summary: 'Count analyses by status',
  },
  {
    method: 'POST',
    path: '/analyses/permission-lister',
    backend: 'apps',
    tag: 'analyses',
    summary: 'List analysis permissions',
    body: analysisSharing.lister.body,
    responses: { 200: analysisSharing.lister.answer },
  },
  {
    method: 'POST',
    path: '/analyses/relauncher',
    backend: 'apps',
    tag: 'analyses',
    summary: 'Relaunch analyses',
  },
  {
    method: 'POST',
    path: '/analyses/shredder',
    backend: 'apps',
    tag: 'analyses',
    summary: 'Delete analyses',
  },
  {
    method: 'POST',
    path: '/analyses/sharing',
    backend: 'apps',
    tag: 'analyses',
    summary: 'Share analyses',
    body: analysisSharing.sharing.body,
    responses: { 200: analysisSharing.sharing.answer },
  },
  {
    method: 'POST',
    path: '/analyses/unsharing',
    backend: 'apps',
    tag: 'analyses',
    summary: 'Unshare analyses',
    body: analysisSharing.unsharing.body,
    responses: { 200: analysisSharing.unsharing.answer },
  },
  {
    method: ['PATCH', 'DELETE'],
    path: '/analyses/{analysis-id}',
    backend: 'apps',
    tag: 'analyses',
    summary: 'Update or delete an analysis',
  },
  {
    method: 'GET',
    path: '/analyses/{analysis-id}/history',
    backend: 'apps',
    tag: 'analyses',
    summary: 'Get the status history of an analysis',
    responses: { 200: AnalysisHistory, 404: ErrorAnswer },
  },
  {
    method: 'GET',
    path: '/analyses/{analysis-id}/parameters',
    backend: 'apps',
    tag: 'analyses',
    summary: 'List the parameters of an analysis',
  },
  {
    method: 'GET',
    path: '/analyses/{analysis-id}/relaunch-info',
    backend: 'apps',
    tag: 'analyses',
    summary: 'Get the launch form of an analysis with its saved values',
  },
  {
    method: 'GET',
    path: '/analyses/{analysis-id}/steps',
    backend: 'apps',
    tag: 'analyses',
    summary: 'List the steps of an analysis',
    responses: { 200: stepList(Type.Object(stepFields)), 404: ErrorAnswer },
  },
  {
    method: 'POST',
    path: '/analyses/{analysis-id}/stop',
    backend: 'apps',
    tag: 'analyses',
    summary: 'Stop an analysis',
  },
  {
    method: 'GET',
    path: '/analyses/{analysis-id}/logs',
    backend: 'interactive-apps',
    backendPath: '/vice/{analysis-id}/logs',
    tag: 'analyses',
    summary: 'Get the logs of an interactive analysis',
  },
  {
    method: ['GET', 'POST'],
    path: '/analyses/{analysis-id}/time-limit',
    backend: 'interactive-apps',
    backendPath: '/vice/{analysis-id}/time-limit',
    tag: 'analyses',
    summary: 'Get or extend the time limit of an interactive analysis',
  },
];

export const analysisPassthroughs: PassthroughRoute<Tag>[] = [
  ...analysisRows,
  ...quickLaunchPassthroughs,
];
