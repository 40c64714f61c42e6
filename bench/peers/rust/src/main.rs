//! rmcp peer for bench/peers: `echo(text)` returns the text, `fail(text)` always ends in a tool
//! error (isError: true) the rmcp way (an Err from the tool). Usage:
//!   peer-rmcp stdio | stdio-pipes | http PORT
use std::sync::Arc;

use rmcp::{
    ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
pub struct TextArg {
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct Peer {
    tool_router: ToolRouter<Self>,
}

#[tool_router(router = tool_router)]
impl Peer {
    pub fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

    #[tool(name = "echo", description = "Return the text unchanged")]
    pub async fn echo(&self, params: Parameters<TextArg>) -> String {
        params.0.text
    }

    #[tool(name = "fail", description = "Always fail with a tool error")]
    pub async fn fail(&self, params: Parameters<TextArg>) -> Result<String, String> {
        Err(format!("fail: refused {:?}; this tool always fails, do not retry", params.0.text))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Peer {}

async fn serve_http(port: u16) -> Result<(), Box<dyn std::error::Error>> {
    let config = StreamableHttpServerConfig::default().with_json_response(true);
    let service = StreamableHttpService::new(
        || Ok(Peer::new()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    // Without TCP_NODELAY Nagle's algorithm caps one keep-alive connection at a few dozen req/s.
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).await?;
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("stdio") => {
            let running = Peer::new().serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
        }
        Some("stdio-pipes") => {
            let running = Peer::new().serve(rmcp::transport::stdio_pipes()).await?;
            running.waiting().await?;
        }
        Some("http") => {
            let port: u16 = args.get(2).ok_or("http needs a PORT")?.parse()?;
            serve_http(port).await?;
        }
        _ => return Err("usage: peer-rmcp stdio | stdio-pipes | http PORT".into()),
    }
    Ok(())
}
