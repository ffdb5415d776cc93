import { allows, client, session, translated } from '@svc/console-shared';
import type { RouteLocationRaw, Router } from 'vue-router';
import { menuOf } from '../menu';
import { type BrowsableModel, groupSegment, loadModels, may, titleOf } from '../resources/models';

/** One thing search found: a page of the menu, or an object of a model. */
export interface SearchHit {
  id: string;
  kind: 'page' | 'object';
  label: string;
  /** Where it is: the menu group, or the model's title. */
  detail: string;
  to: RouteLocationRaw;
}

/** Menu entries of the console (and the personal center) whose shown name contains the words, as the menu allows. */
export function pageHits(router: Router, words: string): SearchHit[] {
  const wanted = words.trim().toLocaleLowerCase();
  if (!wanted) return [];
  const held = session.user?.uiPermissions ?? [];
  return (['Root', 'UcRoot'] as const).flatMap((root) =>
    menuOf(router.getRoutes(), root, held, translated).flatMap((group) =>
      group.entries
        .filter(({ entry }) => translated(entry.name).toLocaleLowerCase().includes(wanted))
        .map(({ routeName, entry }) => ({
          id: `page:${routeName}`,
          kind: 'page' as const,
          label: translated(entry.name),
          detail: group.name ? translated(group.name) : '',
          to: { name: routeName },
        })),
    ),
  );
}

/**
 * The models the user may list, asked once per search dialog (the server decides, with its access rules); none
 * without the resource browser (`system:resources:view`), where an object found opens.
 */
export async function listableModels(): Promise<BrowsableModel[]> {
  if (!allows(session.user?.uiPermissions ?? [], ['system:resources:view'])) return [];
  return (await loadModels()).filter((m) => may(m, 'list'));
}

/**
 * Objects named exactly `name` in every model the user may list: one indexed read a model (`name` is an index of
 * every model), at once. A model the read fails for (access changed since) is passed over.
 */
export async function objectHits(models: BrowsableModel[], name: string): Promise<SearchHit[]> {
  const wanted = name.trim();
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(wanted)) return [];
  const found = await Promise.all(
    models.map(async (model) => {
      try {
        const page = await client.resource(model).list({ fieldSelector: `metadata.name=${wanted}`, size: 1 });
        return page.items.map((object) => ({
          id: `object:${model.group}/${model.plural}/${object.metadata.name}`,
          kind: 'object' as const,
          label: object.metadata.name,
          detail: titleOf(model),
          to: {
            name: 'ResourceObject',
            params: {
              group: groupSegment(model.group),
              version: model.version,
              plural: model.plural,
              name: object.metadata.name,
            },
          },
        }));
      } catch {
        return [];
      }
    }),
  );
  return found.flat();
}
