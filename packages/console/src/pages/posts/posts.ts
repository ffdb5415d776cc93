import type { ExtensionObject } from '@svc/client';
import { client } from '@svc/console-shared';

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
export const OWN_POSTS = '/apis/uc.api.content.svc.run/v1alpha1/posts';

/** Every post, for editors (the generated API of `content.svc.run`). */
export const allPosts = () => client.resource<Post>({ group: 'content.svc.run', version: 'v1alpha1', plural: 'posts' });
