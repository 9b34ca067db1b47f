{{/* The series of this release's daemon: the ServiceMonitor's job is the metrics Service. */}}
{{- define "inv.selector" -}}
job="image-inventory-controller-metrics",namespace="{{ .Values.namespaces.system }}"
{{- end -}}
