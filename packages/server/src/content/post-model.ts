import { CONTENT_GROUP, type ExtensionObject, KIND, type ModelDefinition } from '@svc/plugin-api';

export interface PostSpec {
  title: string;
  content?: string;
  /** The user who owns the post; set by the server on the user-center API. */
  owner?: string;
  published?: boolean;
  publishedAt?: string;
}

export type Post = ExtensionObject<PostSpec>;

/** Posts, the content the built-in contributor, author and editor roles act on. `content.svc.run/v1alpha1`. */
export const postModel: ModelDefinition = {
  group: CONTENT_GROUP,
  version: 'v1alpha1',
  kind: KIND.Post,
  plural: 'posts',
  singular: 'post',
  schema: {
    type: 'object',
    required: ['spec'],
    properties: {
      spec: {
        type: 'object',
        required: ['title'],
        additionalProperties: false,
        properties: {
          title: { type: 'string', minLength: 1, maxLength: 200 },
          content: { type: 'string', maxLength: 1_000_000 },
          owner: { type: 'string', maxLength: 253 },
          published: { type: 'boolean', default: false },
          publishedAt: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
  indexes: [{ name: 'spec.owner' }, { name: 'spec.published' }, { name: 'spec.publishedAt' }],
};
