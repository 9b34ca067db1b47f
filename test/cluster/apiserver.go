package main

import (
	"fmt"
	"net/http"

	"github.com/spf13/pflag"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/flagz"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/cli/globalflag"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// runAPIServer runs the upstream kube-apiserver the way its own command does (app.
// NewAPIServerCommand's RunE, then app.Run: options, flags, the server chain), with one
// addition the command has no hook for: outermost of every request's handler chain, the
// response's Warning headers are recorded (warnings.go). The steps are upstream's, in
// upstream's order; only setInformerName differs between releases (informer_name*.go).
// It blocks until SIGTERM/SIGINT.
func runAPIServer(args []string, warningsFile string) error {
	s := options.NewServerRunOptions()
	ctx := genericapiserver.SetupSignalContext()
	featureGate := s.GenericServerRunOptions.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)

	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	namedFlagSets := s.Flags()
	s.Flagz = flagz.NamedFlagSetsReader{FlagSets: namedFlagSets}
	globalflag.AddGlobalFlags(namedFlagSets.FlagSet("global"), "kube-apiserver", logs.SkipLoggingConfigurationFlags())
	for _, f := range namedFlagSets.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		return err
	}
	// As upstream: the server's loopback clients do not log warnings they caused themselves.
	rest.SetDefaultWarningHandler(rest.NoWarnings{})
	if err := logsapi.ValidateAndApply(s.Logs, featureGate); err != nil {
		return err
	}
	completed, err := s.Complete(ctx)
	if err != nil {
		return err
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return utilerrors.NewAggregate(errs)
	}
	featureGate.(featuregate.MutableFeatureGate).AddMetrics()
	s.GenericServerRunOptions.ComponentGlobalsRegistry.AddMetrics()
	if err := setInformerName(completed); err != nil {
		return err
	}

	config, err := app.NewConfig(completed)
	if err != nil {
		return err
	}
	// The aggregator is the front of the server chain: its handler chain sees every request,
	// the delegated servers (kube-apiserver, apiextensions) are reached through it.
	rec, err := newWarningRecorder(warningsFile)
	if err != nil {
		return fmt.Errorf("warnings file: %w", err)
	}
	gc := &config.Aggregator.GenericConfig.Config
	build := gc.BuildHandlerChainFunc
	gc.BuildHandlerChainFunc = func(h http.Handler, c *genericapiserver.Config) http.Handler {
		return rec.wrap(build(h, c))
	}
	done, err := config.Complete()
	if err != nil {
		return err
	}
	server, err := app.CreateServerChain(done)
	if err != nil {
		return err
	}
	prepared, err := server.PrepareRun()
	if err != nil {
		return err
	}
	return prepared.Run(ctx)
}
