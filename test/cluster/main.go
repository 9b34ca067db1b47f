// Command testcluster runs a real kube-apiserver backed by an embedded etcd, for the
// project's integration tests and demo. It is deliberately a thin launcher: every API
// behaviour (RBAC, CRDs, watch, server-side apply, TokenRequest, Leases) is the
// upstream kube-apiserver's own code, so tests see exactly what a real cluster does. The one
// addition is a record of the Warning headers it returns (apiserver.go, warnings.go).
//
// It also runs the upstream ServiceAccounts controller, because a namespace without its
// "default" ServiceAccount rejects every Pod at admission, as it would in a cluster whose
// kube-controller-manager was down.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	sacontroller "k8s.io/kubernetes/pkg/controller/serviceaccount"
)

func main() {
	dir := flag.String("dir", "", "state directory (certificates, etcd data, kubeconfig)")
	port := flag.Int("port", 0, "secure port for kube-apiserver (0 picks a free one)")
	keep := flag.Bool("keep", false, "restart on existing data: reuse certificates, token and etcd data")
	flag.Parse()
	if *dir == "" {
		fail(fmt.Errorf("-dir is required"))
	}
	if err := run(*dir, *port, *keep); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "testcluster:", err)
	os.Exit(1)
}

func run(dir string, port int, keep bool) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if port == 0 {
		if port, err = freePort(); err != nil {
			return err
		}
	}
	var pki *pkiFiles
	if keep {
		pki, err = loadPKI(dir)
	} else {
		pki, err = writePKI(dir)
	}
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}

	etcdURL, stopEtcd, err := startEtcd(filepath.Join(dir, "etcd"))
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer stopEtcd()

	server := fmt.Sprintf("https://127.0.0.1:%d", port)
	kubeconfig := filepath.Join(dir, "admin.kubeconfig")
	if err := writeKubeconfig(kubeconfig, server, pki); err != nil {
		return err
	}

	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(dir, "certs"),
		"--tls-cert-file=" + pki.servingCert,
		"--tls-private-key-file=" + pki.servingKey,
		"--client-ca-file=" + pki.caCert,
		"--token-auth-file=" + pki.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--api-audiences=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + pki.saKey,
		"--service-account-signing-key-file=" + pki.saKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--allow-privileged=true",
		// Real kubelets (npm run node:up) register with a hostname that does not resolve;
		// logs, exec and port-forward must dial their InternalIP.
		"--kubelet-preferred-address-types=InternalIP,Hostname",
		// The "kubernetes" Service's Endpoints would name 127.0.0.1, which no Pod can reach (there
		// is no kube-proxy either), and Kubernetes 1.37 refuses a loopback address for them.
		"--endpoint-reconciler-type=none",
		"--profiling=false",
		"--v=0",
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go startControllers(ctx, kubeconfig, server)
	go exitSoonAfterSignal(time.Second)

	// Every Warning header the server returns goes to this file (warnings.go).
	return runAPIServer(args, filepath.Join(dir, "api-warnings.jsonl"))
}

// exitSoonAfterSignal bounds shutdown. kube-apiserver drains open watches for up to its
// request timeout (a minute) before it returns; a test server has nothing worth waiting for,
// and its data survives a prompt exit (writes are in the page cache), so restarts stay fast.
func exitSoonAfterSignal(grace time.Duration) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	<-sigs
	time.Sleep(grace)
	os.Exit(0)
}

// startControllers waits for the API server, then runs the ServiceAccounts controller and
// marks the cluster ready by writing the kubeconfig path to <dir>/ready.
func startControllers(ctx context.Context, kubeconfig, server string) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		fail(err)
	}
	waitReady(cfg, server)
	client := kubernetes.NewForConfigOrDie(cfg)
	factory := informers.NewSharedInformerFactory(client, 10*time.Minute)
	ctrl, err := sacontroller.NewServiceAccountsController(klog.FromContext(ctx),
		factory.Core().V1().ServiceAccounts(), factory.Core().V1().Namespaces(),
		client, sacontroller.DefaultServiceAccountsControllerOptions())
	if err != nil {
		fail(err)
	}
	factory.Start(ctx.Done())
	go ctrl.Run(ctx, 2)
	ready := filepath.Join(filepath.Dir(kubeconfig), "ready")
	if err := os.WriteFile(ready, []byte(kubeconfig+"\n"), 0o600); err != nil {
		fail(err)
	}
	fmt.Println("testcluster: ready", server, kubeconfig)
}

