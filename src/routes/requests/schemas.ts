// The shapes of the requests routes (routes.md §23, clients.md "vice"), for validation and the
// OpenAPI document; requests are answered as the requests service keeps them.
import { Type } from 'typebox';

/** The request type VICE access requests are filed under, and its limits (routes.md §23). */
export const viceRequestType = {
  name: 'vice',
  maximumRequestsPerUser: 1,
  maximumConcurrentRequestsPerUser: 10,
};

const ConcurrentJobs = Type.Integer({
  minimum: 0,
  maximum: 10_000,
  description: 'How many analyses the user may have running at once',
});

export const ViceRequestBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 512 })),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    intended_use: Type.String({ minLength: 1, maxLength: 10_000 }),
    concurrent_jobs: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      description: 'How many analyses at once the user asks for',
    }),
  },
  { additionalProperties: true },
);

export const StatusBody = Type.Object(
  { message: Type.Optional(Type.String({ maxLength: 10_000 })) },
  { additionalProperties: true },
);

export const ApprovalBody = Type.Object(
  {
    message: Type.Optional(Type.String({ maxLength: 10_000 })),
    concurrent_jobs: Type.Optional(ConcurrentJobs),
  },
  { additionalProperties: true },
);

const RequestUpdate = Type.Object({
  id: Type.String(),
  status: Type.String({ description: '`submitted`, `in-progress`, `approved` or `rejected`' }),
  created_date: Type.String({ format: 'date-time' }),
  updating_user: Type.String(),
  message: Type.String(),
});

const requestFields = {
  id: Type.String(),
  request_type: Type.String(),
  requesting_user: Type.String({ description: 'Short username' }),
  details: Type.Record(Type.String(), Type.Unknown()),
  created_date: Type.String({ format: 'date-time' }),
  status: Type.String({ description: 'The latest status' }),
  updated_date: Type.String({ format: 'date-time' }),
};

export const RequestSummary = Type.Object(requestFields);
export const RequestDetails = Type.Object({ ...requestFields, updates: Type.Array(RequestUpdate) });
export const RequestListing = Type.Object({ requests: Type.Array(RequestSummary) });
export const RequestIdParams = Type.Object({ requestId: Type.String({ maxLength: 64 }) });
export const AdminIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
