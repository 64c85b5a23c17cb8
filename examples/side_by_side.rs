//! The server docs/embedding.md compares with rmcp's macros (scripts/side-by-side.sh builds it
//! and scripts/side-by-side/rmcp.rs, the same server): three typed tools (arithmetic with
//! structured output, a file reader that reports progress, a confirmation asked of the user), a
//! prompt and a resource template, over stdio.
//!
//! `cargo run --example side_by_side --features schemars` serves it to an MCP host;
//! tests/it/typed.rs drives `server()` with the spec's schemas at hand.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::sync::Arc;
use tinymcp::{Elicited, ResourceTemplate, Server, ToolError};

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

/// Code to review.
#[derive(Deserialize, JsonSchema)]
struct Review {
    /// The code.
    code: String,
    /// What to look at.
    focus: Option<String>,
}

/// A note's name, the template's variable.
#[derive(Deserialize, JsonSchema)]
struct Note {
    name: String,
}

/// A file is read in chunks of this size, a progress notification after each, up to 1 MiB.
const CHUNK: usize = 4096;
const MAX: u64 = 1 << 20;

/// The server with its three tools, prompt and template registered.
pub fn server() -> Result<Server, String> {
    let server = Server::new("side-by-side", "1.0.0");
    server.tool("divide", "Divides two numbers", |_cx, d: Division| -> Result<Quotient, ToolError> {
        if d.divisor == 0.0 {
            return Err(ToolError::new("division by zero"));
        }
        Ok(Quotient { quotient: d.dividend / d.divisor })
    });
    server.tool("read_file", "Reads a text file, reporting progress", |cx, f: File| -> Result<String, ToolError> {
        let file = std::fs::File::open(&f.path)?;
        let total = file.metadata()?.len().min(MAX) as f64;
        let (mut file, mut text, mut chunk) = (file.take(MAX), Vec::new(), [0; CHUNK]);
        loop {
            let n = file.read(&mut chunk)?;
            if n == 0 || cx.is_cancelled() {
                return Ok(String::from_utf8(text)?);
            }
            text.extend_from_slice(&chunk[..n]);
            cx.progress(text.len() as f64, Some(total), None);
        }
    });
    server.tool("confirm", "Asks the user to confirm an action", |cx, a: Action| -> Result<String, ToolError> {
        Ok(match cx.elicit::<Confirm>(&format!("Really {}?", a.action))? {
            Elicited::Accept(Confirm { confirm: true }) => format!("confirmed: {}", a.action),
            Elicited::Accept(_) => "not confirmed".into(),
            Elicited::Decline => "declined".into(),
            Elicited::Cancel => "cancelled".into(),
        })
    });
    server.prompt("review", "Reviews code", |_cx, r: Review| -> Result<String, ToolError> {
        let focus = r.focus.map(|f| format!(", focusing on {f}")).unwrap_or_default();
        Ok(format!("Review this code{focus}:\n{}", r.code))
    });
    let notes = ResourceTemplate::new("note:///{name}", "note").with_mime_type("text/plain");
    server.resource_template(notes, |_cx, _uri, n: Note| -> Result<String, ToolError> {
        Ok(format!("A note called {}", n.name))
    })?;
    Ok(server)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    Ok(tinymcp::transport::stdio::serve(Arc::new(server()?))?)
}
