import { css, Theme } from '@primeuix/styled';
import { minifyCSS } from '@primeuix/utils/object';
import PrimeVueBaseStyle from '@primevue/core/base/style';

/** What a PrimeVue component, directive or icon definition carries that leads to the styles it mounts with. */
interface Definition {
  style?: ComponentStyle;
  extends?: Definition;
  components?: Record<string, unknown>;
  directives?: Record<string, unknown>;
}

/** Variables (CSS) and the preset's own extra rules, of the common tokens or of one component. */
interface ThemePart {
  css?: string;
  style?: unknown;
}

/**
 * A PrimeVue style object (`BaseStyle`, or `primevue/<name>/style`: `BaseStyle.extend(…)` with a name and rules), as
 * far as used here; @primevue/core 4.5 declares less of it than it has.
 */
interface ComponentStyle {
  name: string;
  /** Core rules, outside the theme (`base`: `.p-hidden-accessible`; `baseicon`, `virtualscroller`). */
  css?: unknown;
  style?: unknown;
  getCommonTheme(): { primitive?: ThemePart; semantic?: ThemePart; global?: ThemePart; style?: unknown } | undefined;
  getComponentTheme(): ThemePart | undefined;
  getDirectiveTheme(): ThemePart | undefined;
  getLayerOrderThemeCSS(): string | undefined;
}

const BaseStyle = PrimeVueBaseStyle as unknown as ComponentStyle;

/**
 * PrimeVue's theme as one static stylesheet, built at build time from the same preset the console used to hand
 * PrimeVue at start-up: the preset's variables and every style the given components (and the components, icons and
 * directives they render) would inject on first mount, their core rules included. The app then runs PrimeVue with
 * `theme: 'none'` and its core styles marked loaded (src/main.ts), so no CSS is computed or injected in the browser.
 *
 * Each piece is what `BaseComponent._loadThemeStyles` / `_loadCoreStyles` (and `BaseDirective`'s) of @primevue/core
 * 4.5 compute before handing it to `useStyle` (the same calls, minified the same way), so the rules are the ones the
 * runtime injected; test/components/primevue-theme.test.ts checks it.
 */
export async function primeVueThemeCss(
  theme: { preset: unknown; options?: Record<string, unknown> },
  specifiers: string[],
  load: (specifier: string) => Promise<{ default: unknown }> = (s) => import(s),
): Promise<string> {
  Theme.setTheme(theme);
  const components = new Map<string, ComponentStyle>();
  const directives = new Map<string, ComponentStyle>();
  const seen = new Set<unknown>();

  const visit = async (definition: unknown, directiveName?: string): Promise<void> => {
    if (!definition || typeof definition !== 'object' || seen.has(definition)) return;
    seen.add(definition);
    // A directive object keeps its style out of reach; its style module is `primevue/<name>/style`.
    if (directiveName) {
      const name = directiveName.toLowerCase();
      if (!directives.has(name)) {
        const style = await load(`primevue/${name}/style`).catch(() => undefined);
        if (style) directives.set(name, style.default as ComponentStyle);
      }
      return;
    }
    for (let d = definition as Definition | undefined; d; d = d.extends) {
      if (d.style?.name && !components.has(d.style.name)) components.set(d.style.name, d.style);
      for (const child of Object.values(d.components ?? {})) await visit(child);
      for (const [name, child] of Object.entries(d.directives ?? {})) await visit(child, name);
    }
  };
  for (const specifier of specifiers) {
    const module = await load(specifier);
    // A directive (`primevue/tooltip`) has hooks but no render function.
    const directive = !('render' in (module.default as object));
    await visit(module.default, directive ? specifier.replace(/^primevue\//, '') : undefined);
  }

  const sheets: string[] = [];
  const add = (text: string | undefined) => {
    const rules = minifyCSS(text ?? '');
    if (rules) sheets.push(rules);
  };
  // The tokens all components share, then the base's own rules ('primitive-variables' … 'global-style').
  const common = BaseStyle.getCommonTheme();
  add(css`${common?.primitive?.css}`);
  add(css`${common?.semantic?.css}`);
  add(css`${common?.global?.css}`);
  add(Theme.transformCSS('global-style', `${css`${BaseStyle.style}`}${css`${common?.style}`}`));
  // PrimeVue's core rules (`BaseStyle.loadCSS`, `<style>.loadCSS`), which it injects even with theme 'none'.
  add(css`${BaseStyle.css}`);
  for (const style of [...components.values(), ...directives.values()]) add(css`${style.css}`);
  // Each component's variables (`<name>-variables`), then its rules (`<name>-style`).
  const each = (style: ComponentStyle, own: ThemePart | undefined) => {
    add(css`${own?.css}`);
    add(Theme.transformCSS(`${style.name}-style`, `${css`${style.style}`}${css`${own?.style}`}`));
  };
  for (const style of components.values()) each(style, style.getComponentTheme());
  for (const style of directives.values()) each(style, style.getDirectiveTheme());
  // Empty unless the theme's options ask for CSS layers (named by the rules above); PrimeVue puts it first.
  const layerOrder = minifyCSS(BaseStyle.getLayerOrderThemeCSS());
  if (layerOrder) sheets.unshift(layerOrder);
  return `${sheets.join('\n')}\n`;
}
