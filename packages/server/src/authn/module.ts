import { httpRef } from '../api/module.js';
import { defineModule, ref } from '../kernel/module.js';
import { loggerRef, optionsRef, settingsRef } from '../kernel/root.js';
import { registryRef } from '../registry/module.js';
import { storeRef } from '../store/module.js';
import { setupLinkBase, setupLinkNotice } from './first-run.js';
import { type Authentication, setupAuthentication } from './index.js';
import type { LoginClock, LoginLimits } from './login-limiter.js';
import { createOidc } from './oidc.js';
import type { OidcTokenOptions } from './oidc-tokens.js';
import { PasswordHasher, type ScryptParameters } from './passwords.js';

export interface AuthnOptions {
  /**
   * Sign-in throttle (defaults in DEFAULT_LOGIN_LIMITS); tests give a clock to see its delays, and a cheaper scrypt
   * cost (hashes record their own parameters, so every hash still verifies; without it, DEFAULT_SCRYPT).
   */
  login?: { limits?: Partial<LoginLimits>; clock?: Partial<LoginClock>; passwordHashing?: ScryptParameters };
  /**
   * Where the first-run setup link's framed block is printed: standard error by default, never standard output (the
   * log's stream) nor the log (it is a credential).
   */
  announce?: (text: string) => void;
  /** The clock the first-run setup link expires by (tests). */
  setupClock?: () => number;
  /** Tests: how soon an OIDC token naming an unknown key may fetch the keys again, and the clock of tokens and sign-ins. */
  oidc?: OidcTokenOptions;
}

export interface AuthnServices extends Authentication {
  /** The one-time setup link printed once the server listens, while the first-run setup is pending. */
  announcedSetupUrl?: string;
}

export const authnRef = ref<AuthnServices>('authn');

/**
 * Users, passwords, sessions, tokens and their routes (`/login` and `/logout` beside the runtime router's). Once the
 * server listens, a pending first-run setup prints its link.
 */
export const authnModule = defineModule({
  name: 'authn',
  phase: 'boot',
  needs: {
    store: storeRef,
    registry: registryRef,
    http: httpRef,
    settings: settingsRef,
    logger: loggerRef,
    options: optionsRef<AuthnOptions>(),
  },
  provides: authnRef,
  async start({ store: { store }, registry: { registry, objects }, http, settings, logger, options }, lifecycle) {
    const authn: AuthnServices = await setupAuthentication({
      store,
      registry,
      objects,
      logger,
      settings,
      limits: options.login?.limits,
      loginClock: options.login?.clock,
      hasher: options.login?.passwordHashing && new PasswordHasher(options.login.passwordHashing),
      setupClock: options.setupClock,
      oidc: await createOidc(settings, options.oidc),
    });
    lifecycle.onStop('services', () => authn.close());
    http.router.add(authn.routes());
    http.app.register(authn.loginRoutes);
    http.onListening(({ url, httpsUrl }) => {
      authn.announcedSetupUrl = authn.setup.link(setupLinkBase(settings.host, url, httpsUrl));
      if (!authn.announcedSetupUrl) return;
      // Standard error: the log goes to standard output, where a collector may keep it.
      const announce = options.announce ?? ((text: string) => void process.stderr.write(text));
      announce(setupLinkNotice(authn.announcedSetupUrl));
    });
    return authn;
  },
});
