export { type ChangeEvent, ChangeFeed, type ChangeFeedOptions } from './change-feed.js';
export { SvcClient } from './client.js';
export { discoverResources, findResource, type ResourceInfo, resourceNames } from './discovery.js';
export { type Problem, problemOf, SvcApiError } from './errors.js';
export {
  type ClientOptions,
  cookieValue,
  type Query,
  type RequestOptions,
  SvcConnectionError,
  Transport,
} from './http.js';
export { Informer, type InformerHandlers, type InformerOptions } from './informer.js';
export { collectionPath, listQuery, objectPath } from './paths.js';
export { ResourceClient } from './resource.js';
export { EventStream } from './stream.js';
export type * from './types.js';
export { lines, splitLines, Watch } from './watch.js';
