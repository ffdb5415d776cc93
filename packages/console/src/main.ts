import { createApp } from 'vue';
import App from './App.vue';
import HasPermission from './components/HasPermission.vue';
import { permissionDirective } from './permission-directive';
import { router } from './router';
import './style.css';

const app = createApp(App);
// Global, so pages (and later plugin UIs) guard their parts without an import, as Halo's console does.
app.component('HasPermission', HasPermission);
app.directive('permission', permissionDirective);
app.use(router);
app.mount('#app');
