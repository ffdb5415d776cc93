import { errorMessage } from '@svc/console-shared';
import { onMounted, ref } from 'vue';
import { type BrowsableModel, loadModels } from './models';

/** Every model the server says the user may act on, with what they may do (`GET …/models`), read once. */
export function useModels() {
  const models = ref<BrowsableModel[]>([]);
  const error = ref('');
  const loaded = ref(false);

  onMounted(async () => {
    try {
      models.value = await loadModels();
    } catch (e) {
      error.value = errorMessage(e);
    } finally {
      loaded.value = true;
    }
  });

  return { models, error, loaded };
}
