import type { ListResult } from '@svc/client';
import { client, errorMessage, t } from '@svc/console-shared';
import { useConfirm } from 'primevue/useconfirm';
import { useToast } from 'primevue/usetoast';
import { onMounted, ref } from 'vue';
import { type Draft, newPost, OWN_POSTS, type Post } from './posts';

/**
 * The personal center's "My posts": the signed-in user's own posts through the personal center's API (the server sets
 * and checks the owner), written, published (authors) and deleted after a confirmation.
 */
export function useMyPosts() {
  const posts = ref<Post[]>([]);
  const loading = ref(true);
  const failure = ref('');
  const confirm = useConfirm();
  const toast = useToast();

  async function load() {
    loading.value = true;
    try {
      const list = await client.request<ListResult<Post>>('GET', OWN_POSTS, {
        query: { sort: 'metadata.creationTimestamp,desc' },
      });
      posts.value = list.items;
      failure.value = '';
    } catch (e) {
      failure.value = errorMessage(e);
    } finally {
      loading.value = false;
    }
  }
  onMounted(load);

  /** Saves what was written: over `current`, or as a new post. Throws svc's refusal, for the dialog to show. */
  async function save(draft: Draft, current: Post | null) {
    if (current) {
      const spec = { ...current.spec, title: draft.title, content: draft.content };
      await client.request('PUT', `${OWN_POSTS}/${current.metadata.name}`, { body: { ...current, spec } });
    } else {
      await client.request('POST', OWN_POSTS, { body: newPost(draft) });
    }
    toast.add({ severity: 'success', summary: current ? t('posts.saved') : t('posts.created'), life: 3000 });
    await load();
  }

  async function publish(post: Post, published: boolean) {
    try {
      await client.request('PUT', `${OWN_POSTS}/${post.metadata.name}/${published ? 'publish' : 'unpublish'}`);
      await load();
    } catch (e) {
      failure.value = errorMessage(e);
    }
  }

  function remove(post: Post) {
    confirm.require({
      header: t('posts.deleteHeader'),
      message: t('posts.deleteMine', { title: post.spec.title }),
      acceptProps: { label: t('common.delete'), severity: 'danger' },
      rejectProps: { label: t('common.cancel'), severity: 'secondary' },
      accept: async () => {
        try {
          await client.request('DELETE', `${OWN_POSTS}/${post.metadata.name}`);
          await load();
        } catch (e) {
          failure.value = errorMessage(e);
        }
      },
    });
  }

  return { posts, loading, failure, save, publish, remove };
}
