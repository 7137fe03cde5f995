import { clauseTypes } from './clauses.ts';
import { sortFields } from './request.ts';

/** `GET /data/documentation`: every clause type with its arguments, and the fields a search may sort by. */
export function searchDocumentation() {
  return {
    clauses: Object.fromEntries(
      Object.entries(clauseTypes).map(([type, { summary, args }]) => [type, { summary, args }]),
    ),
    sortFields: Object.keys(sortFields),
  };
}
