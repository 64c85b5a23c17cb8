// The server of examples/side_by_side.rs with rmcp's macros, over stdio (scripts/side-by-side.sh):
// three tools (arithmetic with structured output, a file reader that reports progress, a
// confirmation asked of the user), a prompt and a resource template.
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::*;
use rmcp::service::{ElicitationError, RequestContext};
use rmcp::{elicit_safe, prompt, prompt_handler, prompt_router, tool, tool_handler, tool_router};
use rmcp::{transport::stdio, ErrorData as McpError, Json, RoleServer, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::io::AsyncReadExt;

/// Two numbers to divide.
#[derive(Deserialize, JsonSchema)]
struct Division {
    /// The number divided.
    dividend: f64,
    /// The number it is divided by.
    divisor: f64,
}

/// The result of a division.
#[derive(Serialize, JsonSchema)]
struct Quotient {
    quotient: f64,
}

/// A file to read.
#[derive(Deserialize, JsonSchema)]
struct File {
    /// Its path.
    path: String,
}

/// An action to confirm.
#[derive(Deserialize, JsonSchema)]
struct Action {
    /// What to do.
    action: String,
}

/// The user's answer.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}
elicit_safe!(Confirm);

/// Code to review.
#[derive(Deserialize, JsonSchema)]
struct Review {
    /// The code.
    code: String,
    /// What to look at.
    focus: Option<String>,
}

/// A file is read in chunks of this size, a progress notification after each, up to 1 MiB.
const CHUNK: usize = 4096;
const MAX: u64 = 1 << 20;

#[derive(Clone)]
struct SideBySide;

#[tool_router]
impl SideBySide {
    #[tool(description = "Divides two numbers")]
    async fn divide(&self, Parameters(d): Parameters<Division>) -> Result<Json<Quotient>, String> {
        if d.divisor == 0.0 {
            return Err("division by zero".into());
        }
        Ok(Json(Quotient { quotient: d.dividend / d.divisor }))
    }

    #[tool(description = "Reads a text file, reporting progress")]
    async fn read_file(
        &self,
        Parameters(f): Parameters<File>,
        cx: RequestContext<RoleServer>,
    ) -> Result<String, String> {
        let file = tokio::fs::File::open(&f.path).await.map_err(|e| e.to_string())?;
        let total = file.metadata().await.map_err(|e| e.to_string())?.len().min(MAX) as f64;
        let (mut file, mut text, mut chunk) = (file.take(MAX), Vec::new(), [0; CHUNK]);
        loop {
            let n = file.read(&mut chunk).await.map_err(|e| e.to_string())?;
            if n == 0 || cx.ct.is_cancelled() {
                return String::from_utf8(text).map_err(|e| e.to_string());
            }
            text.extend_from_slice(&chunk[..n]);
            if let Some(token) = cx.meta.get_progress_token() {
                let progress = ProgressNotificationParam::new(token, text.len() as f64).with_total(total);
                cx.peer.notify_progress(progress).await.map_err(|e| e.to_string())?;
            }
        }
    }

    #[tool(description = "Asks the user to confirm an action")]
    async fn confirm(
        &self,
        Parameters(a): Parameters<Action>,
        cx: RequestContext<RoleServer>,
    ) -> Result<String, McpError> {
        Ok(match cx.peer.elicit::<Confirm>(format!("Really {}?", a.action)).await {
            Ok(Some(Confirm { confirm: true })) => format!("confirmed: {}", a.action),
            Ok(_) => "not confirmed".into(),
            Err(ElicitationError::UserDeclined) => "declined".into(),
            Err(ElicitationError::UserCancelled) => "cancelled".into(),
            Err(e) => return Err(McpError::internal_error(e.to_string(), None)),
        })
    }
}

#[prompt_router]
impl SideBySide {
    #[prompt(description = "Reviews code")]
    async fn review(&self, Parameters(r): Parameters<Review>) -> Vec<PromptMessage> {
        let focus = r.focus.map(|f| format!(", focusing on {f}")).unwrap_or_default();
        vec![PromptMessage::new_text(Role::User, format!("Review this code{focus}:\n{}", r.code))]
    }
}

#[tool_handler]
#[prompt_handler]
impl ServerHandler for SideBySide {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_prompts().enable_resources();
        ServerConfig::new(capabilities.build()).with_server_info(Implementation::new("side-by-side", "1.0.0"))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let note = ResourceTemplate::new("note:///{name}", "note").with_mime_type("text/plain");
        Ok(ListResourceTemplatesResult::with_all_items(vec![note]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let Some(name) = request.uri.strip_prefix("note:///").filter(|n| !n.is_empty() && !n.contains('/')) else {
            return Err(McpError::resource_not_found(format!("no resource {}", request.uri), None));
        };
        let text = ResourceContents::text(format!("A note called {name}"), &request.uri).with_mime_type("text/plain");
        Ok(ReadResourceResult::new(vec![text]).into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    SideBySide.serve(stdio()).await?.waiting().await?;
    Ok(())
}
