// Go SDK peer for bench/peers: echo(text) returns the text, fail(text) always ends in a tool
// error (isError: true) the Go SDK way (a returned error). Usage:
//
//	peer-go stdio | http PORT | http-stateless PORT
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type textArg struct {
	Text string `json:"text" jsonschema:"the text"`
}

func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "peer-go", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Return the text unchanged"},
		func(ctx context.Context, req *mcp.CallToolRequest, args textArg) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: args.Text}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "fail", Description: "Always fail with a tool error"},
		func(ctx context.Context, req *mcp.CallToolRequest, args textArg) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("fail: refused " + fmt.Sprintf("%q", args.Text) + "; this tool always fails, do not retry")
		})
	return server
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: peer-go stdio | http PORT | http-stateless PORT")
	}
	switch os.Args[1] {
	case "stdio":
		if err := newServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Printf("server ended: %v", err)
		}
	case "http", "http-stateless":
		if len(os.Args) < 3 {
			log.Fatal("http needs a PORT")
		}
		server := newServer()
		opts := &mcp.StreamableHTTPOptions{JSONResponse: true, Stateless: os.Args[1] == "http-stateless"}
		handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, opts)
		mux := http.NewServeMux()
		mux.Handle("/mcp", handler)
		log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Args[2], mux))
	default:
		log.Fatal("usage: peer-go stdio | http PORT | http-stateless PORT")
	}
}
