package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"perflab/servers/go-common/validate"
)

// maxBodyBytes is the contract's request body limit (section 2): a 1 MiB echo message of control
// characters is 6 MiB once JSON-escaped; larger bodies get 413. mcp-go reads bodies whole, with
// no limit of its own.
const maxBodyBytes = 8 << 20

// newMCPServer is the contract's MCP server on mcp-go: the ten tools with their schemas validated
// by the SDK (WithInputSchemaValidation), tool errors as isError results, panics recovered, and
// open sessions counted for /debug/runtime.
func newMCPServer(cfg config, b *backends, dv *validate.Validator, sessions *atomic.Int64) *server.MCPServer {
	hooks := &server.Hooks{}
	hooks.AddOnRegisterSession(func(context.Context, server.ClientSession) { sessions.Add(1) })
	hooks.AddOnUnregisterSession(func(context.Context, server.ClientSession) { sessions.Add(-1) })
	if !cfg.jsonResponse {
		hooks.AddOnRequestInitialization(answerWithSSE)
		hooks.AddBeforeInitialize(sendSessionID)
	}
	s := server.NewMCPServer("perflab-go-mcp-go", "1.0.0",
		server.WithToolCapabilities(false),
		server.WithInputSchemaValidation(),
		server.WithToolHandlerMiddleware(toolErrors),
		server.WithRecovery(),
		server.WithHooks(hooks),
	)
	s.AddTools(computeTools(dv)...)
	s.AddTools(backendTools(b)...)
	return s
}

// newStreamableHTTP is mcp-go's Streamable HTTP transport in the contract's mode: stateful
// sessions that it tracks (WithStateful: an unknown or deleted session is 404), or stateless
// with no GET stream (405).
func newStreamableHTTP(cfg config, s *server.MCPServer, srv *http.Server) *server.StreamableHTTPServer {
	return server.NewStreamableHTTPServer(s,
		server.WithStateful(!cfg.stateless),
		server.WithStateLess(cfg.stateless),
		server.WithDisableStreaming(cfg.stateless),
		server.WithStreamableHTTPServer(srv),
	)
}

// legacySSE adds mcp-go's HTTP+SSE transport of protocol 2024-11-05 (study 000's Go server) on the
// same MCP server: GET /sse opens a session's stream, whose first event names POST /message.
func legacySSE(mux *http.ServeMux, s *server.MCPServer) *server.SSEServer {
	sse := server.NewSSEServer(s, server.WithSSEEndpoint("/sse"), server.WithMessageEndpoint("/message"))
	mux.Handle("/sse", sse.SSEHandler())
	mux.Handle("/message", http.MaxBytesHandler(sse.MessageHandler(), maxBodyBytes))
	return sse
}

type responseWriterKey struct{}

// answerWithSSE makes mcp-go answer this request as an SSE stream (the contract's default) instead
// of its own default, application/json: the session upgrades to SSE as it does when a tool sends a
// notification.
func answerWithSSE(ctx context.Context, _ any, _ any) error {
	if session, ok := server.ClientSessionFromContext(ctx).(server.SessionWithStreamableHTTPConfig); ok {
		session.UpgradeToSSEWhenReceiveNotification()
	}
	return nil
}

// sendSessionID sets Mcp-Session-Id on an initialize answered as SSE, which mcp-go does only on
// its JSON answers, on the response writer mcpRoute put in the context.
func sendSessionID(ctx context.Context, _ any, _ *mcp.InitializeRequest) {
	session := server.ClientSessionFromContext(ctx)
	w, ok := ctx.Value(responseWriterKey{}).(http.ResponseWriter)
	if ok && session != nil && session.SessionID() != "" {
		w.Header().Set(server.HeaderKeySessionID, session.SessionID())
	}
}

// mcpRoute serves /mcp: bodies over the contract's limit are refused with 413 before mcp-go reads
// them, and, stateless, DELETE is 405 like GET (mcp-go would answer 200 for a session it never had).
func mcpRoute(cfg config, streamable http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cfg.stateless && r.Method == http.MethodDelete {
			http.Error(w, "Method not allowed: stateless mode has no sessions", http.StatusMethodNotAllowed)
			return
		}
		if r.Method == http.MethodPost {
			if r.ContentLength > maxBodyBytes {
				http.Error(w, "Request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			if r.ContentLength < 0 && !bufferChunkedBody(w, r) {
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
			r = r.WithContext(context.WithValue(r.Context(), responseWriterKey{}, w))
		}
		streamable.ServeHTTP(w, r)
	})
}

// bufferChunkedBody reads a body sent without Content-Length, answering 413 once it passes the
// limit; a body with Content-Length was checked against it before anything was read.
func bufferChunkedBody(w http.ResponseWriter, r *http.Request) bool {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		http.Error(w, "Request body too large", http.StatusRequestEntityTooLarge)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return true
}
