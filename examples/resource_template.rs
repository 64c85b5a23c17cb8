//! A resource template: `note:///{name}` reads any note by name, a lister shows the notes that
//! exist, and a completer suggests names as the user types.
//!
//! `cargo run --example resource_template` drives it through an in-memory client and prints
//! what a client sees; `cargo run --example resource_template -- --stdio` serves it over stdio.

use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tinymcp::{filter_prefix, MemoryClient, Resource, ResourceContents, ResourceTemplate, Server};

fn server(notes: Arc<Mutex<BTreeMap<String, String>>>) -> Result<Server, String> {
    let server = Server::new("notes", "1.0.0");
    let listed = Arc::clone(&notes);
    server.register_resource_lister(move |_cx| {
        let notes = listed.lock().unwrap_or_else(|e| e.into_inner());
        notes.keys().map(|name| Resource::new(format!("note:///{name}"), name).with_mime_type("text/plain")).collect()
    });
    let read = Arc::clone(&notes);
    let names = Arc::clone(&notes);
    server.register_resource_template(
        ResourceTemplate::new("note:///{name}", "note")
            .with_description("A note, by name")
            .with_mime_type("text/plain"),
        move |_cx, uri, vars| {
            let notes = read.lock().unwrap_or_else(|e| e.into_inner());
            // An empty answer means "no such note": the client gets resource-not-found.
            Ok(notes
                .get(vars.get("name").map(String::as_str).unwrap_or_default())
                .map(|text| vec![ResourceContents::text(uri, "text/plain", text.clone())])
                .unwrap_or_default())
        },
        Some(Box::new(move |_cx, request| {
            let notes = names.lock().unwrap_or_else(|e| e.into_inner());
            filter_prefix(notes.keys().map(String::as_str), request.value)
        })),
    )?;
    Ok(server)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let notes = Arc::new(Mutex::new(BTreeMap::from([
        ("groceries".to_owned(), "eggs, flour, milk".to_owned()),
        ("garden".to_owned(), "water the tomatoes".to_owned()),
        ("taxes".to_owned(), "due in April".to_owned()),
    ])));
    let server = Arc::new(server(notes)?);
    if std::env::args().any(|a| a == "--stdio") {
        return Ok(tinymcp::transport::stdio::serve(server)?);
    }
    let wait = Duration::from_secs(5);
    let client = MemoryClient::connect(Arc::clone(&server));
    client.initialize("2025-11-25", json!({}), wait).ok_or("no answer to initialize")?;
    let mut out = std::io::stdout().lock();

    let listed = client.call("resources/list", json!({}), wait).ok_or("no answer")?;
    writeln!(out, "listed: {}", listed["result"]["resources"].as_array().map_or(0, Vec::len))?;

    let read = client.call("resources/read", json!({"uri": "note:///groceries"}), wait).ok_or("no answer")?;
    writeln!(out, "note:///groceries: {}", read["result"]["contents"][0]["text"])?;
    assert_eq!(read["result"]["contents"][0]["text"], "eggs, flour, milk");

    let missing = client.call("resources/read", json!({"uri": "note:///nope"}), wait).ok_or("no answer")?;
    writeln!(out, "note:///nope: error {}", missing["error"]["code"])?;
    assert_eq!(missing["error"]["code"], tinymcp::error_codes::RESOURCE_NOT_FOUND);

    let complete = json!({
        "ref": {"type": "ref/resource", "uri": "note:///{name}"},
        "argument": {"name": "name", "value": "ga"}
    });
    let completed = client.call("completion/complete", complete, wait).ok_or("no answer")?;
    writeln!(out, "completions of \"ga\": {}", completed["result"]["completion"]["values"])?;
    assert_eq!(completed["result"]["completion"]["values"], json!(["garden"]));

    drop(client);
    server.shutdown();
    Ok(())
}
