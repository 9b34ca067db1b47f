//go:build !k8s_pre137

package main

import (
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// setInformerName does what app.Run does first since Kubernetes 1.37: it names the API
// server's informers (earlier releases have no such option: informer_name_pre137.go).
func setInformerName(opts options.CompletedOptions) error {
	if opts.InformerName != nil {
		return nil
	}
	name, err := cache.NewInformerName("kube-apiserver")
	if err != nil {
		return err
	}
	opts.InformerName = name
	return nil
}
