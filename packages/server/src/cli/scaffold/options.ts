import { SERVICE_DOMAIN } from '@svc/plugin-api';
/** What the scaffold templates are filled with. */
export interface ScaffoldOptions {
  /** The plugin's name: a lowercase DNS label, already validated. */
  name: string;
  /** `My Notes` for `my-notes`. */
  displayName: string;
  /** `spec.requires`, for example `>=0.1.0`. */
  requires: string;
  /** The plugin API packed inside the plugin folder, relative to it (vendor/…tgz), for the `file:` dependency. */
  pluginApiTarball: string;
  /** The svc command packed inside the plugin folder (vendor/…tgz), for the `file:` dev dependency. */
  pluginCliTarball: string;
  /** The types of the console's shared modules packed inside the plugin folder (vendor/…tgz), for the UI's check. */
  consoleSharedTarball: string;
  /** The test harness, the server it runs and the client, packed inside the plugin folder (vendor/…tgz). */
  harness: { pluginTesting: string; server: string; client: string };
  /** Version ranges of the host repository's own TypeScript, vitest, esbuild, vue-tsc and vue-i18n. */
  typescriptRange: string;
  vitestRange: string;
  esbuildRange: string;
  vueTscRange: string;
  vueI18nRange: string;
}

/** The API group of the plugin's own model and its console / public forms. */
export function groupsOf(name: string) {
  const own = `${name}.${SERVICE_DOMAIN}`;
  return { own, console: `console.api.${own}`, public: `api.${own}`, version: 'v1alpha1' };
}

/** `my-notes` → `My Notes`. */
export function displayNameOf(name: string): string {
  return name
    .split('-')
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join(' ');
}
