//! 2026-07-28 input-required results (multi round-trip requests, SEP-2322): a retry's
//! `inputResponses` and sealed `requestState` become the request's `Inputs`, and a round that
//! misses answers becomes an `InputRequiredResult` carrying a freshly sealed state. Uses the
//! request context and `util::seal`; never names a transport.

use crate::server::context::{Inputs, RequestCx};
use crate::util::seal::{Origin, StateKey};
use crate::wire::frame::Reply;
use crate::wire::method::Spec;
use crate::wire::rpc::{RpcError, INVALID_PARAMS, MISSING_CLIENT_CAPABILITY};
use serde_json::{json, Map, Value};
use std::sync::PoisonError;
use std::time::SystemTime;

/// The request a state is bound to: the method, the tool or prompt name (the URI for
/// `resources/read`) and the arguments (absent or `null` as `{}`).
fn origin<'a>(method: &'a str, name: &'a str, arguments: Option<&'a Value>, no_arguments: &'a Value) -> Origin<'a> {
    let arguments = match arguments {
        None | Some(Value::Null) => no_arguments,
        Some(arguments) => arguments,
    };
    Origin { method, name, arguments }
}

/// The params member that names what a request is about (the one `Mcp-Name` mirrors).
fn name_of<'a>(spec: &Spec, params: &'a Value) -> &'a str {
    spec.mcp_name.and_then(|field| params.get(field)).and_then(Value::as_str).unwrap_or("")
}

/// The parts of a request's params its state is bound to, copied before the params move into
/// the handler (every 2026-07-28 call pays for it, so no map is built around them).
pub(crate) struct Kept {
    name: String,
    arguments: Option<Value>,
}

/// What of `params` a state would be bound to (`name` or `uri`, and `arguments`).
pub(crate) fn origin_of(spec: &Spec, params: &Value) -> Kept {
    Kept { name: name_of(spec, params).to_owned(), arguments: params.get("arguments").cloned() }
}

/// Reads a request's `inputResponses` and `requestState` into its `Inputs`. The answers are
/// those the sealed state kept plus the responses to what it was waiting for; without a state,
/// every response the client sent (a client may answer without ever having been asked twice).
/// A bad or foreign state is `-32602` with the reason, never a result.
pub(crate) fn begin(key: Option<&StateKey>, spec: &Spec, params: &Value, now: SystemTime) -> Result<Inputs, RpcError> {
    let method = spec.name;
    let responses = match params.get("inputResponses") {
        None => Map::new(),
        Some(Value::Object(responses)) => responses.clone(),
        Some(_) => return Err(RpcError::invalid_params("inputResponses must be an object of answers by key")),
    };
    let answers = match params.get("requestState") {
        None => responses,
        Some(Value::String(token)) => {
            let key = key.ok_or_else(|| RpcError::invalid_params("requestState: this server cannot open states"))?;
            let empty = json!({});
            let origin = origin(method, name_of(spec, params), params.get("arguments"), &empty);
            let state = key.open_json(token, &origin, now).map_err(|e| {
                log::warn!("{method}: {e}");
                RpcError::invalid_params(e.to_string())
            })?;
            let mut answers = state.get("answers").and_then(Value::as_object).cloned().unwrap_or_default();
            let waiting = state.get("pending").and_then(Value::as_object).cloned().unwrap_or_default();
            for (k, answer) in responses {
                if waiting.contains_key(&k) {
                    answers.insert(k, answer);
                }
            }
            answers
        }
        Some(_) => return Err(RpcError::invalid_params("requestState must be the string the server sent")),
    };
    Ok(Inputs { answers, ..Inputs::default() })
}

/// After the handler: if it asked for answers the client has not given, the request is answered
/// with every such request and a sealed state, whatever the handler returned (the error that
/// stopped it, or a result it made of that error). A protocol error that is the client's fault
/// (a malformed answer, a capability not declared) stays an error. `kept` is what
/// [`origin_of`] kept of the params.
pub(crate) fn finish(
    cx: &RequestCx,
    key: Option<&StateKey>,
    method: &str,
    kept: &Kept,
    outcome: Result<Reply, RpcError>,
    now: SystemTime,
) -> Result<Reply, RpcError> {
    let Some(inputs) = &cx.inputs else { return outcome };
    let pending = std::mem::take(&mut *inputs.pending.lock().unwrap_or_else(PoisonError::into_inner));
    if pending.is_empty() {
        return outcome;
    }
    if let Err(e) = &outcome {
        if e.code == INVALID_PARAMS || e.code == MISSING_CLIENT_CAPABILITY {
            return outcome;
        }
    }
    let Some(key) = key else {
        log::error!("{method}: no state key (the OS gave no randomness); input-required result refused");
        return Err(RpcError::internal());
    };
    let state = json!({ "answers": inputs.answers, "pending": pending });
    let empty = json!({});
    let token = key
        .seal_json(&state, &origin(method, &kept.name, kept.arguments.as_ref(), &empty), now + cx.state_ttl())
        .map_err(|e| {
            log::warn!("{method}: {e}");
            RpcError::invalid_params(e.to_string())
        })?;
    Ok(Reply::Value(json!({ "resultType": "input_required", "inputRequests": pending, "requestState": token })))
}
