import { SvcApiError } from '@svc/client';
import { addMessages, client } from '@svc/console-shared';
import { type EffectivePermissions, HIDDEN_LABEL } from '@svc/plugin-api';
import { flushPromises, mount } from '@vue/test-utils';
import PrimeVue from 'primevue/config';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { expandRoles } from '../../../server/src/authz/roles';
import { BUILT_IN_ROLES, CORE_TEMPLATES } from '../../../server/src/rbac/built-in-roles';
import { toRole } from '../../../server/src/rbac/models';
import { uiPermissionsOf } from '../../../server/src/rbac/ui-permissions';
import en from '../../src/i18n/en';
import RolePicker from '../../src/users-roles/RolePicker.vue';
import type { RoleObject } from '../../src/users-roles/roles';

/** svc's own roles and core templates, as every server writes them at start. */
// The picker's words, in English as the console shows them first.
await addMessages({ en });

const ROLES = new Map<string, RoleObject>([...BUILT_IN_ROLES, ...CORE_TEMPLATES].map((r) => [r.metadata.name, r]));

/**
 * svc's answer to `POST …/effectivepermissions`, from the server's own expansion (authz/roles.ts), shaped as its
 * permission routes shape it: the picker's preview is the gate's expansion, not one of its own.
 */
function effectivePermissionsOf(roles: string[]): EffectivePermissions {
  const byName = new Map([...ROLES].map(([name, object]) => [name, toRole(object)]));
  const expanded = expandRoles(roles, byName);
  return {
    roles: [...new Set(roles)].sort(),
    permissions: [...expanded.roleNames].filter((n) => byName.get(n)?.labels[HIDDEN_LABEL] !== 'true').sort(),
    uiPermissions: uiPermissionsOf(expanded, () => false),
    rules: expanded.rules.map(({ role, rule }) => ({ role, ...rule })),
    reachedBy: Object.fromEntries(expanded.reachedBy),
  };
}

/** The console's one client answers from svc's expansion (the picker sends nothing else). */
let answer: (roles: string[]) => Promise<unknown>;
beforeEach(() => {
  answer = async (roles) => effectivePermissionsOf(roles);
  vi.spyOn(client, 'request').mockImplementation(async (method, path, options) => {
    if (method !== 'POST' || !path.endsWith('/effectivepermissions')) throw new Error(`unexpected ${method} ${path}`);
    return answer((options?.body as { roles: string[] } | undefined)?.roles ?? []);
  });
});
afterEach(() => vi.restoreAllMocks());

/** The picker bound with v-model, as the users and roles pages bind it. */
async function mountPicker(props: { offerRoles?: boolean; exclude?: string; modelValue?: string[] } = {}) {
  const wrapper = mount(RolePicker, {
    props: {
      roles: ROLES,
      modelValue: [],
      ...props,
      'onUpdate:modelValue': (value: string[]) => wrapper.setProps({ modelValue: value }),
    },
    global: { plugins: [PrimeVue] },
  });
  await flushPromises();
  return wrapper;
}

const legends = (wrapper: Awaited<ReturnType<typeof mountPicker>>) => wrapper.findAll('legend').map((l) => l.text());
const option = (wrapper: Awaited<ReturnType<typeof mountPicker>>, role: string) =>
  wrapper.find<HTMLInputElement>(`#pick-${role}`);

describe('the role picker', () => {
  it('offers the templates by module, never hidden ones or the roles everyone holds', async () => {
    const wrapper = await mountPicker();
    expect(legends(wrapper)).toEqual(['Plugins', 'Posts', 'Roles', 'Users']);
    const offered = wrapper.findAll('label').map((l) => l.text());
    expect(offered).toContain('Users management');
    expect(offered).not.toContain('Own personal access tokens');
    expect(option(wrapper, 'anonymous').exists()).toBe(false);
    expect(option(wrapper, 'authenticated').exists()).toBe(false);
    expect(option(wrapper, 'super-role').exists()).toBe(false);
  });

  it('offers the other roles first for a user, and leaves out the role being edited', async () => {
    const wrapper = await mountPicker({ offerRoles: true, exclude: 'editor' });
    expect(legends(wrapper)[0]).toBe('Predefined and custom roles');
    expect(option(wrapper, 'super-role').exists()).toBe(true);
    expect(option(wrapper, 'editor').exists()).toBe(false);
    expect(option(wrapper, 'anonymous').exists()).toBe(false);
  });

  it('ticks and locks what a choice depends on, saying why, and previews what it amounts to', async () => {
    const wrapper = await mountPicker();
    await option(wrapper, 'role-template-manage-users').setValue(true);
    await flushPromises();
    expect(wrapper.emitted('update:modelValue')).toEqual([[['role-template-manage-users']]]);

    const view = option(wrapper, 'role-template-view-users');
    expect(view.element.checked).toBe(true);
    expect(view.element.disabled).toBe(true);
    expect(wrapper.find('#pick-role-template-view-users-why').text()).toBe('required by Users management');
    expect(option(wrapper, 'role-template-view-roles').element.checked).toBe(false);

    const uiPermissions = wrapper.findAll('[aria-labelledby="ui-permissions-heading"] li').map((li) => li.text());
    expect(uiPermissions).toEqual(['system:users:manage', 'system:users:view']);
    const rules = wrapper.findAll('table tbody tr').map((tr) => tr.findAll('td').map((td) => td.text()));
    expect(rules).toContainEqual(['get, list, watch on users (core group)', 'Users view']);
    expect(rules).toContainEqual(['create on effectivepermissions (api.console.svc.run)', 'Users management']);
  });

  it('unticks a choice, and shows what is left', async () => {
    const wrapper = await mountPicker({ modelValue: ['role-template-manage-users', 'role-template-view-roles'] });
    await option(wrapper, 'role-template-manage-users').setValue(false);
    await flushPromises();
    expect(wrapper.props('modelValue')).toEqual(['role-template-view-roles']);
    expect(option(wrapper, 'role-template-view-users').element.checked).toBe(false);
    expect(wrapper.text()).toContain('system:roles:view');
    expect(wrapper.text()).not.toContain('system:users:manage');
  });

  it("says svc's refusal of the preview, and the problem the page reports", async () => {
    answer = async () => {
      throw new SvcApiError({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'no role is named "ghost"',
      });
    };
    const wrapper = await mountPicker({ modelValue: [] });
    await wrapper.setProps({ error: 'you may not grant "super-role"' });
    // PrimeVue's Message marks its box and its text as the alert: one message each.
    const alerts = new Set(wrapper.findAll('[role="alert"]').map((a) => a.text()));
    expect([...alerts]).toEqual(['you may not grant "super-role"', 'no role is named "ghost"']);
  });
});
