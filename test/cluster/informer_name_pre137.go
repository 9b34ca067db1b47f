//go:build k8s_pre137

package main

import "k8s.io/kubernetes/cmd/kube-apiserver/app/options"

// setInformerName: before Kubernetes 1.37 the API server's informers have no name to set
// (scripts/k8s-versions.mjs builds 1.35 and 1.36 with the k8s_pre137 tag).
func setInformerName(options.CompletedOptions) error { return nil }
