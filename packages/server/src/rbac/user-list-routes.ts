import { CONSOLE_API, CONSOLE_GROUP, DISPLAY_NAME_ANNOTATION, SERVICE_VERSION } from '@svc/plugin-api';
import type { DynamicRoute } from '../api/dynamic-router.js';
import { type HttpContext, JSON_TYPE } from '../api/http-context.js';
import type { UserObject } from '../authn/models.js';
import { pageInfo, parseListQuery, single } from '../registry/list-query.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { ObjectService } from '../registry/object-service.js';
import type { RoleService } from './role-service.js';

const PATH = `${CONSOLE_API}/users`;

/** A user as the console's list shows them: the object, and the roles bound to them with their display names. */
export interface ListedUser {
  user: UserObject;
  roles: Array<{ name: string; displayName?: string }>;
  /** The groups an administrator put the user in. */
  groups: string[];
  /** An identity provider's user: the groups its last ID token named (User `status.providerGroups`). */
  providerGroups: string[];
  /** The roles bound to each of those groups (the user holds them too). */
  groupRoles: Array<{ name: string; displayName?: string; group: string }>;
}

/**
 * The console's user list (docs/access-control.md "Console endpoints"): the generated list's parameters, plus
 * `keyword` (a case-insensitive part of the username, display name or email, which no index can answer) and `role`
 * (users bound to that role); each item carries the user's bound roles, their groups (an administrator's and, for an
 * identity provider's user, the provider's last) and the roles bound to those, so a page of users is one request.
 */
export function userListRoutes(deps: {
  objects: ObjectService;
  users: ServedModel;
  roles: RoleService;
  /** The username a User object's user acts as: bindings name an identity provider's user by it. */
  usernameOf: (objectName: string) => string;
}): DynamicRoute<HttpContext>[] {
  const { objects, users, roles, usernameOf } = deps;
  return [
    {
      method: 'GET',
      path: PATH,
      owner: 'core',
      doc: {
        summary: 'List users with their roles, searched by keyword (username, display name or email) or role',
        description:
          'Query parameters: keyword (a case-insensitive part of the username, display name or email), role (users bound to it), and the generated list parameters page, size, sort, labelSelector, fieldSelector.',
      },
      handler: async (ctx) => {
        const query = ctx.request.target.query;
        const listQuery = parseListQuery(query);
        const keyword = single(query, 'keyword')?.trim().toLowerCase() ?? '';
        const role = single(query, 'role') ?? '';
        const narrowed = keyword !== '' || role !== '';
        // Without a keyword or role the indexes page the list; with one, every match of the selectors is read and
        // narrowed here, since a substring is no index lookup.
        const all = await objects.list(users, narrowed ? { ...listQuery, page: 1, size: undefined } : listQuery);
        const matches = all.items
          .map((bytes) => JSON.parse(bytes.toString('utf8')) as UserObject)
          .filter((user) => keyword === '' || matchesKeyword(user, keyword))
          .filter((user) => role === '' || roles.boundRoles(usernameOf(user.metadata.name)).includes(role));
        const info = pageInfo(narrowed ? matches.length : all.total, listQuery.page ?? 1, listQuery.size);
        const start = narrowed && info.size ? (info.page - 1) * info.size : 0;
        const page = narrowed && info.size ? matches.slice(start, start + info.size) : matches;
        const described = (name: string) => {
          const displayName = roles.role(name)?.annotations[DISPLAY_NAME_ANNOTATION];
          return displayName === undefined ? { name } : { name, displayName };
        };
        const items: ListedUser[] = page.map((user) => {
          const username = usernameOf(user.metadata.name);
          const groups = roles.groupsOf({ username, via: 'session' });
          const providerGroups = user.spec?.identity ? (user.status?.providerGroups ?? []) : [];
          return {
            user,
            roles: roles.boundRoles(username).map(described),
            groups,
            providerGroups,
            groupRoles: [...new Set([...groups, ...providerGroups])].flatMap((group) =>
              roles.groupRoles(group).map((name) => ({ ...described(name), group })),
            ),
          };
        });
        const body = {
          apiVersion: `${CONSOLE_GROUP}/${SERVICE_VERSION}`,
          kind: 'ListedUserList',
          metadata: { resourceVersion: String(all.revision) },
          ...info,
          items,
        };
        return ctx.reply.type(JSON_TYPE).send(JSON.stringify(body));
      },
    },
  ];
}

function matchesKeyword(user: UserObject, keyword: string): boolean {
  return [user.metadata.name, user.spec?.displayName, user.spec?.email].some(
    (text) => text?.toLowerCase().includes(keyword) === true,
  );
}
