import { errorMessage, t } from '@svc/console-shared';
import type { DataTablePageEvent } from 'primevue/datatable';
import { useConfirm } from 'primevue/useconfirm';
import { onMounted, ref } from 'vue';
import { allPosts, type Draft, newPost, type Post } from './posts';

export const POSTS_PAGE_SIZE = 20;

/** The console's "Posts": every post, for editors, a page at a time, newest first; edited, published or deleted. */
export function useAllPosts() {
  const posts = ref<Post[]>([]);
  const total = ref(0);
  const first = ref(0);
  const loading = ref(true);
  const failure = ref('');
  const confirm = useConfirm();

  async function load() {
    loading.value = true;
    try {
      const page = await allPosts().list({
        page: first.value / POSTS_PAGE_SIZE + 1,
        size: POSTS_PAGE_SIZE,
        sort: 'metadata.creationTimestamp,desc',
      });
      posts.value = page.items;
      total.value = page.total;
      failure.value = '';
    } catch (e) {
      failure.value = errorMessage(e);
    } finally {
      loading.value = false;
    }
  }
  onMounted(load);

  function onPage(event: DataTablePageEvent) {
    first.value = event.first;
    void load();
  }

  /** Saves an edit of `current`, or a new post when there is none. Throws svc's refusal, for the dialog to show. */
  async function save(draft: Draft, current: Post | null) {
    if (current) {
      await allPosts().update({ ...current, spec: { ...current.spec, title: draft.title, content: draft.content } });
    } else {
      first.value = 0;
      await allPosts().create(newPost(draft) as Post);
    }
    await load();
  }

  async function publish(post: Post, published: boolean) {
    try {
      const spec = published ? { published, publishedAt: new Date().toISOString() } : { published, publishedAt: null };
      await allPosts().patch(post.metadata.name, { spec });
      await load();
    } catch (e) {
      failure.value = errorMessage(e);
    }
  }

  function remove(post: Post) {
    confirm.require({
      header: t('posts.deleteHeader'),
      message: t('posts.deleteAny', { title: post.spec.title, owner: post.spec.owner ?? t('posts.nobody') }),
      acceptProps: { label: t('common.delete'), severity: 'danger' },
      rejectProps: { label: t('common.cancel'), severity: 'secondary' },
      accept: async () => {
        try {
          await allPosts().delete(post.metadata.name);
          await load();
        } catch (e) {
          failure.value = errorMessage(e);
        }
      },
    });
  }

  return { posts, total, first, loading, failure, onPage, save, publish, remove };
}
