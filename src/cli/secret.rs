//! The secret files the binary reads (`--token-file`, `--state-key-file`): a warning when
//! others may read one, and the bearer token read and checked, each error naming its source.

use std::path::Path;

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
/// [`tinymcp::transport::http::check_token`].
#[cfg(feature = "http")]
pub fn token(file: Option<&str>) -> Result<Option<String>, String> {
    let (text, source) = match file {
        Some(path) => {
            warn_if_exposed(Path::new(path), "token file");
            let text = std::fs::read_to_string(path).map_err(|e| format!("token file {path}: cannot read it: {e}"))?;
            (text, format!("token file {path}"))
        }
        None => match std::env::var("TINYMCP_TOKEN") {
            Ok(text) => (text, "TINYMCP_TOKEN".to_owned()),
            Err(std::env::VarError::NotPresent) => return Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => return Err("TINYMCP_TOKEN: expected UTF-8 text".into()),
        },
    };
    let token = text.trim();
    tinymcp::transport::http::check_token(token).map_err(|why| format!("{source}: {why}"))?;
    Ok(Some(token.to_owned()))
}
