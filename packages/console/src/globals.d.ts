import type HasPermission from './components/HasPermission.vue';

// The globally registered guard, typed in every template (and in plugin UIs that include this file).
declare module 'vue' {
  interface GlobalComponents {
    HasPermission: typeof HasPermission;
  }
}
