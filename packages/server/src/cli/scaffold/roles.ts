/** The scaffold's `extensions/roles.yaml`: who may call the plugin's APIs. */
import {
  AGGREGATE_TO_LABEL_PREFIX,
  DEPENDENCIES_ANNOTATION,
  DISPLAY_NAME_ANNOTATION,
  MODULE_ANNOTATION,
  ROLE_TEMPLATE_LABEL,
  UI_PERMISSIONS_ANNOTATION,
} from '@svc/plugin-api';
import { groupsOf, type ScaffoldOptions } from './options.js';

export function rolesYaml(o: ScaffoldOptions): string {
  const g = groupsOf(o.name);
  const module = JSON.stringify(o.displayName);
  return `# Role templates: who may use the ${o.name} plugin's APIs. Until a role allows more, only the super administrator
# can. Give users the view or the manage template (manage brings view with it through its dependencies).
apiVersion: v1alpha1
kind: Role
metadata:
  name: ${o.name}-role-view-notes
  labels:
    ${ROLE_TEMPLATE_LABEL}: "true"
  annotations:
    ${MODULE_ANNOTATION}: ${module}
    ${DISPLAY_NAME_ANNOTATION}: "Note view"
    ${UI_PERMISSIONS_ANNOTATION}: '["plugin:${o.name}:view"]'
rules:
  - apiGroups: ["${g.own}"]
    # <plugin>/<plural> names this plugin's notes only.
    resources: ["${o.name}/notes", "${o.name}/notes/status"]
    verbs: ["get", "list", "watch"]
  - apiGroups: ["${g.console}"]
    resources: ["${o.name}/stats"]
    verbs: ["get", "list"]
---
apiVersion: v1alpha1
kind: Role
metadata:
  name: ${o.name}-role-manage-notes
  labels:
    ${ROLE_TEMPLATE_LABEL}: "true"
  annotations:
    ${MODULE_ANNOTATION}: ${module}
    ${DISPLAY_NAME_ANNOTATION}: "Note management"
    ${UI_PERMISSIONS_ANNOTATION}: '["plugin:${o.name}:manage"]'
    ${DEPENDENCIES_ANNOTATION}: '["${o.name}-role-view-notes"]'
rules:
  - apiGroups: ["${g.own}"]
    resources: ["${o.name}/notes"]
    verbs: ["create", "update", "patch", "delete", "deletecollection"]
  - apiGroups: ["${g.console}"]
    resources: ["${o.name}/drafts"]
    verbs: ["create"]
---
# Aggregated into the built-in \`anonymous\` role, which every visitor holds: the public read API, and nothing else,
# is open to everyone.
apiVersion: v1alpha1
kind: Role
metadata:
  name: ${o.name}-role-view-public
  labels:
    ${ROLE_TEMPLATE_LABEL}: "true"
    ${AGGREGATE_TO_LABEL_PREFIX}anonymous: "true"
  annotations:
    ${MODULE_ANNOTATION}: ${module}
    ${DISPLAY_NAME_ANNOTATION}: "Published notes (public)"
rules:
  - apiGroups: ["${g.public}"]
    resources: ["${o.name}/notes"]
    verbs: ["get", "list"]
`;
}
