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
import { catalogKinds, catalogRows } from './catalog.ts';
import { dataKinds, dataRows } from './data.ts';
import { groupKinds, groupRows } from './groups.ts';
import { launchKinds, launchRows } from './launches.ts';
import type { Kind, Row } from './model.ts';
import { ownKinds, ownRows } from './own.ts';
import { sessionKinds, sessionRows } from './sessions.ts';

/** The parts of the matrix, by area: each its kinds of resources and its rows. */
const parts: { kinds: Record<string, Kind>; rows: Row[] }[] = [
  { kinds: dataKinds, rows: dataRows },
  { kinds: groupKinds, rows: groupRows },
  { kinds: appKinds, rows: appRows },
  { kinds: catalogKinds, rows: catalogRows },
  { kinds: ownKinds, rows: ownRows },
  { kinds: launchKinds, rows: launchRows },
  { kinds: annotationKinds, rows: annotationRows },
  { kinds: accountKinds, rows: accountRows },
  { kinds: sessionKinds, rows: sessionRows },
];

export const kinds: Record<string, Kind> = Object.assign({}, ...parts.map((part) => part.kinds));

export const matrix: Row[] = parts.flatMap((part) => part.rows);

/** Operations that touch no one's data, each with why ("METHOD /path" as in /openapi.json). */
export const outsideTheMatrix: Record<string, string> = {};
