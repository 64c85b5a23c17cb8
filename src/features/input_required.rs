//! 2026-07-28 input-required results (multi round-trip requests, SEP-2322): a retry's
//! `inputResponses` and sealed `requestState` become the request's `Inputs`, and a round that
//! misses answers becomes an `InputRequiredResult` carrying a freshly sealed state. Uses the
//! request context and `util::seal`; never names a transport.

use crate::server::context::{Inputs, RequestCx};
use crate::util::seal::{Origin, StateKey};
use crate::wire::error::{RpcError, INVALID_PARAMS, MISSING_CLIENT_CAPABILITY};
use crate::wire::frame::Reply;
use crate::wire::params::Params;
use crate::wire::protocol::Spec;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::sync::PoisonError;
use std::time::SystemTime;

/// The members of a request's params its state is bound to, borrowed from the params' text.
#[derive(Deserialize)]
struct Round<'a> {
    #[serde(borrow, default)]
    name: Option<&'a RawValue>,
    #[serde(borrow, default)]
    uri: Option<&'a RawValue>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

impl Round<'_> {
    /// The request a state is bound to: the method, the tool or prompt name (the URI for
    /// `resources/read`, the member `Mcp-Name` mirrors) and the arguments (absent or `null`
    /// as `{}`), read as a value so that a retry spelling them differently still matches.
    fn origin<'s>(&self, spec: &'s Spec, name: &'s mut String, arguments: &'s mut Value) -> Origin<'s> {
        let named = match spec.mcp_name {
            Some("uri") => self.uri,
            Some(_) => self.name,
            None => None,
        };
        *name = named.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or_default();
        *arguments = self.arguments.and_then(|raw| serde_json::from_str(raw.get()).ok()).unwrap_or(Value::Null);
        if arguments.is_null() {
            *arguments = json!({});
        }
        Origin { method: spec.name, name, arguments }
    }
}

/// Reads a request's `inputResponses` and `requestState` into its `Inputs`. The answers are
/// those the sealed state kept plus the responses to what it was waiting for; without a state,
/// every response the client sent (a client may answer without ever having been asked twice).
/// A bad or foreign state is `-32602` with the reason, never a result.
/// `now`: the request's time, read only when a state is opened (or, in `finish`, sealed).
pub(crate) fn begin(
    key: Option<&StateKey>,
    spec: &Spec,
    params: &Params,
    now: impl Fn() -> SystemTime,
) -> Result<Inputs, RpcError> {
    let method = spec.name;
    let reserved = params.reserved();
    let value = |raw: &str| serde_json::from_str(raw).unwrap_or(Value::Null);
    let responses = match reserved.input_responses.map(value) {
        None => Map::new(),
        Some(Value::Object(responses)) => responses,
        Some(_) => return Err(RpcError::invalid_params("inputResponses must be an object of answers by key")),
    };
    let answers = match reserved.request_state.map(value) {
        None => responses,
        Some(Value::String(token)) => {
            let key = key.ok_or_else(|| RpcError::invalid_params("requestState: this server cannot open states"))?;
            let round: Round = params.parse()?;
            let (mut name, mut arguments) = (String::new(), Value::Null);
            let origin = round.origin(spec, &mut name, &mut arguments);
            let state = key.open_json(&token, &origin, now()).map_err(|e| {
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
/// (a malformed answer, a capability not declared) stays an error.
pub(crate) fn finish(
    cx: &RequestCx,
    key: Option<&StateKey>,
    spec: &Spec,
    params: &Params,
    outcome: Result<Reply, RpcError>,
    now: impl Fn() -> SystemTime,
) -> Result<Reply, RpcError> {
    let method = spec.name;
    let Some(inputs) = &cx.inputs else { return outcome };
    let pending = {
        let mut pending = inputs.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if pending.is_empty() {
            return outcome;
        }
        std::mem::take(&mut *pending)
    };
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
    let round: Round = params.parse()?;
    let (mut name, mut arguments) = (String::new(), Value::Null);
    let token =
        key.seal_json(&state, &round.origin(spec, &mut name, &mut arguments), now() + cx.state_ttl()).map_err(|e| {
            log::warn!("{method}: {e}");
            RpcError::invalid_params(e.to_string())
        })?;
    Ok(Reply::Value(json!({ "resultType": "input_required", "inputRequests": pending, "requestState": token })))
}
