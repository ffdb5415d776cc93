// PrimeVue's event buses of toasts and confirmations (`@primeuix/utils`' EventBus) ship without declarations.
declare module 'primevue/toasteventbus' {
  const bus: {
    on(type: string, handler: (value: unknown) => void): void;
    off(type: string, handler: (value: unknown) => void): void;
    emit(type: string, value: unknown): void;
  };
  export default bus;
}
declare module 'primevue/confirmationeventbus' {
  // Another instance of the same EventBus.
  const bus: typeof import('primevue/toasteventbus').default;
  export default bus;
}
// PrimeVue's record of the core styles it has injected (@primevue/core/base) ships without declarations too; the
// console uses only this (main.ts).
declare module '@primevue/core/base' {
  const Base: { isStyleNameLoaded(name: string): boolean };
  export default Base;
}
