//! The servers one listener serves, each under a path prefix (`/NAME`, or none): the table,
//! the lookup of a request's path, and `/healthz` over all of them. Knows `Server` only as
//! something to hand requests to.

use super::auth::{self, OAuth};
use std::sync::Arc;
use tinymcp::Server;

/// One server of the listener and the path prefix it answers under (`""` or `/NAME`).
pub(super) struct Mount {
    pub(super) prefix: String,
    pub(super) server: Arc<Server>,
    /// Under OAuth, its canonical URL (`OAuth::resource_for`): the audience its tokens name,
    /// the resource its metadata and challenges are about; empty without OAuth.
    pub(super) resource: String,
    /// Under OAuth, the path its metadata is served at (RFC 9728 §3.1); empty without OAuth.
    pub(super) metadata_path: String,
}

/// The table of `servers` by name (an empty name: at the root), in order; never empty. Under
/// `oauth`, each server is a resource of its own.
pub(super) fn table(servers: Vec<(String, Arc<Server>)>, oauth: Option<&OAuth>) -> Result<Vec<Mount>, String> {
    if servers.is_empty() {
        return Err("expected at least one server to serve".into());
    }
    let mut mounts: Vec<Mount> = Vec::with_capacity(servers.len());
    for (name, server) in servers {
        if !name.is_empty() && !is_mount_name(&name) {
            return Err(format!("expected a name of letters, digits, '-', '_' or '.', got {name:?}"));
        }
        if mounts.iter().any(|m| m.prefix.trim_start_matches('/') == name) {
            return Err(format!("the name {name:?} is served twice"));
        }
        let prefix = if name.is_empty() { name } else { format!("/{name}") };
        let resource = oauth.map(|o| o.resource_for(&prefix)).unwrap_or_default();
        let metadata_path = oauth.map(|_| auth::metadata_path(&resource)).unwrap_or_default();
        mounts.push(Mount { prefix, server, resource, metadata_path });
    }
    Ok(mounts)
}

/// The server a path goes to, and the path within it: a prefix is matched at a `/`.
pub(super) fn find<'m, 'p>(mounts: &'m [Mount], path: &'p str) -> Option<(&'m Mount, &'p str)> {
    mounts.iter().find_map(|m| {
        let rest = path.strip_prefix(m.prefix.as_str())?;
        rest.starts_with('/').then_some((m, rest))
    })
}

/// The server whose protected resource metadata `path` asks for: the path derived from its
/// resource, or the bare well-known path when the listener serves one server only.
pub(super) fn metadata_at<'m>(mounts: &'m [Mount], path: &str) -> Option<&'m Mount> {
    match mounts {
        [only] if auth::is_bare_metadata_path(path) => Some(only),
        _ => mounts.iter().find(|m| m.metadata_path == path),
    }
}

/// `/healthz`: its status and body; with named servers, each on a line of its own when
/// `named` (the request passed the `Host` and `Origin` checks), else the bare status: a page
/// that rebound a name to this server learns no server's name.
pub(super) fn health(mounts: &[Mount], named: bool) -> (u16, String) {
    let saturated = mounts.iter().filter(|m| m.server.saturated()).count();
    // One busy server does not take the others out of a load balancer.
    let status = if saturated == mounts.len() { 503 } else { 200 };
    if let [only] = mounts {
        if only.prefix.is_empty() {
            let body = if status == 200 { "ok\n" } else { "saturated: every handler thread is busy\n" };
            return (status, body.to_owned());
        }
    }
    if !named {
        return (status, if status == 200 { "ok\n" } else { "saturated\n" }.to_owned());
    }
    let mut body = String::new();
    for mount in mounts {
        let state = if mount.server.saturated() { "saturated" } else { "ok" };
        body.push_str(&format!("{}: {state}\n", mount.prefix.trim_start_matches('/')));
    }
    (status, body)
}

/// Whether `name` may be a path prefix: one segment of letters, digits, `-`, `_` and `.`,
/// not `.` or `..`.
pub fn is_mount_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::is_mount_name;

    #[test]
    fn a_mount_name_is_one_plain_path_segment() {
        for good in ["a", "weather", "my-server_2", "v1.2"] {
            assert!(is_mount_name(good), "{good}");
        }
        for bad in ["", ".", "..", "a/b", "a b", "%2e", "a?b", "é"] {
            assert!(!is_mount_name(bad), "{bad}");
        }
    }
}
