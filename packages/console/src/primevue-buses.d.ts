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
  const bus: {
    on(type: string, handler: (value: unknown) => void): void;
    off(type: string, handler: (value: unknown) => void): void;
    emit(type: string, value: unknown): void;
  };
  export default bus;
}
// PrimeVue's record of the core styles it has injected (@primevue/core/base) ships without declarations too.
declare module '@primevue/core/base' {
  const Base: {
    isStyleNameLoaded(name: string): boolean;
    setLoadedStyleName(name: string): void;
    clearLoadedStyleNames(): void;
  };
  export default Base;
}
