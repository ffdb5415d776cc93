import { discoverResources, findResource, type ResourceInfo } from './discovery.js';
import { type ClientOptions, type RequestOptions, Transport } from './http.js';
import { ResourceClient } from './resource.js';
import { EventStream } from './stream.js';
import type { AnyExtensionObject, ExtensionObject, ResourceRef } from './types.js';

/**
 * A client of one svc server:
 *
 * ```ts
 * const client = new SvcClient({ baseUrl: 'http://127.0.0.1:8090', token: process.env.SVC_TOKEN });
 * const persons = client.resource<Person>({ group: 'people.svc.run', version: 'v1alpha1', plural: 'persons' });
 * const ada = await persons.get('ada');
 * ```
 */
export class SvcClient {
  readonly transport: Transport;
  private discovered: Promise<ResourceInfo[]> | undefined;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  get baseUrl(): URL {
    return this.transport.baseUrl;
  }

  /** A model's objects, typed `T` (an `ExtensionObject<Spec, Status>`). */
  resource<T extends AnyExtensionObject = ExtensionObject>(ref: ResourceRef): ResourceClient<T> {
    return new ResourceClient<T>(this.transport, ref);
  }

  /** Every resource served (read once, then kept; `refresh` reads again). */
  discover(refresh = false): Promise<ResourceInfo[]> {
    if (refresh || !this.discovered) {
      this.discovered = discoverResources(this.transport);
      this.discovered.catch(() => (this.discovered = undefined));
    }
    return this.discovered;
  }

  /** The resource a plural, singular, kind or short name means (`undefined` when none is served). */
  async resolve(name: string): Promise<ResourceInfo | undefined> {
    return findResource(await this.discover(), name);
  }

  /** Signs in with a password; the client then acts in that session (see Transport.signIn). */
  signIn(username: string, password: string): Promise<void> {
    return this.transport.signIn(username, password);
  }

  /** Ends the session `signIn` began; answers the identity provider's logout URL when it has one for the session. */
  signOut(): Promise<string | undefined> {
    return this.transport.signOut();
  }

  /** Drops the client's own connections (those it opened for `ca`); for a clean exit or a test's end. */
  close(): Promise<void> {
    return this.transport.close();
  }

  /** A stream of newline-delimited JSON events from a custom route (see EventStream); the request starts on iteration. */
  events<T extends { type: string }>(
    path: string,
    options?: Omit<RequestOptions, 'signal'> & { signal?: AbortSignal },
  ): EventStream<T> {
    return new EventStream<T>(this.transport, path, options);
  }

  /** Any other JSON request to svc (custom APIs, tokens, plugins); a failure throws SvcApiError. */
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T> {
    return this.transport.json<T>(method, path, options);
  }
}
