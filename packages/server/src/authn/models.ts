import { type ExtensionObject, KIND, type ModelDefinition, SECURITY_GROUP } from '@svc/plugin-api';

/**
 * The models authentication serves. Neither holds a secret: password hashes and token digests live in internal store
 * records (internal-records.ts), so no API, generated or custom, can ever return them.
 */

const timestamp = { type: 'string', format: 'date-time' };

/** A user; `metadata.name` is the username. Core group: `/api/v1alpha1/users`. */
export const userModel: ModelDefinition = {
  group: '',
  version: 'v1alpha1',
  kind: KIND.User,
  plural: 'users',
  singular: 'user',
  // Status (last login) is the server's record: clients cannot write it through the main resource.
  statusSubresource: true,
  schema: {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        additionalProperties: false,
        properties: {
          displayName: { type: 'string', maxLength: 256 },
          email: { type: 'string', format: 'email', maxLength: 320 },
          disabled: { type: 'boolean' },
          // An identity provider's user (oidc-users.ts): only the service writes it (rbac/user-admission.ts).
          identity: {
            type: 'object',
            additionalProperties: false,
            required: ['provider', 'username'],
            properties: {
              provider: { type: 'string', enum: ['oidc'] },
              username: { type: 'string', minLength: 1, maxLength: 1024 },
            },
          },
          // Groups RoleBindings may name; only a super administrator sets them (rbac/user-admission.ts).
          groups: {
            type: 'array',
            maxItems: 100,
            uniqueItems: true,
            items: { type: 'string', minLength: 1, maxLength: 256 },
          },
        },
      },
      status: {
        type: 'object',
        properties: {
          lastLoginAt: timestamp,
          // An identity provider's user: the groups (prefixed) its last ID token named, at a sign-in or as a bearer
          // token. The server's record (user-directory.ts), written only when they change.
          providerGroups: { type: 'array', maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 1024 } },
        },
      },
    },
  },
  indexes: [{ name: 'spec.email' }],
};

export interface UserSpec {
  displayName?: string;
  email?: string;
  disabled?: boolean;
  groups?: string[];
  /** Set on the User object of an identity provider's user: who they are there. Read-only to clients. */
  identity?: UserIdentity;
}

/** An external user's identity: the username their credentials authenticate as (`oidc:alice`), not the object name. */
export interface UserIdentity {
  provider: 'oidc';
  username: string;
}

export type UserObject = ExtensionObject<UserSpec, { lastLoginAt?: string; providerGroups?: string[] }>;

/** A personal access token, without its secret. `/apis/security.svc.run/v1alpha1/personalaccesstokens`. */
export const personalAccessTokenModel: ModelDefinition = {
  group: SECURITY_GROUP,
  version: 'v1alpha1',
  kind: KIND.PersonalAccessToken,
  plural: 'personalaccesstokens',
  singular: 'personalaccesstoken',
  statusSubresource: true,
  schema: {
    type: 'object',
    required: ['spec'],
    properties: {
      spec: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'username', 'roles'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          description: { type: 'string', maxLength: 1000 },
          username: { type: 'string', minLength: 1 },
          roles: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 253 } },
          expiresAt: timestamp,
          revoked: { type: 'boolean' },
          revokedAt: timestamp,
        },
      },
      status: {
        type: 'object',
        properties: { lastUsedAt: timestamp },
      },
    },
  },
  indexes: [{ name: 'spec.username' }],
};

export interface TokenSpec {
  name: string;
  description?: string;
  /** The owner. */
  username: string;
  /** The roles the token acts with: a subset of the owner's roles when it was created. */
  roles: string[];
  expiresAt?: string;
  revoked?: boolean;
  revokedAt?: string;
}

export type TokenObject = ExtensionObject<TokenSpec, { lastUsedAt?: string }>;
