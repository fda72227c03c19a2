package mcp

import (
	"context"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ConnectHTTP opens a session with a server over streamable HTTP, every
// request sent with client. The SDK never retries on its own
// (MaxRetries -1) and opens no standalone event stream: each call is one
// POST the caller can route, cut and count.
func ConnectHTTP(ctx context.Context, endpoint string, client *http.Client) (*Session, error) {
	return connect(ctx, &sdk.StreamableClientTransport{
		Endpoint: endpoint, HTTPClient: client, MaxRetries: -1, DisableStandaloneSSE: true,
	})
}
