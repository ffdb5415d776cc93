/** `svc get <resource> [name]` and `svc watch <resource>`. */
import type { ExtensionObject } from '@svc/client';
import { collectionPath, listQuery, objectPath, SvcApiError } from '@svc/client';

const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/problem+json';

import { didYouMean } from '../../util/suggest.js';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, parse, UsageError, wantsHelp, wholeNumber } from './args.js';
import { connect } from './connect.js';
import { OUTPUT_FORMATS, type OutputFormat, render, type ServerTable, serverTableText } from './output.js';
import { runCommand } from './report.js';
import { resolveResource } from './resources.js';

export const GET_USAGE = `svc get <resource> [name] [-o table|yaml|json] [-l selector] [--field-selector s]
               [--sort field[,asc|desc]] [--limit n]
  Lists a resource's objects (or shows one). <resource> is a plural, singular, kind or short name.
${CONNECTION_USAGE}`;
export const WATCH_USAGE = `svc watch <resource> [-o table|json] [-l selector] [--field-selector s] [--timeout seconds]
  Prints the current objects, then every change, until interrupted (or --timeout). Resumes where it was when the
  server ends the stream, and starts again from the current objects when that history is gone.
${CONNECTION_USAGE}`;

const SELECTION_OPTIONS = {
  ...CONNECTION_OPTIONS,
  output: { type: 'string', short: 'o' },
  selector: { type: 'string', short: 'l', multiple: true },
  'field-selector': { type: 'string', multiple: true },
} as const;

export function getCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand('get', GET_USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${GET_USAGE}`);
    const { values, positionals } = parse(args, {
      ...SELECTION_OPTIONS,
      sort: { type: 'string', multiple: true },
      limit: { type: 'string' },
    });
    const format = outputFormat(values.output, OUTPUT_FORMATS);
    const limit = wholeNumber('--limit', values.limit);
    if (positionals.length < 1 || positionals.length > 2) {
      throw new UsageError(positionals.length === 0 ? 'which resource? e.g. svc get persons' : 'one name at most');
    }
    const client = await connect(values, env);
    const info = await resolveResource(client, positionals[0]!);
    const resource = client.resource<ExtensionObject>(info);
    const query = {
      labelSelector: values.selector,
      fieldSelector: values['field-selector'],
      sort: values.sort,
      limit,
    };
    if (format === 'table') {
      // The server's Table: the model's printer columns, as kubectl shows them.
      const path = positionals[1] === undefined ? collectionPath(info) : objectPath(info, positionals[1]);
      const answer = await client.request<ServerTable>('GET', path, {
        query: positionals[1] === undefined ? listQuery(query) : {},
        headers: { accept: TABLE_ACCEPT },
      });
      if (!answer.rows?.length) return void console.error(`No ${info.plural} found.`);
      return void console.log(serverTableText(answer));
    }
    if (positionals[1] !== undefined)
      return void process.stdout.write(render(await resource.get(positionals[1]), format));
    const list = await resource.list({
      labelSelector: values.selector,
      fieldSelector: values['field-selector'],
      sort: values.sort,
      limit,
    });
    process.stdout.write(render(list.items, format));
  });
}

export function watchCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand('watch', WATCH_USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${WATCH_USAGE}`);
    const { values, positionals } = parse(args, { ...SELECTION_OPTIONS, timeout: { type: 'string' } });
    const format = outputFormat(values.output, ['table', 'json']);
    const timeoutSeconds = wholeNumber('--timeout', values.timeout);
    if (positionals.length !== 1) throw new UsageError('one resource, e.g. svc watch persons');
    const client = await connect(values, env);
    const info = await resolveResource(client, positionals[0]!);
    const resource = client.resource<ExtensionObject>(info);
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    if (timeoutSeconds !== undefined) setTimeout(() => stop.abort(), timeoutSeconds * 1000).unref();
    let resourceVersion: string | undefined;
    while (!stop.signal.aborted) {
      const watch = resource.watch({
        resourceVersion,
        labelSelector: values.selector,
        fieldSelector: values['field-selector'],
        allowWatchBookmarks: true,
        signal: stop.signal,
      });
      try {
        for await (const event of watch) {
          if (event.type === 'BOOKMARK') continue;
          const { name, resourceVersion: revision } = event.object.metadata;
          if (format === 'json') console.log(JSON.stringify(event));
          else console.log(`${event.type.padEnd(9)} ${info.singular}/${name}   (revision ${revision})`);
        }
      } catch (error) {
        // History compacted past our revision: start again from the current objects.
        if (!(error instanceof SvcApiError && error.status === 410)) throw error;
        resourceVersion = undefined;
        continue;
      }
      resourceVersion = watch.resourceVersion;
    }
  });
}

function outputFormat(text: string | undefined, allowed: readonly OutputFormat[]): OutputFormat {
  const format = (text ?? 'table') as OutputFormat;
  if (!allowed.includes(format)) {
    throw new UsageError(`-o takes ${allowed.join(', ')}; got "${text}"${didYouMean(text!, allowed)}`);
  }
  return format;
}
