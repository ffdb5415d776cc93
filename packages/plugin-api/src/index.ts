export * from './errors.js';
export * from './finalizers.js';
export * from './models.js';
export * from './objects.js';
export * from './plugin.js';
export * from './reconcilers.js';
export * from './routes.js';
