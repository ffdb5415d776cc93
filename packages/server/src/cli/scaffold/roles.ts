/** The scaffold's `extensions/roles.yaml`: who may call the plugin's APIs. */
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
    svc.run/role-template: "true"
  annotations:
    rbac.authorization.svc.run/module: ${module}
    rbac.authorization.svc.run/display-name: "Note view"
    rbac.authorization.svc.run/ui-permissions: '["plugin:${o.name}:view"]'
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
    svc.run/role-template: "true"
  annotations:
    rbac.authorization.svc.run/module: ${module}
    rbac.authorization.svc.run/display-name: "Note management"
    rbac.authorization.svc.run/ui-permissions: '["plugin:${o.name}:manage"]'
    rbac.authorization.svc.run/dependencies: '["${o.name}-role-view-notes"]'
rules:
  - apiGroups: ["${g.own}"]
    resources: ["${o.name}/notes"]
    verbs: ["create", "update", "patch", "delete", "deletecollection"]
---
# Aggregated into the built-in \`anonymous\` role, which every visitor holds: the public read API, and nothing else,
# is open to everyone.
apiVersion: v1alpha1
kind: Role
metadata:
  name: ${o.name}-role-view-public
  labels:
    svc.run/role-template: "true"
    rbac.authorization.svc.run/aggregate-to-anonymous: "true"
  annotations:
    rbac.authorization.svc.run/module: ${module}
    rbac.authorization.svc.run/display-name: "Published notes (public)"
rules:
  - apiGroups: ["${g.public}"]
    resources: ["${o.name}/notes"]
    verbs: ["get", "list"]
`;
}
