import PrimeVue from 'primevue/config';
import ConfirmationService from 'primevue/confirmationservice';
import ToastService from 'primevue/toastservice';
import { createApp } from 'vue';
import App from './App.vue';
import HasPermission from './components/HasPermission.vue';
import { permissionDirective } from './permission-directive';
import { router } from './router';
import { ConsoleTheme } from './theme';
import './style.css';

// svc serves index.html with a fresh nonce in its Content-Security-Policy and on this tag; PrimeVue puts it on the
// <style> elements its theme injects, which the policy would refuse otherwise.
const nonce = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce || undefined;

const app = createApp(App);
app.use(PrimeVue, { theme: { preset: ConsoleTheme, options: { darkModeSelector: false } }, csp: { nonce } });
app.use(ToastService);
app.use(ConfirmationService);
// Global, so pages and plugin UIs guard their parts without an import, as Halo's console does.
app.component('HasPermission', HasPermission);
app.directive('permission', permissionDirective);
app.use(router);
app.mount('#app');
