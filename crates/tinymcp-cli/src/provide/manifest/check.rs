//! Checks a manifest's JSON in one pass and builds what it declares. Every problem is kept,
//! named by its JSON path (`tools[1].command[2]`) and saying what was expected, so one
//! `--check` run shows them all. Pure: reads the filesystem only to see that files exist.

mod cache;

use super::{index, key, problem, Body, Problem, PromptDef, ResourceDef, Source, ToolDef};
use crate::provide::command::{placeholders, CommandSpec, Output};
use crate::provide::mime;
use crate::provide::sandbox::Sandbox;
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tinymcp::{schema, Prompt, PromptArgument, Resource, Role, TaskSupport, Tool, ToolAnnotations};

const TOP_KEYS: &[&str] = &["instructions", "tools", "prompts", "resources"];
const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "command",
    "inputSchema",
    "outputSchema",
    "stdin",
    "cwd",
    "env",
    "timeoutMs",
    "maxOutputBytes",
    "output",
    "annotations",
    "optionArguments",
    "pathArguments",
    "task",
    "ui",
    "scopes",
    "sensitive",
];
const ANNOTATION_KEYS: &[&str] = &["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
const PROMPT_KEYS: &[&str] = &["name", "title", "description", "arguments", "messages", "scopes"];
const ARGUMENT_KEYS: &[&str] = &["name", "title", "description", "required", "completions"];
const MESSAGE_KEYS: &[&str] = &["role", "text", "file", "resource"];
const RESOURCE_KEYS: &[&str] = &["uri", "name", "title", "description", "mimeType", "path", "text", "cache", "scopes"];

/// The largest `timeoutMs` (a day) and `maxOutputBytes` (256 MiB) accepted.
const MAX_TIMEOUT_MS: u64 = 86_400_000;
const MAX_OUTPUT_BYTES: u64 = 256 << 20;

/// What a valid manifest declares.
pub(super) struct Checked {
    /// Things that work but are likely unsafe or wrong (shell code with placeholders, read-only
    /// tools whose command writes).
    pub warnings: Vec<Problem>,
    pub instructions: Option<String>,
    pub tools: Vec<ToolDef>,
    pub prompts: Vec<PromptDef>,
    pub resources: Vec<ResourceDef>,
}

/// Checks the whole manifest; relative paths resolve against `dir`. A broken manifest's
/// problems are its errors, then its warnings: whoever fixes the errors sees every problem at once.
pub(super) fn manifest(raw: &Value, dir: &Path) -> Result<Checked, Vec<Problem>> {
    let mut c = Checker { problems: Vec::new(), warnings: Vec::new(), dir };
    let checked = c.top(raw);
    match checked {
        Some(checked) if c.problems.is_empty() => Ok(Checked { warnings: c.warnings, ..checked }),
        _ => {
            c.problems.append(&mut c.warnings);
            Err(c.problems)
        }
    }
}

/// Names of tools and prompts: 1 to 128 characters of `A-Za-z0-9_-.` (the spec's rule for tools).
fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

struct Checker<'a> {
    problems: Vec<Problem>,
    warnings: Vec<Problem>,
    dir: &'a Path,
}

