import type { App } from 'vue';

/**
 * Removes a component registered on the whole app, as a stopped plugin's UI takes its components away. Vue offers no
 * way to (`app.component` only adds and reads); its registry is the app context's `components`, a plain object by
 * name. This is the one place that reaches into it, and test/component-registry.test.ts fails if Vue moves it.
 */
export function unregisterComponent(app: App, name: string): void {
  const components = (app as { _context?: { components?: Record<string, unknown> } })._context?.components;
  if (!components) {
    throw new Error(`cannot unregister component ${name}: this Vue keeps no app._context.components any more`);
  }
  delete components[name];
}
