/**
 * The rules a plugin change must pass: writes of Plugin objects through the API (an admission check of the model), and
 * the checks of an install or upgrade made before any code is put in place.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  CONSOLE_API,
  conflict,
  forbidden,
  invalid,
  methodNotAllowed,
  type PluginManifest,
  type PluginSpec,
  START_REQUEST_ANNOTATION,
  UNINSTALL_DATA_ANNOTATION,
  UNINSTALL_FINALIZER,
} from '@svc/plugin-api';
import semver from 'semver';
import type { Actor, AdmissionRequest } from '../registry/admission.js';
import type { PluginHost } from './plugin-host.js';
import { readPluginObject } from './plugin-object.js';

/** Whether an actor may put plugin code to work (a super administrator, or svc itself). */
export type MayRunPluginCode = (actor: Actor) => boolean;

/**
 * Installing, upgrading or enabling a plugin runs its code inside svc with everything the process has (its
 * environment, its files, the database, the CA's key), and its UI bundle in every console user's browser: that is a
 * super administrator's act, whatever the caller's rules say, so a role copying the plugin management rules grants
 * nothing more. Refuses (403) anyone else, plugins included; `what` reads "install a plugin", ….
 */
export function checkMayRunPluginCode(actor: Actor, mayRunCode: MayRunPluginCode, what: string): void {
  if (actor.kind === 'system' || mayRunCode(actor)) return;
  throw forbidden(
    `only a super administrator may ${what}: a plugin's code runs inside svc with all of the server's rights, and its ` +
      "UI runs in every console user's browser",
  );
}

/** What the Plugin write check reads of an admission request. */
export type PluginWrite = Pick<AdmissionRequest, 'operation' | 'object' | 'prevObject' | 'subresource' | 'actor'>;

/** What the install and upgrade checks ask of the host. */
export type InstalledPlugins = Pick<PluginHost, 'get' | 'runningDependents' | 'unmetDependencies'>;

/**
 * Who may change a Plugin object, and how: only `spec.enabled` and metadata are the caller's to change, and only one
 * who may run plugin code turns `spec.enabled` on or asks for another start. Installing has its own route, status is
 * svc's, the uninstall finalizer is released by svc, and a plugin that running plugins require can be neither deleted
 * nor disabled.
 */
export function admitPluginWrite(
  request: PluginWrite,
  runningDependents: (name: string) => string[],
  mayRunCode: MayRunPluginCode,
): void {
  if (request.actor.kind === 'system') return;
  const name = request.object.metadata.name;
  if (request.operation === 'create') {
    throw methodNotAllowed(`plugins are installed with POST ${CONSOLE_API}/plugins/install (multipart field "file")`);
  }
  if (request.subresource === 'status') throw forbidden(`the status of plugin "${name}" is written by svc alone`);
  const dependents = runningDependents(name);
  if (request.operation === 'delete') {
    if (dependents.length > 0)
      throw conflict(`plugin "${name}" is required by running plugins: ${dependents.join(', ')}; stop them first`);
    return;
  }
  if (
    request.prevObject?.metadata.finalizers?.includes(UNINSTALL_FINALIZER) &&
    !request.object.metadata.finalizers?.includes(UNINSTALL_FINALIZER)
  ) {
    throw invalid(
      `plugin "${name}": the ${UNINSTALL_FINALIZER} finalizer is removed by svc once the plugin is uninstalled`,
    );
  }
  const choice = (object: PluginWrite['object'] | undefined) =>
    object?.metadata.annotations?.[UNINSTALL_DATA_ANNOTATION];
  if (choice(request.object) !== choice(request.prevObject)) {
    // Whether an uninstall deletes the plugin's data is the uninstall's own choice, not one left waiting on the object.
    throw invalid(
      `plugin "${name}": annotation ${UNINSTALL_DATA_ANNOTATION} is written by the DELETE that uninstalls it ` +
        '(?data=keep or ?data=delete)',
      [
        {
          path: `/metadata/annotations/${UNINSTALL_DATA_ANNOTATION.replace('/', '~1')}`,
          message: 'is set only by an uninstall',
        },
      ],
    );
  }
  const before = readPluginObject(request.prevObject).spec;
  const after = readPluginObject(request.object).spec;
  const changed = Object.keys({ ...before, ...after }).filter(
    (key) => key !== 'enabled' && !isDeepStrictEqual(before[key as keyof PluginSpec], after[key as keyof PluginSpec]),
  );
  if (changed.length > 0) {
    throw invalid(
      `plugin "${name}": ${changed.map((k) => `spec.${k}`).join(', ')} come from its plugin.yaml; upgrade the plugin to change them`,
      changed.map((k) => ({ path: `/spec/${k}`, message: 'is set from plugin.yaml' })),
    );
  }
  if (!before.enabled && after.enabled) checkMayRunPluginCode(request.actor, mayRunCode, `enable plugin "${name}"`);
  const startRequest = (object: PluginWrite['object'] | undefined) =>
    object?.metadata.annotations?.[START_REQUEST_ANNOTATION];
  if (startRequest(request.object) !== startRequest(request.prevObject)) {
    checkMayRunPluginCode(request.actor, mayRunCode, `start plugin "${name}"`);
  }
  if (before.enabled && !after.enabled && dependents.length > 0) {
    throw conflict(`plugin "${name}" is required by running plugins: ${dependents.join(', ')}; stop them first`);
  }
}

/** An install or upgrade needs every plugin the new code requires installed at a version in range. */
export function checkDependenciesInstalled(host: InstalledPlugins, manifest: PluginManifest): void {
  const missing = host.unmetDependencies(manifest, { installedOnly: true });
  if (missing.length > 0) {
    throw conflict(
      `plugin "${manifest.metadata.name}" requires ${missing.join(', ')}, not installed; install ${missing.length > 1 ? 'them' : 'it'} first`,
    );
  }
}

/**
 * An upgrade of plugin `name` to the code of `manifest`: not of a folder of SVC_PLUGINS_DIR (its code is edited in
 * place), with its own requirements installed, and at a version every running plugin that requires it accepts.
 */
export function checkUpgrade(host: InstalledPlugins, name: string, manifest: PluginManifest): void {
  if (host.get(name)?.source === 'directory') {
    throw conflict(`plugin "${name}" is loaded from a folder of SVC_PLUGINS_DIR; change the code there and restart`);
  }
  checkDependenciesInstalled(host, manifest);
  for (const dependent of host.runningDependents(name)) {
    const range = host.get(dependent)?.manifest.spec.pluginDependencies?.[name];
    if (range !== undefined && !semver.satisfies(manifest.spec.version, range)) {
      throw conflict(`running plugin "${dependent}" requires ${name}@${range}, which ${manifest.spec.version} is not`);
    }
  }
}
