import type { ExtensionObject } from '@svc/client';
import { client } from '@svc/console-shared';
import {
  apisPath,
  CONTENT_API_VERSION,
  CONTENT_GROUP,
  KIND,
  SERVICE_VERSION,
  USER_CONTENT_GROUP,
} from '@svc/plugin-api';

/** A post as the content API serves it (`content.svc.run/v1alpha1`, kind Post). */
export type Post = ExtensionObject<PostSpec, object> & { spec: PostSpec };

export interface PostSpec {
  title: string;
  content?: string;
  owner?: string;
  published?: boolean;
  publishedAt?: string;
}

/** What a writer edits. */
export interface Draft {
  title: string;
  content: string;
}

/** The signed-in user's own posts (the personal center's API: the server sets and checks the owner). */
export const OWN_POSTS = `${apisPath(USER_CONTENT_GROUP)}/posts`;

/** Every post, for editors (the generated API of `content.svc.run`). */
export const allPosts = () =>
  client.resource<Post>({ group: CONTENT_GROUP, version: SERVICE_VERSION, plural: 'posts' });

/** A new post of the signed-in user's, from what they wrote (the server names it and sets the owner). */
export const newPost = (draft: Draft) => ({
  apiVersion: CONTENT_API_VERSION,
  kind: KIND.Post,
  metadata: { generateName: 'post-' },
  spec: draft,
});
