import { definePreset } from '@primeuix/themes';
import Aura from '@primeuix/themes/aura';

/**
 * Aura with darker colours under white text: Aura's primary (emerald 500) is 2.5:1 and its danger and success
 * buttons (red and green 500) are below WCAG AA's 4.5:1 too, which axe checks. Blue, red and green 700 pass.
 */
/** A solid button's tokens in a colour, 700 and darker under white text. */
function solid(colour: string) {
  const shade = (n: number) => `{${colour}.${n}}`;
  return {
    background: shade(700),
    hoverBackground: shade(800),
    activeBackground: shade(900),
    borderColor: shade(700),
    hoverBorderColor: shade(800),
    activeBorderColor: shade(900),
    color: '#ffffff',
    hoverColor: '#ffffff',
    activeColor: '#ffffff',
  };
}

/** Notice text colours per severity, dark enough on the pale backgrounds. */
function notices() {
  const text = (colour: string) => ({ color: `{${colour}.800}`, detailColor: `{${colour}.800}` });
  return {
    info: text('blue'),
    success: text('green'),
    warn: text('yellow'),
    error: text('red'),
    secondary: text('surface'),
  };
}

const ConsoleTheme = definePreset(Aura, {
  semantic: {
    primary: {
      50: '{blue.50}',
      100: '{blue.100}',
      200: '{blue.200}',
      300: '{blue.300}',
      400: '{blue.400}',
      500: '{blue.500}',
      600: '{blue.600}',
      700: '{blue.700}',
      800: '{blue.800}',
      900: '{blue.900}',
      950: '{blue.950}',
    },
    colorScheme: {
      light: {
        primary: { color: '{blue.700}', contrastColor: '#ffffff', hoverColor: '{blue.800}', activeColor: '{blue.900}' },
      },
    },
  },
  components: {
    button: {
      colorScheme: {
        light: {
          root: { danger: solid('red'), success: solid('green') },
          // Outlined and text danger buttons (Uninstall): red 500 on white is 3.8:1, red 700 is 6.5:1.
          outlined: { danger: { color: '{red.700}', borderColor: '{red.300}' } },
          text: { danger: { color: '{red.700}' } },
        },
      },
    },
    // Toasts and messages: text in 800 on their pale backgrounds (Aura's 500/600 is below 4.5:1).
    toast: { colorScheme: { light: notices() } },
    message: { colorScheme: { light: notices() } },
  },
});

/**
 * The theme PrimeVue's styles are built from, at build time (vite.config.ts, `virtual:primevue-theme.css`): light only.
 */
export const CONSOLE_THEME = { preset: ConsoleTheme, options: { darkModeSelector: false } };
