import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { KIND, PLUGIN_API_VERSION, type PluginManifest } from '@svc/plugin-api';
import semver from 'semver';
import { validateName } from '../objects/metadata.js';
import { RESERVED_PLUGIN_NAMES } from '../objects/model-definition.js';
import { readYamlDocument } from '../objects/untrusted-yaml.js';
import { settingsSchemaProblem } from './plugin-settings.js';
import { uiProblems } from './plugin-ui.js';

export class ManifestError extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(`${where}: ${message}`);
    this.name = 'ManifestError';
  }
}

/** Reads and validates `<folder>/plugin.yaml`; every problem found is named in one error. */
export async function readManifest(folder: string, hostVersion: string): Promise<PluginManifest> {
  const file = path.join(folder, 'plugin.yaml');
  let raw: unknown;
  try {
    // From an uploaded archive, so untrusted: read within the limits of untrusted YAML.
    raw = await readYamlDocument(await readFile(file, 'utf8'), {});
  } catch (error) {
    throw new ManifestError(file, `cannot be read as YAML: ${(error as Error).message}`);
  }
  const problems = manifestProblems(raw, hostVersion);
  if (problems.length > 0) throw new ManifestError(file, problems.join('; '));
  return raw as PluginManifest;
}

export function manifestProblems(raw: unknown, hostVersion: string): string[] {
  const problems: string[] = [];
  if (typeof raw !== 'object' || raw === null) return ['must be a YAML mapping'];
  const m = raw as Partial<PluginManifest>;
  if (m.apiVersion !== PLUGIN_API_VERSION) problems.push(`apiVersion must be ${PLUGIN_API_VERSION}`);
  if (m.kind !== KIND.Plugin) problems.push(`kind must be ${KIND.Plugin}`);
  const name = m.metadata?.name;
  if (typeof name !== 'string') problems.push('metadata.name is required');
  else {
    for (const e of validateName(name)) problems.push(`metadata.name ${e.message}`);
    if (name.length > 63) problems.push('metadata.name must be at most 63 characters (it prefixes label keys)');
    if (RESERVED_PLUGIN_NAMES.includes(name)) problems.push(`metadata.name "${name}" is reserved for the service`);
  }
  const spec = m.spec;
  if (typeof spec !== 'object' || spec === null) return [...problems, 'spec is required'];
  if (typeof spec.version !== 'string' || !semver.valid(spec.version)) {
    problems.push(`spec.version must be a semantic version, got ${JSON.stringify(spec.version)}`);
  }
  if (typeof spec.requires !== 'string' || !semver.validRange(spec.requires)) {
    problems.push(`spec.requires must be a semver range of the host version, got ${JSON.stringify(spec.requires)}`);
  } else if (!semver.satisfies(hostVersion, spec.requires, { includePrerelease: true })) {
    problems.push(`spec.requires "${spec.requires}" does not include this host's version ${hostVersion}`);
  }
  if (typeof spec.main !== 'string' || spec.main === '') problems.push('spec.main (the ESM entry file) is required');
  else if (path.isAbsolute(spec.main) || path.normalize(spec.main).startsWith('..')) {
    problems.push('spec.main must be a path inside the plugin folder');
  }
  problems.push(...uiProblems(spec));
  if (spec.settings !== undefined) {
    const problem = settingsSchemaProblem(spec.settings);
    if (problem) problems.push(`spec.settings ${problem}`);
  }
  for (const [dep, range] of Object.entries(spec.pluginDependencies ?? {})) {
    if (typeof range !== 'string' || !semver.validRange(range)) {
      problems.push(`spec.pluginDependencies.${dep} must be a semver range`);
    }
  }
  return problems;
}
