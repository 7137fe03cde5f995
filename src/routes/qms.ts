// Tags: qms, admin-qms, resource-usage, admin-request-types, admin-requests.
import type { PassthroughRoute } from '../http/passthrough.js';

export const qmsRoutes: PassthroughRoute[] = [
  { method: 'GET', path: '/qms/plans', backend: 'qms', backendPath: '/v1/plans', auth: 'optional', tag: 'qms', summary: 'List plans' },
  { method: 'GET', path: '/qms/plans/{plan-id}', backend: 'qms', backendPath: '/v1/plans/{plan-id}', auth: 'optional', tag: 'qms', summary: 'Get a plan' },
  { method: 'GET', path: '/qms/resource-types', backend: 'qms', backendPath: '/v1/resource-types', auth: 'optional', tag: 'qms', summary: 'List resource types' },
  { method: 'GET', path: '/qms/user/plan', backend: 'qms', backendPath: '/v1/users/{user}/plan', tag: 'qms', summary: "Get the user's plan" },
  { method: 'GET', path: '/qms/user/subscriptions', backend: 'qms', backendPath: '/v1/users/{user}/subscriptions', tag: 'qms', summary: "List the user's subscriptions" },
  { method: 'GET', path: '/qms/user/usages', backend: 'qms', backendPath: '/v1/usages/{user}', tag: 'qms', summary: "List the user's resource usages" },
  { method: 'POST', path: '/admin/qms/usages', backend: 'qms', backendPath: '/v1/usages', auth: 'admin', tag: 'admin-qms', summary: 'Add a resource usage' },
  { method: 'GET', path: '/admin/qms/subscriptions', backend: 'qms', backendPath: '/v1/subscriptions', auth: 'admin', tag: 'admin-qms', summary: 'List subscriptions' },
  { method: 'GET', path: '/admin/qms/subscriptions/{sub-uuid}/addons', backend: 'subscriptions', backendPath: '/subscriptions/{sub-uuid}/addons', auth: 'admin', tag: 'admin-qms', summary: 'List the add-ons of a subscription' },
  { method: ['GET', 'PUT', 'DELETE'], path: '/admin/qms/subscriptions/{sub-uuid}/addons/{uuid}', backend: 'subscriptions', backendPath: '/subscriptions/{sub-uuid}/addons/{uuid}', auth: 'admin', tag: 'admin-qms', summary: 'Get, update or remove a subscription add-on' },
  { method: 'GET', path: '/admin/qms/addons', backend: 'subscriptions', backendPath: '/addons', auth: 'admin', tag: 'admin-qms', summary: 'List add-ons' },
  { method: 'DELETE', path: '/admin/qms/addons/{uuid}', backend: 'subscriptions', backendPath: '/addons/{uuid}', auth: 'admin', tag: 'admin-qms', summary: 'Delete an add-on' },
  { method: 'GET', path: '/admin/qms/users/{username}/usages', backend: 'qms', backendPath: '/v1/usages/{username}', auth: 'admin', tag: 'admin-qms', summary: "List a user's resource usages" },
  { method: 'GET', path: '/admin/qms/users/{username}/plan', backend: 'qms', backendPath: '/v1/users/{username}/plan', auth: 'admin', tag: 'admin-qms', summary: "Get a user's plan" },
  { method: 'GET', path: '/admin/qms/users/{username}/subscriptions', backend: 'qms', backendPath: '/v1/users/{username}/subscriptions', auth: 'admin', tag: 'admin-qms', summary: "List a user's subscriptions" },
  { method: 'PUT', path: '/admin/qms/users/{username}/plan/{plan-name}', backend: 'qms', backendPath: '/v1/users/{username}/{plan-name}', auth: 'admin', tag: 'admin-qms', summary: "Change a user's plan" },
  { method: 'GET', path: '/resource-usage/summary', backend: 'resource-usage', backendPath: '/summary/{qualified-user}', tag: 'resource-usage', summary: "Summarize the user's resource usage" },
  { method: 'GET', path: '/resource-usage/data/current', backend: 'data-usage', backendPath: '/{qualified-user}/data/current', tag: 'resource-usage', summary: "Get the user's current data usage" },
  { method: 'GET', path: '/admin/request-types', backend: 'requests', backendPath: '/request-types', auth: 'admin', tag: 'admin-request-types', summary: 'List request types' },
  { method: ['GET', 'POST', 'PATCH'], path: '/admin/request-types/{name}', backend: 'requests', backendPath: '/request-types/{name}', auth: 'admin', tag: 'admin-request-types', summary: 'Get, register or update a request type' },
  { method: 'GET', path: '/admin/requests', backend: 'requests', backendPath: '/requests', auth: 'admin', tag: 'admin-requests', summary: 'List requests' },
  { method: 'GET', path: '/admin/requests/{id}', backend: 'requests', backendPath: '/requests/{id}', auth: 'admin', tag: 'admin-requests', summary: 'Get a request' },
];
