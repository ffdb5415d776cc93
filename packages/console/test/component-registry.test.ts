import { describe, expect, it } from 'vitest';
import { createApp, defineComponent } from 'vue';
import { unregisterComponent } from '../src/component-registry.js';

describe('unregisterComponent', () => {
  it("removes a component from the app's registry, leaving the others", () => {
    const app = createApp({});
    app.component('PluginCard', defineComponent({ name: 'PluginCard' }));
    app.component('HostCard', defineComponent({ name: 'HostCard' }));
    unregisterComponent(app, 'PluginCard');
    expect(app.component('PluginCard')).toBeUndefined();
    expect(app.component('HostCard')).toBeDefined();
    // Registered again later (the plugin started again) as any new component.
    app.component('PluginCard', defineComponent({ name: 'PluginCard' }));
    expect(app.component('PluginCard')).toBeDefined();
  });
});
