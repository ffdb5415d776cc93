import { definePreset } from '@primeuix/themes';
import Aura from '@primeuix/themes/aura';

/**
 * Aura with a darker primary colour: Aura's own (emerald 500 under white text) is 2.5:1, below WCAG AA's 4.5:1 that
 * axe checks. Blue 700 under white is 6.7:1. Danger buttons likewise: red 500 is 3.8:1 against white, red 700 is 6.5:1.
 * Toasts' titles (600 on a 50 tint, about 3:1) take the 800 shade.
 */
export const ConsoleTheme = definePreset(Aura, {
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
          root: {
            danger: {
              background: '{red.700}',
              hoverBackground: '{red.800}',
              activeBackground: '{red.900}',
              borderColor: '{red.700}',
              hoverBorderColor: '{red.800}',
              activeBorderColor: '{red.900}',
            },
          },
          outlined: { danger: { color: '{red.700}', borderColor: '{red.300}' } },
          text: { danger: { color: '{red.700}' } },
        },
      },
    },
    toast: {
      colorScheme: {
        light: {
          info: { color: '{blue.800}' },
          success: { color: '{green.800}' },
          warn: { color: '{yellow.800}' },
          error: { color: '{red.800}' },
        },
      },
    },
  },
});
