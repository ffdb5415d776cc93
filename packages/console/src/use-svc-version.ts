import { client } from '@svc/console-shared';
import { onMounted, ref } from 'vue';

/**
 * svc's version in words, from `/version`, which answers as Kubernetes does (`v1.33.0+svc.0.1.0`: the API level it
 * speaks, then svc's own version); empty when it cannot be read.
 */
export function useSvcVersion() {
  const version = ref('');
  onMounted(async () => {
    try {
      const { gitVersion } = await client.request<{ gitVersion: string }>('GET', '/version');
      const [api, own] = gitVersion.split('+svc.');
      version.value = own ? `${own} (Kubernetes API ${api?.replace(/^v/, '')})` : gitVersion;
    } catch {
      version.value = '';
    }
  });
  return version;
}
