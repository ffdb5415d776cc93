/** `svc apply -f` (create or update each object) and `svc delete`. */
import { readFile } from 'node:fs/promises';
import { type ExtensionObject, SvcApiError, type SvcClient } from '@svc/client';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parse, UsageError, wantsHelp } from './args.js';
import { connect } from './connect.js';
import { includes, type Manifest, readManifests } from './manifests.js';
import { describeError, runCommand } from './report.js';
import { resolveResource, resourceOfObject } from './resources.js';

export const APPLY_USAGE = `svc apply -f <file|-> [--dry-run]
  Creates each object of the YAML file (several documents, or a List) or, when it exists, merges the file's fields
  into it, printing <kind>/<name> created, configured or unchanged. Fields the file leaves out are kept.
${CONNECTION_USAGE}`;
export const DELETE_USAGE = `svc delete <resource> <name>... | svc delete -f <file|->
  Deletes the named objects (an object with finalizers goes once they are done).
${CONNECTION_USAGE}`;

const FILE_OPTIONS = { ...CONNECTION_OPTIONS, filename: { type: 'string', short: 'f', multiple: true } } as const;

export function applyCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand('apply', APPLY_USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${APPLY_USAGE}`);
    const { values, positionals } = parse(args, { ...FILE_OPTIONS, 'dry-run': { type: 'boolean' } });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"; give files with -f`);
    if (!values.filename?.length) throw new UsageError('which file? -f <file>, or -f - for standard input');
    const objects = await readFiles(values.filename);
    const client = await connect(values, env);
    const dryRun = values['dry-run'] === true;
    let failed = 0;
    for (const object of objects) {
      const label = `${String(object.kind).toLowerCase()}/${object.metadata!.name}`;
      try {
        console.log(`${label} ${await applyOne(client, object, dryRun)}${dryRun ? ' (dry run)' : ''}`);
      } catch (error) {
        if (!(error instanceof SvcApiError)) throw error;
        failed++;
        console.error(`svc apply: ${label}: ${describeError(error)}`);
      }
    }
    return failed > 0 ? 1 : 0;
  });
}

async function applyOne(client: SvcClient, object: Manifest, dryRun: boolean): Promise<string> {
  const info = await resourceOfObject(client, object);
  const resource = client.resource<ExtensionObject>(info);
  const name = object.metadata!.name as string;
  let stored: ExtensionObject;
  try {
    stored = await resource.get(name);
  } catch (error) {
    if (!(error instanceof SvcApiError && error.status === 404)) throw error;
    await resource.create(object as unknown as ExtensionObject, { dryRun });
    return 'created';
  }
  if (includes(stored, object)) return 'unchanged';
  await resource.patch(name, object, { type: 'merge', dryRun });
  return 'configured';
}

export function deleteCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand('delete', DELETE_USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${DELETE_USAGE}`);
    const { values, positionals } = parse(args, FILE_OPTIONS);
    const fromFiles = (values.filename?.length ?? 0) > 0;
    if (fromFiles && positionals.length > 0) throw new UsageError('give either -f files or <resource> <name>...');
    if (!fromFiles && positionals.length < 2) throw new UsageError('which objects? svc delete <resource> <name>...');
    const client = await connect(values, env);
    const targets: Array<{ kind: string; name: string; resource: () => Promise<ExtensionObjectResource> }> = [];
    if (fromFiles) {
      for (const object of await readFiles(values.filename!)) {
        const name = object.metadata!.name as string;
        targets.push({ kind: String(object.kind), name, resource: () => resourceFor(client, object) });
      }
    } else {
      const info = await resolveResource(client, positionals[0]!);
      for (const name of positionals.slice(1)) {
        targets.push({ kind: info.kind, name, resource: async () => client.resource(info) });
      }
    }
    let failed = 0;
    for (const target of targets) {
      const label = `${target.kind.toLowerCase()}/${target.name}`;
      try {
        await (await target.resource()).delete(target.name);
        console.log(`${label} deleted`);
      } catch (error) {
        if (!(error instanceof SvcApiError)) throw error;
        failed++;
        console.error(`svc delete: ${label}: ${describeError(error)}`);
      }
    }
    return failed > 0 ? 1 : 0;
  });
}

type ExtensionObjectResource = ReturnType<SvcClient['resource']>;

async function resourceFor(client: SvcClient, object: Manifest): Promise<ExtensionObjectResource> {
  return client.resource(await resourceOfObject(client, object));
}

async function readFiles(files: readonly string[]): Promise<Manifest[]> {
  const objects: Manifest[] = [];
  for (const file of files) {
    const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
    objects.push(...readManifests(text, file === '-' ? 'standard input' : file));
  }
  return objects;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
