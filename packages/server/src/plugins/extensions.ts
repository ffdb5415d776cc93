import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEPENDENCIES_ANNOTATION, type ExtensionObject, KIND } from '@svc/plugin-api';
import { annotationList } from '../authz/roles.js';
import { readYamlDocuments } from '../objects/untrusted-yaml.js';

export interface DeclaredObject {
  /** `extensions/<file>#<document index>`, for error messages. */
  source: string;
  object: ExtensionObject;
}

/**
 * Reads every YAML document of a plugin's `extensions/` folder (any file names, several documents per file). The type
 * of each object comes from its apiVersion and kind only. Files are read in name order so start-up is repeatable.
 */
export async function readDeclaredObjects(folder: string): Promise<DeclaredObject[]> {
  const dir = path.join(folder, 'extensions');
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => /\.ya?ml$/i.test(f)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const declared: DeclaredObject[] = [];
  for (const file of files) {
    // From an uploaded archive, so untrusted: read within the limits of untrusted YAML (line numbers in its errors).
    const documents = await readYamlDocuments(await readFile(path.join(dir, file), 'utf8'), {
      what: `extensions/${file}`,
    });
    documents.forEach((object, i) => {
      const source = `extensions/${file}#${i + 1}`;
      if (object === null) return; // an empty document, e.g. after a trailing '---'
      if (typeof object !== 'object' || Array.isArray(object)) throw new Error(`${source} is not a YAML mapping`);
      const o = object as ExtensionObject;
      if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') {
        throw new Error(`${source} has no apiVersion and kind, so its type is unknown`);
      }
      declared.push({ source, object: o });
    });
  }
  return declared;
}

/**
 * The declared objects in file order, except that a Role comes after the declared roles it depends on: a plugin's
 * dependency must name a role that exists when it is written (authz/plugin-grants.ts), whatever the file names are.
 * A cycle keeps file order (and fails on the dependency not yet there).
 */
export function inDependencyOrder(declared: DeclaredObject[]): DeclaredObject[] {
  const roles = new Map(declared.filter(({ object }) => isRole(object)).map((d) => [d.object.metadata?.name, d]));
  const ordered: DeclaredObject[] = [];
  const seen = new Set<DeclaredObject>();
  const place = (item: DeclaredObject) => {
    if (seen.has(item)) return;
    seen.add(item);
    if (isRole(item.object)) {
      const annotations = item.object.metadata?.annotations ?? {};
      for (const name of annotationList({ annotations }, DEPENDENCIES_ANNOTATION) ?? []) {
        const dependency = roles.get(name);
        if (dependency) place(dependency);
      }
    }
    ordered.push(item);
  };
  declared.forEach(place);
  return ordered;
}

function isRole(object: ExtensionObject): boolean {
  return object.kind === KIND.Role && object.apiVersion === 'v1alpha1';
}
