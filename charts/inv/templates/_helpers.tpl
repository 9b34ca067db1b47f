{{/*
The labels every object of deploy/ carries (kustomize's part-of label, and the name label on all
but the Namespaces), plus Helm's own: test/helm/render.test.ts allows exactly these four to differ.
*/}}
{{- define "inv.helmLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name | quote }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "inv.labels" -}}
app.kubernetes.io/name: image-inventory-controller
app.kubernetes.io/part-of: image-inventory
{{ include "inv.helmLabels" . }}
{{- end -}}

{{- define "inv.namespaceLabels" -}}
app.kubernetes.io/part-of: image-inventory
{{ include "inv.helmLabels" . }}
{{- end -}}

{{/* repository[:tag][@digest]; the tag defaults to the chart's appVersion. */}}
{{- define "inv.imageRef" -}}
{{- $tag := .image.tag | default .root.Chart.AppVersion -}}
{{- if .image.digest -}}
{{- printf "%s@%s" .image.repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" .image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/* The daemon's image: no registry publishes one, so the user names the one they pushed. */}}
{{- define "inv.image" -}}
{{- $_ := required "image.repository is required: no registry publishes an inv image, so build it from a checkout of inv and push it to a registry your nodes pull from (npm run image -- --push REGISTRY/inv:TAG), then: --set image.repository=REGISTRY/inv --set image.tag=TAG (and image.pullSecrets if the registry needs credentials)" .Values.image.repository -}}
{{- include "inv.imageRef" (dict "image" .Values.image "root" .) -}}
{{- end -}}

{{/* The workers': their own when erase.worker.image.repository is set, else the daemon's. */}}
{{- define "inv.workerImage" -}}
{{- if .Values.erase.worker.image.repository -}}
{{- include "inv.imageRef" (dict "image" .Values.erase.worker.image "root" .) -}}
{{- else -}}
{{- include "inv.image" . -}}
{{- end -}}
{{- end -}}

{{/* The workers' pull secrets (names): their own when set, else the daemon's. */}}
{{- define "inv.workerPullSecrets" -}}
{{- $names := list -}}
{{- range .Values.image.pullSecrets -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- toJson (.Values.erase.worker.imagePullSecrets | default $names) -}}
{{- end -}}
