export * from './errors.js';
export * from './objects.js';
export * from './models.js';
export * from './routes.js';
export * from './plugin.js';
export * from './reconcilers.js';
export * from './finalizers.js';
