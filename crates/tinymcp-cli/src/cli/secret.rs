//! The secrets the binary reads (`--token-file`, `--state-key-file`, and the variables that may
//! hold them): a warning when others may read a file, the bearer token read and checked, each
//! error naming its source, and the variables no child is given.

use std::path::Path;

/// The variable the bearer token may come from instead of `--token-file`.
#[cfg(feature = "http")]
pub const TOKEN_VARIABLE: &str = "TINYMCP_TOKEN";

/// The variable the OAuth introspection client secret may come from instead of
/// `--oauth-client-secret-file`.
#[cfg(feature = "http")]
pub const CLIENT_SECRET_VARIABLE: &str = "TINYMCP_OAUTH_CLIENT_SECRET";

/// Every variable holding a secret of the binary's own, with what it is. Such a secret guards
/// this server (or speaks for it to the issuer), so no child process gets it.
#[cfg(feature = "http")]
const SECRET_VARIABLES: [(&str, &str); 2] =
    [(TOKEN_VARIABLE, "the bearer token"), (CLIENT_SECRET_VARIABLE, "the OAuth client secret")];

/// `Err` naming the secret when `name` is one of the binary's secret variables
/// (`proxy --pass-env`).
#[cfg(feature = "http")]
pub fn refuse_secret_variable(name: &str) -> Result<(), String> {
    match SECRET_VARIABLES.iter().find(|(variable, _)| *variable == name) {
        Some((variable, what)) => {
            Err(format!("--pass-env {variable}: {what} is this server's own secret and is never passed to the child"))
        }
        None => Ok(()),
    }
}

/// Warns when `path` is readable or writable by its group or by others, naming the fix.
#[cfg(unix)]
pub fn warn_if_exposed(path: &Path, what: &str) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::metadata(path) {
        let mode = meta.permissions().mode();
        if mode & 0o077 != 0 {
            log::warn!(
                "{what} {} is open to its group or to others (mode {:03o}): run `chmod 600 {}`",
                path.display(),
                mode & 0o777,
                path.display()
            );
        }
    }
}

#[cfg(not(unix))]
pub fn warn_if_exposed(_: &Path, _: &str) {}

/// The bearer token: from `file` when given, else from `TINYMCP_TOKEN`, else none. Surrounding
/// whitespace (the newline `echo` writes) is not part of it; what is left must pass
/// [`tinymcp_http::check_token`].
#[cfg(feature = "http")]
pub fn token(file: Option<&str>) -> Result<Option<String>, String> {
    let (text, source) = match file {
        Some(path) => {
            warn_if_exposed(Path::new(path), "token file");
            let text = std::fs::read_to_string(path).map_err(|e| format!("token file {path}: cannot read it: {e}"))?;
            (text, format!("token file {path}"))
        }
        None => match std::env::var(TOKEN_VARIABLE) {
            Ok(text) => (text, TOKEN_VARIABLE.to_owned()),
            Err(std::env::VarError::NotPresent) => return Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => return Err(format!("{TOKEN_VARIABLE}: expected UTF-8 text")),
        },
    };
    let token = text.trim();
    tinymcp_http::check_token(token).map_err(|why| format!("{source}: {why}"))?;
    Ok(Some(token.to_owned()))
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::refuse_secret_variable;

    #[test]
    fn every_secret_variable_is_refused_and_others_pass() {
        for secret in ["TINYMCP_TOKEN", "TINYMCP_OAUTH_CLIENT_SECRET"] {
            let why = refuse_secret_variable(secret).unwrap_err();
            assert!(why.contains(secret) && why.contains("never passed"), "{why}");
        }
        for other in ["PATH", "WEATHER_KEY", "tinymcp_token"] {
            assert_eq!(refuse_secret_variable(other), Ok(()));
        }
    }
}
