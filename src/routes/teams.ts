// Tags: collaborator-lists, teams, communities, subjects.
import type { PassthroughRoute } from '../http/passthrough.js';

export const teamsRoutes: PassthroughRoute[] = [
  { method: ['GET', 'POST'], path: '/collaborator-lists', backend: 'groups', tag: 'collaborator-lists', summary: 'List or add collaborator lists' },
  { method: ['GET', 'PATCH'], path: '/collaborator-lists/{name}', backend: 'groups', tag: 'collaborator-lists', summary: 'Get or update a collaborator list' },
  { method: ['GET', 'POST'], path: '/collaborator-lists/{name}/members', backend: 'groups', tag: 'collaborator-lists', summary: 'List or add collaborator list members' },
  { method: ['GET', 'POST'], path: '/teams', backend: 'groups', tag: 'teams', summary: 'List or add teams' },
  { method: ['GET', 'PATCH'], path: '/teams/{name}', backend: 'groups', tag: 'teams', summary: 'Get or update a team' },
  { method: 'GET', path: '/teams/{name}/members', backend: 'groups', tag: 'teams', summary: 'List team members' },
  { method: 'POST', path: '/teams/{name}/members/deleter', backend: 'groups', tag: 'teams', summary: 'Remove team members' },
  { method: ['GET', 'POST'], path: '/teams/{name}/privileges', backend: 'groups', tag: 'teams', summary: 'List or update team privileges' },
  { method: 'POST', path: '/teams/{name}/join', backend: 'groups', tag: 'teams', summary: 'Join a team' },
  { method: 'POST', path: '/teams/{name}/leave', backend: 'groups', tag: 'teams', summary: 'Leave a team' },
  { method: ['GET', 'POST'], path: '/communities', backend: 'groups', tag: 'communities', summary: 'List or add communities' },
  { method: ['GET', 'DELETE'], path: '/communities/{name}', backend: 'groups', tag: 'communities', summary: 'Get or delete a community' },
  { method: 'GET', path: '/communities/{name}/admins', backend: 'groups', tag: 'communities', summary: 'List community administrators' },
  { method: 'POST', path: '/communities/{name}/admins/deleter', backend: 'groups', tag: 'communities', summary: 'Remove community administrators' },
  { method: 'GET', path: '/communities/{name}/members', backend: 'groups', tag: 'communities', summary: 'List community members' },
  { method: 'POST', path: '/communities/{name}/join', backend: 'groups', tag: 'communities', summary: 'Join a community' },
  { method: 'POST', path: '/communities/{name}/leave', backend: 'groups', tag: 'communities', summary: 'Leave a community' },
  { method: 'GET', path: '/subjects', backend: 'groups', tag: 'subjects', summary: 'Search users and groups' },
];
