package main_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemspec/idemspec/fakes"
)

// testCA is a throwaway certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue signs a leaf for dnsName (server) or a client certificate.
func (ca *testCA) issue(t *testing.T, dnsName string, usage x509.ExtKeyUsage) (tls.Certificate, []byte, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: dnsName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{dnsName}, ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return pair, certPEM, keyPEM
}

// TestSuiteOverHTTPS runs the whole suite against the reference fake
// behind TLS with a certificate for "localhost" only, signed by a test
// CA, requiring a client certificate. Every request goes through the
// proxy lanes, so this passes only if Host, SNI and the certificate check
// name the real host while the TCP connection goes to the proxy, and if
// faulted requests still reach the handler (warmed connections). A wrong
// CA must be refused: the checks are not switched off.
func TestSuiteOverHTTPS(t *testing.T) {
	long(t)
	t.Parallel()
	ca, clientCA := newTestCA(t, "idemspec test CA"), newTestCA(t, "idemspec client CA")
	serverCert, _, _ := ca.issue(t, "localhost", x509.ExtKeyUsageServerAuth)
	_, clientPEM, clientKey := clientCA.issue(t, "idemspec-client", x509.ExtKeyUsageClientAuth)
	clients := x509.NewCertPool()
	clients.AddCert(clientCA.cert)

	server, err := fakes.Open(fakes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	var mu sync.Mutex
	sni := map[string]int{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: server.Handler(), TLSConfig: &tls.Config{
		Certificates: []tls.Certificate{serverCert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clients,
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			mu.Lock()
			sni[h.ServerName]++
			mu.Unlock()
			return nil, nil
		},
	}}
	go srv.ServeTLS(ln, "", "")
	defer srv.Close()

	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	port := ln.Addr().(*net.TCPAddr).Port
	target := func(caFile string) string {
		return writeFile(t, "https.yaml", fmt.Sprintf(`
name: https-reference
base_url: https://localhost:%d
`+referenceAPI+`fail_trigger: {header: X-Idemspec-Fail, value: "503"}
tenants:
  - {name: a, headers: {Authorization: Bearer https-a}}
  - {name: b, headers: {Authorization: Bearer https-b}}
tls:
  ca_file: %s
  client_cert: %s
  client_key: %s
`, port, caFile, write("client.pem", clientPEM), write("client.key", clientKey)))
	}
	// Every check over TLS; the property search's length is not what
	// this test is about (its server runs in the -race test binary: the
	// default 25 sequences took over six minutes beside a second suite).
	// A burst opens twenty TLS connections with client certificates, in
	// the -race binary: beside a second suite that took over 10 s.
	r := run(t, "--target", target(write("ca.pem", ca.pem)), "--sequences", "5", "--request-timeout", "30s")
	if r.code != 0 {
		t.Fatalf("exit %d over HTTPS\n%s%s", r.code, r.stdout, r.stderr)
	}
	ran := 0
	for _, c := range r.report.Checks {
		if c.Verdict == "PASS" {
			ran++
		}
	}
	if ran < 10 {
		t.Errorf("only %d checks passed over HTTPS: %+v", ran, r.report.Checks)
	}
	mu.Lock()
	if len(sni) != 1 || sni["localhost"] == 0 {
		t.Errorf("the server saw SNI %v: want only localhost, the real host, though every connection went to a proxy", sni)
	}
	mu.Unlock()

	wrong := newTestCA(t, "some other CA")
	r = idemspec(t, "run", "--target", target(write("wrong.pem", wrong.pem)), "--report-dir", t.TempDir())
	if r.code != 2 || !strings.Contains(r.stderr, "certificate") {
		t.Errorf("with the wrong CA: exit %d, stderr %q: want 2 and a certificate error", r.code, r.stderr)
	}
}
