package fakes

import (
	"database/sql"
	"errors"
	"io"
	"net/http"
	"time"
)

// The upload a multi-step job starts with (client mode's workflow): a
// PUT that is idempotent by its path, as object stores are. The same
// bytes at the same path again change nothing; other bytes replace them.
// It needs no key: repeating it is always safe.

// uploadSchema is the uploads' DDL, beside whatever schema the server's
// steps declare.
const uploadSchema = `
CREATE TABLE IF NOT EXISTS uploads (
	tenant     TEXT    NOT NULL,
	path       TEXT    NOT NULL,
	sha256     TEXT    NOT NULL,
	body       BLOB    NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (tenant, path)
);
`

// upload stores the body at the request's path: 201 when the path was
// empty, 200 when it held bytes already.
func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	at, tenant := time.Now(), s.steps.tenant(r)
	status := http.StatusCreated
	if err == nil {
		err = s.write(r.Context(), func(tx *sql.Tx) error {
			var old string
			switch err := tx.QueryRowContext(r.Context(), `SELECT sha256 FROM uploads WHERE tenant = ? AND path = ?`, tenant, r.URL.Path).Scan(&old); {
			case err == nil:
				status = http.StatusOK
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
			_, err := tx.ExecContext(r.Context(),
				`INSERT INTO uploads (tenant, path, sha256, body, updated_at) VALUES (?, ?, ?, ?, ?)
				 ON CONFLICT (tenant, path) DO UPDATE SET sha256 = excluded.sha256, body = excluded.body, updated_at = excluded.updated_at`,
				tenant, r.URL.Path, digest(body), body, at.UnixNano())
			return err
		})
	}
	if err != nil {
		status = http.StatusInternalServerError
	}
	s.logRequest(Arrival{At: at, Tenant: tenant, Hash: digest(body), Status: status, Method: r.Method, Path: r.URL.Path})
	if err != nil {
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, status, map[string]any{"path": r.URL.Path, "sha256": digest(body), "size": len(body)})
}

// logRequest adds a request other than a create to the client's
// conversation (Requests).
func (s *Server) logRequest(a Arrival) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, a)
}