func waitReady(cfg *rest.Config, server string) {
	tr, err := rest.TransportFor(cfg)
	if err != nil {
		fail(err)
	}
	c := &http.Client{Transport: tr, Timeout: 2 * time.Second}
	for {
		resp, err := c.Get(server + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func startEtcd(dataDir string) (string, func(), error) {
	clientPort, err := freePort()
	if err != nil {
		return "", nil, err
	}
	peerPort, err := freePort()
	if err != nil {
		return "", nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dataDir
	cfg.LogLevel = "error"
	cfg.Logger = "zap"
	curl, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", clientPort))
	purl, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", peerPort))
	cfg.ListenClientUrls = []url.URL{*curl}
	cfg.AdvertiseClientUrls = []url.URL{*curl}
	cfg.ListenPeerUrls = []url.URL{*purl}
	cfg.AdvertisePeerUrls = []url.URL{*purl}
	cfg.InitialCluster = cfg.Name + "=" + purl.String()
	// Tests write a lot and the data is thrown away: skip fsync-heavy durability.
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return "", nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return "", nil, fmt.Errorf("embedded etcd did not become ready in 60s")
	}
	return curl.String(), e.Close, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

type pkiFiles struct {
	caCert, servingCert, servingKey, saKey, tokenFile string
	caPEM                                             []byte
	token                                             string
}

func pkiPaths(dir string) *pkiFiles {
	return &pkiFiles{
		caCert:      filepath.Join(dir, "ca.crt"),
		servingCert: filepath.Join(dir, "apiserver.crt"),
		servingKey:  filepath.Join(dir, "apiserver.key"),
		saKey:       filepath.Join(dir, "sa.key"),
		tokenFile:   filepath.Join(dir, "tokens.csv"),
	}
}

// writePKI creates a throwaway CA, a serving certificate for 127.0.0.1/localhost, a
// ServiceAccount signing key and a static admin token in the system:masters group.
func writePKI(dir string) (*pkiFiles, error) {
	p := pkiPaths(dir)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "inv-testcluster-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	if err := os.WriteFile(p.caCert, p.caPEM, 0o600); err != nil {
		return nil, err
	}

	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.servingCert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER}), 0o600); err != nil {
		return nil, err
	}
	if err := writeECKey(p.servingKey, srvKey); err != nil {
		return nil, err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if err := writeECKey(p.saKey, saKey); err != nil {
		return nil, err
	}
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return nil, err
	}
	p.token = hex.EncodeToString(buf)
	line := fmt.Sprintf("%s,admin,admin-uid,system:masters\n", p.token)
	if err := os.WriteFile(p.tokenFile, []byte(line), 0o600); err != nil {
		return nil, err
	}
	return p, nil
}

// loadPKI reads back what writePKI wrote, so a restarted server keeps its identity.
func loadPKI(dir string) (*pkiFiles, error) {
	p := pkiPaths(dir)
	var err error
	if p.caPEM, err = os.ReadFile(p.caCert); err != nil {
		return nil, err
	}
	line, err := os.ReadFile(p.tokenFile)
	if err != nil {
		return nil, err
	}
	p.token = strings.SplitN(string(line), ",", 2)[0]
	return p, nil
}

func writeECKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

func writeKubeconfig(path, server string, p *pkiFiles) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["inv-test"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: p.caPEM}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: p.token}
	cfg.Contexts["inv-test"] = &clientcmdapi.Context{Cluster: "inv-test", AuthInfo: "admin", Namespace: "default"}
	cfg.CurrentContext = "inv-test"
	return clientcmd.WriteToFile(*cfg, path)
}
