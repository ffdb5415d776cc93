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
