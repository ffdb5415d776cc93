import { readFile } from 'node:fs/promises';
import { httpRef } from '../api/module.js';
import { defineModule, ref } from '../kernel/module.js';
import { loggerRef, optionsRef, settingsRef } from '../kernel/root.js';
import type { AuditStore } from '../store/audit-store.js';
import { openAuditStore } from '../store/open-store.js';
import { DEFAULT_POLICY, type Policy, readPolicy } from './policy.js';
import { auditHook } from './recorder.js';
import { auditRoutes } from './routes.js';
import { type AuditSink, fileSink, storeSink } from './sinks.js';

export interface AuditOptions {
  /** PostgreSQL schema (the store's); the audit events' table goes beside the store's. */
  databaseSchema?: string;
}

export interface Audit {
  policy: Policy;
  store: AuditStore;
  /** Writes every queued event (tests read them right after a request). */
  flush(): Promise<void>;
}

export const auditRef = ref<Audit>('audit');

/**
 * The audit log (docs/access-control.md "Audit"): every request the policy names becomes an `audit.k8s.io/v1` Event
 * in the store (queryable at `/apis/audit.svc.run/v1alpha1/events`) and, with SVC_AUDIT_LOG, in a file. In the open
 * phase, so that it sees the requests of the boot phase's routes from the first one served.
 */
export const auditModule = defineModule({
  name: 'audit',
  phase: 'open',
  needs: { http: httpRef, settings: settingsRef, logger: loggerRef, options: optionsRef<AuditOptions>() },
  provides: auditRef,
  async start({ http, settings, logger, options }, lifecycle) {
    const policy = settings.auditPolicy
      ? readPolicy(await readFile(settings.auditPolicy, 'utf8'), settings.auditPolicy)
      : DEFAULT_POLICY;
    const store = await openAuditStore({
      dataDir: settings.dataDir,
      databaseUrl: settings.databaseUrl,
      schema: options.databaseSchema ?? settings.databaseSchema,
    });
    const sinks: AuditSink[] = [storeSink(store, logger, settings.auditRetentionMs)];
    if (settings.auditLog) {
      sinks.push(
        fileSink(settings.auditLog, { maxSize: settings.auditLogMaxSize, maxFiles: settings.auditLogMaxFiles }),
      );
    }
    lifecycle.onStop('services', async () => {
      for (const sink of sinks) await sink.close();
    });
    const replica = settings.databaseUrl ? settings.replicaId : undefined;
    // A policy that audits nothing leaves requests alone: no hook at all.
    if (policy.rules.some((rule) => rule.level !== 'None')) {
      http.app.addHook('onSend', auditHook(policy, sinks, replica));
    }
    http.router.add(auditRoutes(store));
    return {
      policy,
      store,
      flush: async () => {
        for (const sink of sinks) await sink.flush();
      },
    };
  },
});
