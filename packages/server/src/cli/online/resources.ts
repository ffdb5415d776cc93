/** Naming resources on the command line: `persons`, `person`, `Person`, a short name, or `persons.<group>`. */
import { type ResourceInfo, resourceNames, type SvcClient } from '@svc/client';
import { didYouMean } from '../../util/suggest.js';
import { CommandError } from './report.js';

export async function resolveResource(client: SvcClient, name: string): Promise<ResourceInfo> {
  const found = await client.resolve(name);
  if (found) return found;
  const names = resourceNames(await client.discover());
  throw new CommandError(`the server has no resource type "${name}"${didYouMean(name, names)}`);
}

/** The resource of an object read from a file: its apiVersion and kind. */
export async function resourceOfObject(
  client: SvcClient,
  object: { apiVersion?: unknown; kind?: unknown },
): Promise<ResourceInfo> {
  if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') {
    throw new CommandError('every object needs an apiVersion and a kind');
  }
  const [group, version] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  const found = (await client.discover()).find(
    (r) => r.group === group && r.version === version && r.kind === object.kind,
  );
  if (!found) throw new CommandError(`the server serves no ${object.kind} in ${object.apiVersion}`);
  return found;
}
