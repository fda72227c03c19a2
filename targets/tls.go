package targets

import (
	"crypto/tls"
	"crypto/x509"
	"os"
)

// tlsSpec is the tls: section, for https:// targets.
type tlsSpec struct {
	CAFile     string `yaml:"ca_file"`
	ClientCert string `yaml:"client_cert"`
	ClientKey  string `yaml:"client_key"`
}

// tlsConfig builds the client TLS settings: the system roots unless a CA
// file is given, and a client certificate if one is. Certificate and
// host name checks are never switched off.
func (d *document) tlsConfig(s *tlsSpec, t *Target) error {
	if t.BaseURL.Scheme != "https" {
		if s != nil {
			return d.errorf("tls", "base_url is not https://: tls: has nothing to do")
		}
		return nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if s != nil && s.CAFile != "" {
		pem, err := os.ReadFile(s.CAFile)
		if err != nil {
			return d.errorf("tls.ca_file", "%v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return d.errorf("tls.ca_file", "%s holds no PEM certificate", s.CAFile)
		}
		cfg.RootCAs = pool
	}
	if s != nil && (s.ClientCert != "" || s.ClientKey != "") {
		if s.ClientCert == "" || s.ClientKey == "" {
			return d.errorf("tls", "client_cert and client_key go together")
		}
		cert, err := tls.LoadX509KeyPair(s.ClientCert, s.ClientKey)
		if err != nil {
			return d.errorf("tls.client_cert", "%v", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	t.TLS = cfg
	return nil
}

// TLSFor is the TLS client config for a connection to the target: its
// settings with the server name of the base URL, so SNI and the
// certificate check name the real host even when the TCP connection goes
// to a proxy.
func (t *Target) TLSFor() *tls.Config {
	cfg := &tls.Config{}
	if t.TLS != nil {
		cfg = t.TLS.Clone()
	}
	cfg.ServerName = t.BaseURL.Hostname()
	cfg.NextProtos = []string{"http/1.1"}
	return cfg
}
