import type { AnyExtensionObject, ExtensionObject } from './objects.js';

/** A JSON Schema (draft 2020-12 subset understood by Ajv). */
export type JsonSchema = Record<string, unknown>;

/**
 * An index over one model's objects. The seed's IndexSpec: a name unique within the model, an order, a unique flag,
 * and a function from the object to its value or values (strings).
 *
 * When `indexFunc` is omitted the value is read from the field path given as `name` (`spec.slug`), and numbers and
 * booleans are converted to strings; arrays yield one value per element.
 */
export interface IndexSpec<T extends AnyExtensionObject = ExtensionObject> {
  name: string;
  order?: 'ASC' | 'DESC';
  unique?: boolean;
  indexFunc?: (object: T) => string | readonly string[] | null | undefined;
}

/** The seed's model declaration attributes, plus the schema and indexes of the model. */
export interface ModelDefinition<T extends AnyExtensionObject = ExtensionObject> {
  group: string;
  version: string;
  kind: string;
  /** Lowercase plural; the collection path segment. */
  plural: string;
  /** Lowercase singular; defaults to the lowercased kind. */
  singular?: string;
  /**
   * JSON Schema of the object. Only `spec` and `status` (and any other top-level fields) are the model's own;
   * `apiVersion`, `kind` and `metadata` are checked by svc itself. Recursive shapes use `$ref: "#"`.
   */
  schema?: JsonSchema;
  indexes?: IndexSpec<T>[];
  /** When true, `…/{name}/status` is served and writes to the main route cannot change `status`. */
  statusSubresource?: boolean;
  /**
   * Finalizers every new object starts with: svc adds them at create, after any the body names (as Kubernetes gives
   * each new namespace its `kubernetes` finalizer). The controller that owns one then holds every object from its first
   * moment, so a delete that comes before its first reconcile still waits for its clean-up, and it spends no write
   * adding the finalizer. Later writes may remove one like any other finalizer.
   */
  finalizers?: string[];
  /** Short names kubectl accepts for the plural (`kubectl get ps`), as a CRD's `names.shortNames`. */
  shortNames?: string[];
  /** Groups of resources this one belongs to (`kubectl get all`), as a CRD's `names.categories`. */
  categories?: string[];
  /**
   * Columns of the table `kubectl get` prints (a CRD's `additionalPrinterColumns`), after Name and before Age; each
   * value is read from the object at `jsonPath` (a dotted path such as `.spec.age`).
   */
  printerColumns?: PrinterColumn[];
}

/** One declared column of the table view (docs/api.md "Tables"). */
export interface PrinterColumn {
  name: string;
  /** As OpenAPI: `string`, `integer`, `number`, `boolean` or `date`. */
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  /** A simple JSONPath: `.spec.name`, `.status.conditions[0].type`. */
  jsonPath: string;
  description?: string;
  /** 0 (default) is always shown; higher only in `kubectl get -o wide`. */
  priority?: number;
  format?: string;
}

/** Identifies a model: a definition, or its apiVersion and kind. */
export type ModelRef = { group: string; version: string; kind: string } | { apiVersion: string; kind: string };

/** Index functions for the two forms the seed names. */
export const indexFunc = {
  /** Single value read from a field path; non-strings are converted with String(). */
  field(path: string) {
    const parts = path.split('.');
    return (object: ExtensionObject): string | undefined => {
      let value: unknown = object;
      for (const part of parts) {
        if (value === null || typeof value !== 'object') return undefined;
        value = (value as Record<string, unknown>)[part];
      }
      return value === undefined || value === null ? undefined : String(value);
    };
  },
  /** Multiple values from an array field; each element converted with String(). */
  multi(path: string) {
    const single = path.split('.');
    return (object: ExtensionObject): string[] => {
      let value: unknown = object;
      for (const part of single) {
        if (value === null || typeof value !== 'object') return [];
        value = (value as Record<string, unknown>)[part];
      }
      return Array.isArray(value) ? value.filter((v) => v !== null && v !== undefined).map(String) : [];
    };
  },
};
