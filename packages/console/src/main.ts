import Base from '@primevue/core/base';
import { i18n } from '@svc/console-shared';
import PrimeVue from 'primevue/config';
import ConfirmationService from 'primevue/confirmationservice';
import ToastService from 'primevue/toastservice';
import { createApp } from 'vue';
import App from './App.vue';
import HasPermission from './components/HasPermission.vue';
import { followConsoleEvents } from './console-events';
import { startI18n } from './i18n';
import { permissionDirective } from './permission-directive';
import { installPluginUis } from './plugin-uis';
import { router, warmRouteComponents } from './router';
import 'primeicons/primeicons.css';
import './styles/base.css';
import './styles/pages.css';
import './styles/forms.css';
// PrimeVue's theme, built at build time from src/theme.ts (vite.config.ts): after the console's own styles, where
// PrimeVue used to inject it.
import 'virtual:primevue-theme.css';

// PrimeVue's core rules are in that sheet too. PrimeVue 4.5 would inject them anyway and, forgetting on every
// component's mount what it has injected (BaseComponent._themeChangeListener clears the marks, meant for a theme
// switch), set the same <style>'s text again per instance, which the browser reads afresh each time
// (primefaces/primevue#8580). The console never switches themes: every core style counts as loaded.
Base.isStyleNameLoaded = () => true;

// svc serves index.html with a fresh nonce in its Content-Security-Policy and on this tag; PrimeVue would put it on
// any <style> it injected (none is expected now), which the policy would refuse otherwise.
const nonce = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce || undefined;

const app = createApp(App);
app.use(PrimeVue, {
  // The theme's CSS is a static stylesheet (above): nothing to compute at start-up or on a component's first mount.
  theme: 'none',
  csp: { nonce },
  // A data table too wide for a phone scrolls inside its container, which keyboard users reach with Tab to scroll it.
  pt: { datatable: { tableContainer: { tabindex: 0 } } },
});
app.use(i18n);
app.use(ToastService);
app.use(ConfirmationService);
// Global, so pages and plugin UIs guard their parts without an import, as Halo's console does.
app.component('HasPermission', HasPermission);
app.directive('permission', permissionDirective);
// The first page's code loads while the session and the plugin UIs are asked for, not after.
warmRouteComponents(router, `${window.location.pathname}${window.location.search}`);
// Before the router starts: the first navigation waits for the plugin UIs, so a deep link to a plugin's page works.
installPluginUis(app, router, followConsoleEvents);
app.use(router);
// The first screen in its language: Chinese messages are fetched first when chosen (README "Languages").
await startI18n();
app.mount('#app');
