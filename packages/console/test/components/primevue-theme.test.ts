import { Theme } from '@primeuix/styled';
import { mount } from '@vue/test-utils';
import Button from 'primevue/button';
import Column from 'primevue/column';
import PrimeVue from 'primevue/config';
import DataTable from 'primevue/datatable';
import Tooltip from 'primevue/tooltip';
import { describe, expect, it } from 'vitest';
import { defineComponent, h, withDirectives } from 'vue';
import { primeVueThemeCss } from '../../primevue-theme';
import { CONSOLE_THEME } from '../../src/theme';

/** The console's build makes PrimeVue's theme a stylesheet (vite.config.ts); these check what goes into it. */
describe("PrimeVue's theme built at build time", () => {
  it("holds the console's own tokens and the rules of a component, its children and its directives", async () => {
    const sheet = await primeVueThemeCss(CONSOLE_THEME, ['primevue/button']);
    // src/theme.ts: primary blue 700, danger buttons red 700 (Aura's own are 500).
    expect(sheet).toContain('--p-primary-color:var(--p-blue-700);');
    expect(sheet).toContain('--p-button-danger-background:var(--p-red-700);');
    expect(sheet).toContain('.p-button{display:inline-flex;');
    // The button's badge and its ripple directive.
    expect(sheet).toContain('.p-badge{display:inline-flex;');
    expect(sheet).toContain('.p-ink{display:block;position:absolute;');
    // Light only: no dark colour scheme.
    expect(sheet).toContain(':root,:host{color-scheme:light}');
    expect(sheet.includes('color-scheme:dark')).toBe(false);
    // Only what the button renders: no data table.
    expect(sheet.includes('.p-datatable{')).toBe(false);

    const tooltip = await primeVueThemeCss(CONSOLE_THEME, ['primevue/tooltip']);
    expect(tooltip).toContain('.p-tooltip{position:absolute;');
  });

  it('has, rule for rule, every style PrimeVue injects at run time with the same theme, its core rules too', async () => {
    const sheet = await primeVueThemeCss(CONSOLE_THEME, ['primevue/datatable', 'primevue/tooltip']);
    const lines = new Set(sheet.split('\n'));
    document.head.innerHTML = '';
    const Page = defineComponent(() => () => [
      h(DataTable, { value: [{ name: 'a' }], paginator: true, rows: 1 }, () => h(Column, { field: 'name' })),
      withDirectives(h(Button, { label: 'Edit' }), [[Tooltip, 'Edit it']]),
    ]);
    const wrapper = mount(Page, { global: { plugins: [[PrimeVue, { theme: CONSOLE_THEME }]] } });
    const injected = [...document.head.querySelectorAll<HTMLStyleElement>('style[data-primevue-style-id]')].map(
      (style) => [style.dataset.primevueStyleId, style.textContent] as const,
    );
    wrapper.unmount();
    Theme.clearLoadedStyleNames();
    // The theme's pieces (the common tokens and rules, each component's variables and rules) and PrimeVue's core
    // rules of a few components (`base`, `baseicon`, `virtualscroller`).
    expect(injected.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'primitive-variables',
        'global-style',
        'base',
        'baseicon',
        'datatable-style',
        'paginator-style',
        'button-style',
        'tooltip-directive-style',
      ]),
    );
    expect(injected.filter(([, text]) => !lines.has(text ?? '')).map(([name]) => name)).toEqual([]);
  });
});
