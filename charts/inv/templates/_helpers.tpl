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

{{- define "inv.image" -}}
{{- include "inv.imageRef" (dict "image" .Values.image "root" .) -}}
{{- end -}}

{{- define "inv.workerImage" -}}
{{- include "inv.imageRef" (dict "image" .Values.erase.worker.image "root" .) -}}
{{- end -}}
