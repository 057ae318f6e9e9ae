{{/* Names, labels and the pod pieces every component shares. */}}

{{- define "aiplane.name" -}}
{{- printf "%s-%s" .root.Release.Name .component | trunc 63 | trimSuffix "-" -}}
{{- end }}

{{- define "aiplane.selectorLabels" -}}
app.kubernetes.io/name: aiplane
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "aiplane.labels" -}}
{{ include "aiplane.selectorLabels" . }}
app.kubernetes.io/part-of: aiplane
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end }}

{{- define "aiplane.serviceAccountName" -}}
{{- if .root.Values.serviceAccount.create -}}
{{ include "aiplane.name" . }}
{{- else -}}
default
{{- end -}}
{{- end }}

{{- define "aiplane.image" -}}
{{- $image := .Values.image -}}
{{- if $image.digest -}}
{{ printf "%s@%s" $image.repository $image.digest }}
{{- else -}}
{{ printf "%s:%s" $image.repository (toString (default .Chart.AppVersion $image.tag)) }}
{{- end -}}
{{- end }}

{{- define "aiplane.issuer" -}}
{{- $idp := .Values.identityProvider -}}
{{- default (printf "%s/realms/%s" (trimSuffix "/" $idp.url) $idp.realm) $idp.issuer -}}
{{- end }}

{{/* A Secret key reference as an env var: (dict "name" "VAR" "secret" "s" "key" "k"). */}}
{{- define "aiplane.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret | quote }}
      key: {{ .key | quote }}
{{- end }}

{{/* The configuration the API and the gateway share (lib/src/service/config.ts; api/src/config.ts and gateway/src/config.ts add where each listens). */}}
{{- define "aiplane.apiEnv" -}}
{{- $v := .Values -}}
{{- $idp := $v.identityProvider -}}
- name: AIPLANE_LOG_LEVEL
  value: {{ $v.logLevel | quote }}
{{ include "aiplane.secretEnv" (dict "name" "AIPLANE_DATABASE_URL" "secret" $v.database.existingSecret "key" $v.database.urlKey) }}
- name: AIPLANE_OIDC_ISSUER
  value: {{ include "aiplane.issuer" . | quote }}
- name: AIPLANE_OIDC_AUDIENCE
  value: {{ $idp.audience | quote }}
- name: AIPLANE_OIDC_JWKS_URI
  value: {{ default (printf "%s/realms/%s/protocol/openid-connect/certs" (trimSuffix "/" $idp.url) $idp.realm) $idp.jwksUri | quote }}
- name: AIPLANE_IDP_URL
  value: {{ trimSuffix "/" $idp.url | quote }}
- name: AIPLANE_IDP_REALM
  value: {{ $idp.realm | quote }}
- name: AIPLANE_IDP_CLIENT_ID
  value: {{ $idp.api.clientId | quote }}
- name: AIPLANE_PORTAL_CLIENT_ID
  value: {{ $idp.portal.clientId | quote }}
{{ include "aiplane.secretEnv" (dict "name" "AIPLANE_IDP_CLIENT_SECRET" "secret" $idp.existingSecret "key" $idp.api.clientSecretKey) }}
{{ include "aiplane.secretEnv" (dict "name" "AIPLANE_CREDENTIAL_KEYS" "secret" $v.credentialKeys.existingSecret "key" $v.credentialKeys.key) }}
{{- with $v.gateway.publicUrl }}
- name: AIPLANE_GATEWAY_PUBLIC_URL
  value: {{ . | quote }}
{{- end }}
- name: AIPLANE_MCP_UPSTREAM_TIMEOUT_MS
  value: {{ $v.mcp.upstreamTimeoutMs | quote }}
{{- with $v.mcp.oauthRedirectUrl }}
- name: AIPLANE_MCP_OAUTH_REDIRECT_URL
  value: {{ . | quote }}
{{- end }}
{{- end }}

{{/*
The pod template of one component: (dict "root" $ "component" "api" "values" .Values.api
"args" (list "api") "port" 8080 "portName" "http" "env" <rendered env list>).
Security contexts pass the restricted Pod Security Standard.
*/}}
{{- define "aiplane.podTemplate" -}}
{{- $v := .values -}}
metadata:
  labels:
    {{- include "aiplane.labels" . | nindent 4 }}
    {{- with $v.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    {{- /* Restart on a changed configuration (Secrets are referenced by name, so rotating one needs a rollout restart). */}}
    checksum/config: {{ .env | sha256sum | quote }}
    {{- with $v.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ include "aiplane.serviceAccountName" . }}
  automountServiceAccountToken: true
  {{- /* No <SERVICE>_PORT variables: the Service "<release>-api" would otherwise hand every pod
  AIPLANE_API_PORT=tcp://…, a name our configuration reads. */}}
  enableServiceLinks: false
  {{- with .root.Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- /* The image's numeric USER (65532) satisfies runAsNonRoot; no fixed uid, so platforms
  that assign one (OpenShift's restricted-v2) accept the pods too. */}}
  securityContext:
    runAsNonRoot: true
    seccompProfile:
      type: RuntimeDefault
    {{- with .fsGroup }}
    fsGroup: {{ . }}
    {{- end }}
  terminationGracePeriodSeconds: 40
  containers:
    - name: {{ .component }}
      image: {{ include "aiplane.image" .root | quote }}
      imagePullPolicy: {{ .root.Values.image.pullPolicy }}
      args: {{ toJson .args }}
      ports:
        - name: {{ .portName }}
          containerPort: {{ .port }}
          protocol: TCP
        {{- with .metricsPort }}
        - name: metrics
          containerPort: {{ . }}
          protocol: TCP
        {{- end }}
      env:
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        - name: POD_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        {{- .env | nindent 8 }}
        {{- with $v.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      startupProbe:
        httpGet:
          path: /healthz
          port: {{ .portName }}
        periodSeconds: 2
        failureThreshold: 60
      livenessProbe:
        httpGet:
          path: /healthz
          port: {{ .portName }}
        periodSeconds: 10
        timeoutSeconds: 3
        failureThreshold: 3
      readinessProbe:
        httpGet:
          path: /readyz
          port: {{ .portName }}
        periodSeconds: 5
        timeoutSeconds: 3
        failureThreshold: 3
      {{- with $v.resources }}
      resources:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        runAsNonRoot: true
        capabilities:
          drop: [ALL]
        seccompProfile:
          type: RuntimeDefault
      volumeMounts:
        - name: tmp
          mountPath: /tmp
        {{- with .volumeMounts }}
        {{- . | nindent 8 }}
        {{- end }}
  volumes:
    - name: tmp
      emptyDir:
        sizeLimit: 64Mi
    {{- with .volumes }}
    {{- . | nindent 4 }}
    {{- end }}
  {{- with $v.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $v.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $v.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}

{{/* One component's Deployment: the podTemplate's arguments plus "replicas". */}}
{{- define "aiplane.deployment" -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "aiplane.name" . }}
  namespace: {{ .root.Release.Namespace }}
  labels:
    {{- include "aiplane.labels" . | nindent 4 }}
spec:
  replicas: {{ .values.replicas }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "aiplane.selectorLabels" . | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  template:
    {{- include "aiplane.podTemplate" . | nindent 4 }}
{{- end }}

{{/* A label map as `k=v,k=v` (sorted), the form the operator's *_LABELS variables take. */}}
{{- define "aiplane.labelList" -}}
{{- $pairs := list -}}
{{- range $k, $v := . }}{{ $pairs = append $pairs (printf "%s=%s" $k $v) }}{{ end -}}
{{- join "," $pairs -}}
{{- end }}