impl Checker<'_> {
    fn fail(&mut self, path: &str, message: impl Into<String>) {
        self.problems.push(problem(path, message));
    }

    /// Argument names listed under `name` (`optionArguments`, `pathArguments`): each must be a
    /// property of the input schema.
    fn argument_names(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
        name: &str,
        properties: &[String],
    ) -> Vec<String> {
        let Some(value) = map.get(name) else { return Vec::new() };
        let at = key(path, name);
        let Some(items) = value.as_array() else {
            self.fail(&at, "expected an array of argument names (properties of inputSchema)");
            return Vec::new();
        };
        let mut names = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(n) if properties.iter().any(|p| p == n) => names.push(n.to_owned()),
                _ => self.fail(
                    &index(&at, i),
                    format!("expected a property of inputSchema (declared: {}), got {item}", properties.join(", ")),
                ),
            }
        }
        names
    }

    /// `scopes`: the OAuth scopes a token needs to see and use the tool, prompt or resource, each one token of
    /// visible characters without quotes (it goes into a `WWW-Authenticate` challenge as is).
    fn scopes(&mut self, map: &Map<String, Value>, path: &str) -> Vec<String> {
        let Some(value) = map.get("scopes") else { return Vec::new() };
        let at = key(path, "scopes");
        let Some(items) = value.as_array() else {
            self.fail(&at, "expected an array of OAuth scopes, e.g. [\"files:write\"]");
            return Vec::new();
        };
        let mut scopes = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) if !s.is_empty() && s.bytes().all(|b| (0x21..0x7f).contains(&b) && b != b'"' && b != b'\\') => {
                    scopes.push(s.to_owned())
                }
                _ => self
                    .fail(&index(&at, i), format!("expected one scope of visible characters, no quotes, got {item}")),
            }
        }
        scopes
    }

    /// An object with only `allowed` keys (unknown keys are reported, the object still used).
    fn object<'v>(&mut self, value: &'v Value, path: &str, allowed: &[&str]) -> Option<&'v Map<String, Value>> {
        let Some(map) = value.as_object() else {
            self.fail(path, "expected an object");
            return None;
        };
        for name in map.keys() {
            if !allowed.contains(&name.as_str()) {
                self.fail(&key(path, name), format!("unknown key (expected one of: {})", allowed.join(", ")));
            }
        }
        Some(map)
    }

    fn string<'v>(&mut self, map: &'v Map<String, Value>, path: &str, name: &str, what: &str) -> Option<&'v str> {
        match map.get(name) {
            None => None,
            Some(Value::String(s)) => Some(s),
            Some(_) => {
                self.fail(&key(path, name), format!("expected {what}"));
                None
            }
        }
    }

    fn required<'v>(&mut self, map: &'v Map<String, Value>, path: &str, name: &str, what: &str) -> Option<&'v Value> {
        let found = map.get(name);
        if found.is_none() {
            self.fail(path, format!("missing \"{name}\" (expected {what})"));
        }
        found
    }

    fn bool(&mut self, map: &Map<String, Value>, path: &str, name: &str) -> Option<bool> {
        match map.get(name) {
            None => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                self.fail(&key(path, name), "expected true or false");
                None
            }
        }
    }

    fn positive(&mut self, map: &Map<String, Value>, path: &str, name: &str, max: u64) -> Option<u64> {
        let value = map.get(name)?;
        match value.as_u64() {
            Some(n) if (1..=max).contains(&n) => Some(n),
            _ => {
                self.fail(&key(path, name), format!("expected a whole number from 1 to {max}"));
                None
            }
        }
    }

    fn array<'v>(&mut self, value: &'v Value, path: &str) -> &'v [Value] {
        match value.as_array() {
            Some(items) => items,
            None => {
                self.fail(path, "expected an array");
                &[]
            }
        }
    }

    fn name(&mut self, map: &Map<String, Value>, path: &str, seen: &mut HashSet<String>, kind: &str) -> String {
        let what = "a name of 1 to 128 characters of A-Za-z0-9_-.";
        let Some(value) = self.required(map, path, "name", what) else { return String::new() };
        let name = value.as_str().unwrap_or_default();
        if !valid_name(name) {
            self.fail(&key(path, "name"), format!("expected {what}, got {value}"));
        } else if !seen.insert(name.to_owned()) {
            self.fail(&key(path, "name"), format!("duplicate {kind} name {name:?} (names must be unique)"));
        }
        name.to_owned()
    }

    /// Placeholders must name something declared.
    fn placeholders_known(&mut self, template: &str, path: &str, known: &[String], what: &str) {
        for name in placeholders(template) {
            if !known.iter().any(|k| k == name) {
                let declared = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
                self.fail(path, format!("placeholder {{{{{name}}}}} names no {what} (declared: {declared})"));
            }
        }
    }

    fn top(&mut self, raw: &Value) -> Option<Checked> {
        let map = self.object(raw, "", TOP_KEYS)?;
        let instructions = self.string(map, "", "instructions", "a string").map(str::to_owned);
        let mut resources = Vec::new();
        if let Some(list) = map.get("resources") {
            let mut seen = HashSet::new();
            for (i, item) in self.array(list, "resources").iter().enumerate() {
                resources.extend(self.resource(item, &index("resources", i), &mut seen));
            }
        }
        let uris: Vec<String> = resources.iter().map(|r: &ResourceDef| r.resource.uri.clone()).collect();
        let mut tools = Vec::new();
        if let Some(list) = map.get("tools") {
            let mut seen = HashSet::new();
            for (i, item) in self.array(list, "tools").iter().enumerate() {
                tools.extend(self.tool(item, &index("tools", i), &mut seen));
            }
        }
        let mut prompts = Vec::new();
        if let Some(list) = map.get("prompts") {
            let mut seen = HashSet::new();
            for (i, item) in self.array(list, "prompts").iter().enumerate() {
                prompts.extend(self.prompt(item, &index("prompts", i), &mut seen, &uris));
            }
        }
        Some(Checked { warnings: Vec::new(), instructions, tools, prompts, resources })
    }

    fn tool(&mut self, value: &Value, path: &str, seen: &mut HashSet<String>) -> Option<ToolDef> {
        let map = self.object(value, path, TOOL_KEYS)?;
        let name = self.name(map, path, seen, "tool");
        let description = self.string(map, path, "description", "a string").unwrap_or_default().to_owned();
        let title = self.string(map, path, "title", "a string").map(str::to_owned);
        let input_schema = match map.get("inputSchema") {
            None => json!({"type": "object"}),
            Some(schema) => {
                self.schema(schema, &key(path, "inputSchema"));
                schema.clone()
            }
        };
        let properties: Vec<String> = input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let mut argv = Vec::new();
        let argv_what = "a non-empty array of strings: the program, then its arguments";
        if let Some(command) = self.required(map, path, "command", argv_what) {
            let at = key(path, "command");
            match command.as_array() {
                Some(items) if !items.is_empty() => {
                    for (i, item) in items.iter().enumerate() {
                        match item.as_str() {
                            Some(s) => {
                                self.placeholders_known(s, &index(&at, i), &properties, "property of inputSchema");
                                argv.push(s.to_owned());
                            }
                            None => self.fail(&index(&at, i), "expected a string"),
                        }
                    }
                    if argv.first().is_some_and(|p| p.is_empty()) {
                        self.fail(&index(&at, 0), "expected the program to run, got an empty string");
                    }
                    // Windows would run it through cmd.exe: refused at load, not at each call.
                    if let Some(program) = argv.first().filter(|p| cfg!(windows) && crate::platform::is_batch_script(p))
                    {
                        self.fail(&index(&at, 0), crate::provide::command::batch_refusal(program));
                    }
                }
                _ => self.fail(&at, format!("expected {argv_what}")),
            }
        }
        let mut spec = CommandSpec::new(argv);
        // Commands run in the manifest's folder unless told otherwise, so relative script paths work.
        spec.cwd = Some(self.dir.to_path_buf());
        if let Some(stdin) = self.string(map, path, "stdin", "a string (a template written to the command)") {
            self.placeholders_known(stdin, &key(path, "stdin"), &properties, "property of inputSchema");
            spec.stdin = Some(stdin.to_owned());
        }
        if let Some(cwd) = self.string(map, path, "cwd", "a folder (relative to the manifest)") {
            let dir = self.dir.join(cwd);
            if !dir.is_dir() {
                self.fail(&key(path, "cwd"), format!("expected a folder, but {} is none", dir.display()));
            }
            spec.cwd = Some(dir);
        }
        if let Some(env) = map.get("env") {
            match env.as_object() {
                Some(vars) => {
                    for (name, value) in vars {
                        match value.as_str() {
                            Some(v) if !name.is_empty() && !name.contains('=') => {
                                spec.env.push((name.clone(), v.to_owned()))
                            }
                            Some(_) => self.fail(&key(&key(path, "env"), name), "expected a variable name without ="),
                            None => self.fail(&key(&key(path, "env"), name), "expected a string"),
                        }
                    }
                }
                None => self.fail(&key(path, "env"), "expected an object of variable names to strings"),
            }
        }
        if let Some(ms) = self.positive(map, path, "timeoutMs", MAX_TIMEOUT_MS) {
            spec.timeout = Duration::from_millis(ms);
        }
        if let Some(bytes) = self.positive(map, path, "maxOutputBytes", MAX_OUTPUT_BYTES) {
            spec.max_output_bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        }
        match self.string(map, path, "output", "\"text\" or \"json\"") {
            None | Some("text") => {}
            Some("json") => spec.output = Output::Json,
            Some(other) => self.fail(&key(path, "output"), format!("expected \"text\" or \"json\", got {other:?}")),
        }
        let mut tool = Tool::new(name, description, input_schema);
        tool.title = title;
        if let Some(schema) = map.get("outputSchema") {
            self.schema(schema, &key(path, "outputSchema"));
            if spec.output != Output::Json {
                self.fail(&key(path, "outputSchema"), "needs \"output\": \"json\" (only JSON output is structured)");
            }
            tool.output_schema = Some(schema.clone());
        }
        if let Some(annotations) = map.get("annotations") {
            tool.annotations = self.annotations(annotations, &key(path, "annotations"));
        }
        tool.task_support = match self.string(map, path, "task", "\"never\", \"optional\" or \"required\"") {
            None | Some("never") => TaskSupport::Forbidden,
            Some("optional") => TaskSupport::Optional,
            Some("required") => TaskSupport::Required,
            Some(other) => {
                self.fail(
                    &key(path, "task"),
                    format!("expected \"never\", \"optional\" or \"required\", got {other:?}"),
                );
                TaskSupport::Forbidden
            }
        };
        let ui = self.view(map, path, spec.output);
        tool.required_scopes = self.scopes(map, path);
        // Secret arguments: kept out of every log line (the frame lines, the command line run).
        tool.sensitive = self.bool(map, path, "sensitive").unwrap_or(false);
        spec.sensitive = tool.sensitive;
        spec.options = self.argument_names(map, path, "optionArguments", &properties);
        spec.paths = self.argument_names(map, path, "pathArguments", &properties);
        let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true);
        self.warnings.extend(super::warnings::command(&spec.argv, path, read_only));
        Some(ToolDef { tool, spec, ui })
    }

    /// A tool's view (`ui`, MCP Apps): an HTML file inside the manifest's folder, for a tool
    /// whose JSON output is what the view receives.
    fn view(&mut self, map: &Map<String, Value>, path: &str, output: Output) -> Option<PathBuf> {
        let what = "an .html file inside the manifest's folder, such as \"views/report.html\"";
        let spelled = self.string(map, path, "ui", what)?;
        let at = key(path, "ui");
        if !(spelled.ends_with(".html") || spelled.ends_with(".htm")) {
            self.fail(&at, format!("expected {what}, got {spelled:?}"));
            return None;
        }
        if output != Output::Json {
            self.fail(&at, "needs \"output\": \"json\" (the view receives the tool's structured result)");
        }
        let inside = Sandbox::new(self.dir, false).map_err(|e| e.to_string()).and_then(|s| s.resolve(spelled));
        match inside {
            Ok(file) if file.is_file() => Some(file),
            Ok(file) => {
                self.fail(&at, format!("expected a file, but {} is none", file.display()));
                None
            }
            Err(why) => {
                self.fail(&at, format!("expected {what}: {why}"));
                None
            }
        }
    }

    /// A tool schema: valid, and an object schema (MCP requires `"type": "object"`).
    fn schema(&mut self, schema: &Value, path: &str) {
        if let Err(e) = schema::check_schema(schema) {
            self.fail(path, format!("expected a valid JSON Schema: {e}"));
        } else if schema.get("type") != Some(&json!("object")) {
            self.fail(path, "expected an object schema (\"type\": \"object\")");
        }
    }

    fn annotations(&mut self, value: &Value, path: &str) -> Option<ToolAnnotations> {
        let map = self.object(value, path, ANNOTATION_KEYS)?;
        Some(ToolAnnotations {
            title: self.string(map, path, "title", "a string").map(str::to_owned),
            read_only_hint: self.bool(map, path, "readOnlyHint"),
            destructive_hint: self.bool(map, path, "destructiveHint"),
            idempotent_hint: self.bool(map, path, "idempotentHint"),
            open_world_hint: self.bool(map, path, "openWorldHint"),
        })
    }

    fn prompt(&mut self, value: &Value, path: &str, seen: &mut HashSet<String>, uris: &[String]) -> Option<PromptDef> {
        let map = self.object(value, path, PROMPT_KEYS)?;
        let name = self.name(map, path, seen, "prompt");
        let description = self.string(map, path, "description", "a string").unwrap_or_default().to_owned();
        let title = self.string(map, path, "title", "a string").map(str::to_owned);
        let mut arguments = Vec::new();
        let mut completions = HashMap::new();
        if let Some(list) = map.get("arguments") {
            let at = key(path, "arguments");
            let mut names = HashSet::new();
            for (i, item) in self.array(list, &at).iter().enumerate() {
                let at = index(&at, i);
                let Some(arg) = self.object(item, &at, ARGUMENT_KEYS) else { continue };
                let arg_name = self.name(arg, &at, &mut names, "argument");
                let mut argument = PromptArgument::new(
                    arg_name.clone(),
                    self.string(arg, &at, "description", "a string").unwrap_or_default(),
                    self.bool(arg, &at, "required").unwrap_or(false),
                );
                if argument.description.as_deref() == Some("") {
                    argument.description = None;
                }
                argument.title = self.string(arg, &at, "title", "a string").map(str::to_owned);
                if let Some(values) = arg.get("completions") {
                    let strings: Option<Vec<String>> =
                        values.as_array().and_then(|v| v.iter().map(|s| s.as_str().map(str::to_owned)).collect());
                    match strings {
                        Some(strings) => drop(completions.insert(arg_name, strings)),
                        None => self.fail(&key(&at, "completions"), "expected an array of strings"),
                    }
                }
                arguments.push(argument);
            }
        }
        let known: Vec<String> = arguments.iter().map(|a| a.name.clone()).collect();
        let mut messages = Vec::new();
        let what = "a non-empty array of messages ({\"role\", and one of \"text\", \"file\", \"resource\"})";
        if let Some(list) = self.required(map, path, "messages", what) {
            let at = key(path, "messages");
            let items = self.array(list, &at);
            if items.is_empty() && list.is_array() {
                self.fail(&at, format!("expected {what}"));
            }
            for (i, item) in items.iter().enumerate() {
                messages.extend(self.message(item, &index(&at, i), &known, uris));
            }
        }
        let mut prompt = Prompt::new(name, description, arguments);
        prompt.required_scopes = self.scopes(map, path);
        prompt.title = title;
        Some(PromptDef { prompt, completions, messages })
    }

    fn message(&mut self, value: &Value, path: &str, known: &[String], uris: &[String]) -> Option<(Role, Body)> {
        let map = self.object(value, path, MESSAGE_KEYS)?;
        let role = match self.string(map, path, "role", "\"user\" or \"assistant\"") {
            None | Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some(other) => {
                self.fail(&key(path, "role"), format!("expected \"user\" or \"assistant\", got {other:?}"));
                Role::User
            }
        };
        let bodies: Vec<&str> = ["text", "file", "resource"].into_iter().filter(|k| map.contains_key(*k)).collect();
        if bodies.len() != 1 {
            self.fail(path, "expected exactly one of \"text\", \"file\" (a path relative to the manifest) or \"resource\" (a URI of this manifest's resources)");
            return None;
        }
        let body = bodies.first().copied().unwrap_or("text");
        let text = self.string(map, path, body, "a string")?.to_owned();
        let at = key(path, body);
        match body {
            "text" => {
                self.placeholders_known(&text, &at, known, "prompt argument");
                Some((role, Body::Text(text)))
            }
            "file" => {
                self.placeholders_known(&text, &at, known, "prompt argument");
                if placeholders(&text).is_empty() && !self.dir.join(&text).is_file() {
                    self.fail(&at, format!("expected a file, but {} is none", self.dir.join(&text).display()));
                }
                Some((role, Body::File(text)))
            }
            _ => {
                if !uris.contains(&text) {
                    self.fail(&at, format!("expected the uri of a resource of this manifest, got {text:?}"));
                }
                Some((role, Body::Resource(text)))
            }
        }
    }

    fn resource(&mut self, value: &Value, path: &str, seen: &mut HashSet<String>) -> Option<ResourceDef> {
        let map = self.object(value, path, RESOURCE_KEYS)?;
        let what = "a URI with a scheme, such as note://conventions";
        let uri = self.required(map, path, "uri", what).map(|u| u.as_str().unwrap_or_default().to_owned())?;
        let scheme_ok = uri.split_once(':').is_some_and(|(scheme, _)| {
            !scheme.is_empty() && scheme.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
        });
        if !scheme_ok {
            self.fail(&key(path, "uri"), format!("expected {what}, got {uri:?}"));
        } else if !seen.insert(uri.clone()) {
            self.fail(&key(path, "uri"), format!("duplicate resource uri {uri:?} (uris must be unique)"));
        }
        let source = match (map.get("path"), map.get("text")) {
            (Some(_), None) => {
                let file = self.string(map, path, "path", "a file path relative to the manifest")?;
                let full = self.dir.join(file);
                if !full.is_file() {
                    self.fail(&key(path, "path"), format!("expected a file, but {} is none", full.display()));
                }
                Source::File(full)
            }
            (None, Some(_)) => Source::Text(self.string(map, path, "text", "a string")?.to_owned()),
            _ => {
                self.fail(path, "expected exactly one of \"path\" (a file relative to the manifest) or \"text\"");
                return None;
            }
        };
        let default_name = match &source {
            Source::File(_) => self.string(map, path, "path", "").unwrap_or(&uri).to_owned(),
            Source::Text(_) => uri.clone(),
        };
        let name = self.string(map, path, "name", "a string").map_or(default_name, str::to_owned);
        let mime_type = match (self.string(map, path, "mimeType", "a MIME type such as text/markdown"), &source) {
            (Some(given), _) => given.to_owned(),
            (None, Source::File(file)) => mime::from_path(file.to_str().unwrap_or_default()).to_owned(),
            (None, Source::Text(_)) => "text/plain".to_owned(),
        };
        let mut resource = Resource::new(uri, name).with_mime_type(mime_type);
        resource.title = self.string(map, path, "title", "a string").map(str::to_owned);
        if let Some(description) = self.string(map, path, "description", "a string") {
            resource = resource.with_description(description);
        }
        if let Source::Text(text) = &source {
            resource = resource.with_size(text.len() as u64);
        }
        resource.required_scopes = self.scopes(map, path);
        let cache = self.cache(map.get("cache"), path);
        Some(ResourceDef { resource, source, cache })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(manifest: Value) -> Vec<String> {
        match super::manifest(&manifest, Path::new("/")) {
            Ok(_) => Vec::new(),
            Err(problems) => problems.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn a_valid_manifest_has_no_problems() {
        let ok = json!({
            "instructions": "hi",
            "tools": [{"name": "t", "command": ["echo", "{{x}}"], "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}},
                       "output": "json", "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}, "timeoutMs": 5}],
            "prompts": [{"name": "p", "arguments": [{"name": "a", "required": true, "completions": ["x"]}],
                         "messages": [{"text": "{{a}}"}, {"role": "assistant", "resource": "note://n"}]}],
            "resources": [{"uri": "note://n", "text": "hello"}]
        });
        assert_eq!(problems(ok), Vec::<String>::new());
    }

    #[test]
    fn problems_name_the_json_path_and_what_was_expected() {
        let bad = json!({
            "tool": [],
            "tools": [
                {"name": "bad name", "command": ["echo", "{{nope}}", 3]},
                {"name": "dup", "command": []},
                {"name": "dup", "command": ["x"], "inputSchema": {"type": "strin"}, "timeoutMs": 0, "output": "xml", "comand": 1},
                {"name": "o", "command": ["x"], "outputSchema": {"type": "object"}, "task": "sometimes"},
                {"name": "s", "command": ["x"], "scopes": ["ok:scope", "two words", 7]},
                {"name": "t", "command": ["x"], "scopes": "admin"}
            ],
            "prompts": [{"name": "p", "messages": [{"text": "{{who}}", "file": "x"}, {"text": "{{who}}"}], "scopes": [""]}],
            "resources": [{"uri": "nope", "text": "x"}, {"uri": "a://b"}]
        });
        let found = problems(bad);
        for expected in [
            "tool: unknown key",
            "tools[0].name: expected a name of 1 to 128 characters",
            "tools[0].command[1]: placeholder {{nope}} names no property of inputSchema",
            "tools[0].command[2]: expected a string",
            "tools[1].command: expected a non-empty array",
            "tools[2].name: duplicate tool name \"dup\"",
            "tools[2].inputSchema: expected a valid JSON Schema",
            "tools[2].timeoutMs: expected a whole number from 1",
            "tools[2].output: expected \"text\" or \"json\"",
            "tools[2].comand: unknown key",
            "tools[3].outputSchema: needs \"output\": \"json\"",
            "tools[3].task: expected \"never\", \"optional\" or \"required\", got \"sometimes\"",
            "tools[4].scopes[1]: expected one scope of visible characters",
            "tools[4].scopes[2]: expected one scope of visible characters",
            "tools[5].scopes: expected an array of OAuth scopes",
            "prompts[0].messages[0]: expected exactly one of",
            "prompts[0].messages[1].text: placeholder {{who}} names no prompt argument",
            "prompts[0].scopes[0]: expected one scope of visible characters",
            "resources[0].uri: expected a URI with a scheme",
            "resources[1]: expected exactly one of \"path\"",
        ] {
            assert!(found.iter().any(|p| p.starts_with(expected)), "no {expected:?} in {found:#?}");
        }
        assert_eq!(found.len(), 20, "{found:#?}");
    }
}
