// Tags: service-account-email, service-account-qms.
import type { PassthroughRoute } from '../http/passthrough.js';
import type { Tag } from './shared/tags.js';

const subscriptionUpdater = { serviceRole: 'subscription-updater' };

export const serviceAccountPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'POST',
    path: '/service/email',
    backend: 'email',
    backendPath: '/',
    auth: { serviceRole: 'emailer' },
    tag: 'service-account-email',
    summary: 'Send an email',
  },
  {
    method: 'GET',
    path: '/service/qms/users/{username}/plan',
    backend: 'qms',
    backendPath: '/v1/users/{username}/plan',
    auth: subscriptionUpdater,
    tag: 'service-account-qms',
    summary: "Get a user's plan",
  },
  {
    method: 'GET',
    path: '/service/qms/users/{username}/subscriptions',
    backend: 'qms',
    backendPath: '/v1/users/{username}/subscriptions',
    auth: subscriptionUpdater,
    tag: 'service-account-qms',
    summary: "List a user's subscriptions",
  },
  {
    method: 'GET',
    path: '/service/qms/addons',
    backend: 'subscriptions',
    backendPath: '/addons',
    auth: subscriptionUpdater,
    tag: 'service-account-qms',
    summary: 'List add-ons',
  },
  {
    method: 'GET',
    path: '/service/qms/subscriptions/{sub-uuid}/addons',
    backend: 'subscriptions',
    backendPath: '/subscriptions/{sub-uuid}/addons',
    auth: subscriptionUpdater,
    tag: 'service-account-qms',
    summary: 'List the add-ons of a subscription',
  },
  {
    method: ['GET', 'PUT', 'DELETE'],
    path: '/service/qms/subscriptions/{sub-uuid}/addons/{uuid}',
    backend: 'subscriptions',
    backendPath: '/subscriptions/{sub-uuid}/addons/{uuid}',
    auth: subscriptionUpdater,
    tag: 'service-account-qms',
    summary: 'Get, update or remove a subscription add-on',
  },
];
