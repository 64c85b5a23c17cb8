//! The command line itself: every subcommand's `--help`, `tinymcp help [COMMAND]`, the help
//! kept in step with docs/options.md, argument errors that say what to do, and the secrets
//! `proxy --pass-env` refuses.

use crate::support::run_binary;

// Issue 33 item 9: the OAuth client secret guards the issuer's introspection endpoint: a child
// that could read it could call it as this server; refused like the bearer token's variable.
#[test]
fn proxy_refuses_to_pass_any_secret_variable_of_the_binary() {
    for variable in ["TINYMCP_TOKEN", "TINYMCP_OAUTH_CLIENT_SECRET"] {
        let out = run_binary(&["proxy", "--http", "127.0.0.1:99999", "--pass-env", variable, "--", "true"]);
        assert_eq!(out.status.code(), Some(1), "{variable}: {out:?}");
        let why = String::from_utf8_lossy(&out.stderr);
        assert!(why.contains(variable) && why.contains("never passed"), "{variable}: {why}");
    }
}
