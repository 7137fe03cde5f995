// The authorization matrix (issue 45 item 5): every operation of /openapi.json that touches
// someone's data is a row here, on a kind of resource (how it is made, and what its owner grants
// to whom), saying what the operation takes; the answer each actor should get follows from that
// (model.ts `expected`), with the exceptions the row names. Every other operation is in
// `outsideTheMatrix` with the reason it touches no one's data. matrix.test.ts walks the rows on
// both engines and fails for an operation that is in neither. docs/development.md says how to
// place a new route.
import { accountKinds, accountRows } from './accounts.ts';
import { annotationKinds, annotationRows } from './annotations.ts';
import { appKinds, appRows } from './apps.ts';
import { dataKinds, dataRows } from './data.ts';
import { groupKinds, groupRows } from './groups.ts';
import { launchKinds, launchRows } from './launches.ts';
import type { Kind, Row } from './model.ts';
import { ownKinds, ownRows } from './own.ts';
import { sessionKinds, sessionRows } from './sessions.ts';

export const kinds: Record<string, Kind> = {
  ...dataKinds,
  ...groupKinds,
  ...appKinds,
  ...ownKinds,
  ...launchKinds,
  ...annotationKinds,
  ...accountKinds,
  ...sessionKinds,
};

export const matrix: Row[] = [
  ...dataRows,
  ...groupRows,
  ...appRows,
  ...ownRows,
  ...launchRows,
  ...annotationRows,
  ...accountRows,
  ...sessionRows,
];

/** Operations that touch no one's data, each with why ("METHOD /path" as in /openapi.json). */
export const outsideTheMatrix: Record<string, string> = {};
