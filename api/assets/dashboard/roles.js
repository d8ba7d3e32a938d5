// Shipmate dashboard: the project roles, weakest last, and what each may do (docs/accounts.md,
// "Teams and roles").

export const ROLES = {
  owner: ['Owner', 'everything, including deleting the project and managing owners'],
  admin: ['Admin', 'everything else: API keys, members other than owners, invites'],
  member: ['Member', 'all the work: moderation, changelog, knowledge base, analytics'],
  viewer: ['Viewer', 'reads only'],
};

export const roleLabel = (role) => (ROLES[role] ? ROLES[role][0] : String(role || ''));

/** The caller's role in `project`; a project object without one predates roles, so its key decides. */
export function myRole(project) {
  return project.role || (project.api_key ? 'owner' : 'viewer');
}
