//! The one flag parser of the binary and its commands. `lexopt` splits the arguments the way
//! GNU tools do (`--flag value` and `--flag=value`, `-V`, `--` ends the flags); this wraps it
//! so each command matches its flags by name, in one `match`, and every error names the flag
//! and says what it expects.

use std::ffi::OsString;

/// One argument: a flag (`--name` or `-c`, as written) or a word (a value, a command, a URL).
#[derive(Debug, PartialEq, Eq)]
pub enum Arg {
    Flag(String),
    Word(String),
}

impl Arg {
    /// The argument as the user wrote it (a flag with its dashes).
    pub fn as_str(&self) -> &str {
        match self {
            Arg::Flag(text) | Arg::Word(text) => text,
        }
    }
}

/// A command's arguments, read one at a time.
pub struct Flags {
    parser: lexopt::Parser,
}

impl Flags {
    /// The arguments after the command's name.
    pub fn new<I>(args: I) -> Flags
    where
        I: IntoIterator,
        I::Item: Into<OsString>,
    {
        Flags { parser: lexopt::Parser::from_args(args) }
    }

    /// The next flag or word; `None` at the end. A word after `--` is a word even when it
    /// starts with a dash.
    pub fn next(&mut self) -> Result<Option<Arg>, String> {
        let arg = match self.parser.next().map_err(|e| e.to_string())? {
            None => return Ok(None),
            Some(lexopt::Arg::Long(name)) => Arg::Flag(format!("--{name}")),
            Some(lexopt::Arg::Short(c)) => Arg::Flag(format!("-{c}")),
            Some(lexopt::Arg::Value(word)) => Arg::Word(utf8("an argument", word)?),
        };
        Ok(Some(arg))
    }

    /// The value of `flag` (`--flag value` or `--flag=value`). A value that looks like a long
    /// flag is taken for a forgotten value, so `--http --root x` says `--http needs a value`.
    pub fn value(&mut self, flag: &str) -> Result<String, String> {
        self.value_named(flag, "a value")
    }

    /// The value of `flag`, said to be `what` when it is missing ("a folder", "a file").
    pub fn value_named(&mut self, flag: &str, what: &str) -> Result<String, String> {
        let value = self.parser.value().map_err(|_| format!("{flag} needs {what}"))?;
        let value = utf8(flag, value)?;
        if value.starts_with("--") {
            return Err(format!("{flag} needs {what}, got the flag {value}"));
        }
        Ok(value)
    }

    /// The value of a flag that may go without one: attached (`--flag=value`), or the next
    /// argument when that is no flag (`--flag value`); `None` when there is none.
    pub fn optional_value(&mut self, flag: &str) -> Result<Option<String>, String> {
        if let Some(value) = self.parser.optional_value() {
            return utf8(flag, value).map(Some);
        }
        let mut raw = self.parser.raw_args().map_err(|e| e.to_string())?;
        match raw.peek().and_then(|arg| arg.to_str()) {
            Some(next) if !next.starts_with('-') => {
                let value = next.to_owned();
                raw.next();
                Ok(Some(value))
            }
            _ => Ok(None),
        }
    }

    /// The value of `flag`, a whole number above zero.
    pub fn number(&mut self, flag: &str) -> Result<usize, String> {
        let value = self.value_named(flag, "a number")?;
        match value.parse() {
            Ok(n) if n > 0 => Ok(n),
            _ => Err(format!("{flag}: expected a positive whole number, got {value:?}")),
        }
    }

    /// Passes `arg` on as text (for another command's parser), with its value when it was
    /// written `--flag=value`.
    pub fn pass(&mut self, arg: Arg, into: &mut Vec<String>) -> Result<(), String> {
        let flag = matches!(arg, Arg::Flag(_));
        let text = match arg {
            Arg::Flag(text) | Arg::Word(text) => text,
        };
        let attached = if flag { self.parser.optional_value() } else { None };
        into.push(text.clone());
        if let Some(value) = attached {
            into.push(utf8(&text, value)?);
        }
        Ok(())
    }

    /// When the next argument is `--`: everything after it, as it is (a child's command line,
    /// `tinymcp proxy`'s, which an HTTP-less build lacks).
    #[cfg(feature = "http")]
    pub fn after_double_dash(&mut self) -> Result<Option<Vec<String>>, String> {
        let mut raw = self.parser.raw_args().map_err(|e| e.to_string())?;
        if raw.peek().and_then(|arg| arg.to_str()) != Some("--") {
            return Ok(None);
        }
        raw.next();
        raw.map(|arg| utf8("the command after --", arg)).collect::<Result<_, _>>().map(Some)
    }

    /// Every argument left, as it is.
    pub fn rest(&mut self) -> Result<Vec<String>, String> {
        let raw = self.parser.raw_args().map_err(|e| e.to_string())?;
        raw.map(|arg| utf8("an argument", arg)).collect()
    }
}

/// Arguments are text here (paths included): one that is not UTF-8 is refused, by name.
fn utf8(what: &str, value: OsString) -> Result<String, String> {
    value.into_string().map_err(|value| format!("{what}: {value:?} is not valid UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::{Arg, Flags};

    fn flags(args: &[&str]) -> Flags {
        Flags::new(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn values_come_separate_or_attached_and_a_flag_is_no_value() {
        let mut f = flags(&["--http", "127.0.0.1:0", "--root=/tmp", "--page-size", "--root"]);
        assert_eq!(f.next().unwrap(), Some(Arg::Flag("--http".into())));
        assert_eq!(f.value("--http").unwrap(), "127.0.0.1:0");
        assert_eq!(f.next().unwrap(), Some(Arg::Flag("--root".into())));
        assert_eq!(f.value("--root").unwrap(), "/tmp");
        assert_eq!(f.next().unwrap(), Some(Arg::Flag("--page-size".into())));
        let err = f.number("--page-size").unwrap_err();
        assert!(err.contains("--page-size needs a number"), "{err}");
    }

    #[test]
    fn a_value_not_taken_is_an_error_and_passing_keeps_it() {
        let mut f = flags(&["--version=2"]);
        f.next().unwrap();
        assert!(f.next().unwrap_err().contains("--version"));
        let mut f = flags(&["--http=127.0.0.1:0", "x"]);
        let mut out = Vec::new();
        let arg = f.next().unwrap().unwrap();
        f.pass(arg, &mut out).unwrap();
        let arg = f.next().unwrap().unwrap();
        f.pass(arg, &mut out).unwrap();
        assert_eq!(out, ["--http", "127.0.0.1:0", "x"]);
    }

    #[test]
    fn an_optional_value_is_attached_or_the_next_word() {
        let mut f = flags(&["--metrics", "--http", "1", "--metrics", "9464", "--metrics=127.0.0.1:1", "--metrics"]);
        f.next().unwrap();
        assert_eq!(f.optional_value("--metrics").unwrap(), None);
        assert_eq!(f.next().unwrap(), Some(Arg::Flag("--http".into())));
        f.value("--http").unwrap();
        f.next().unwrap();
        assert_eq!(f.optional_value("--metrics").unwrap().as_deref(), Some("9464"));
        f.next().unwrap();
        assert_eq!(f.optional_value("--metrics").unwrap().as_deref(), Some("127.0.0.1:1"));
        f.next().unwrap();
        assert_eq!(f.optional_value("--metrics").unwrap(), None);
        assert_eq!(f.next().unwrap(), None);
    }

    #[cfg(feature = "http")]
    #[test]
    fn a_double_dash_hands_over_the_rest_untouched() {
        let mut f = flags(&["--shared", "--", "server", "--help"]);
        assert_eq!(f.after_double_dash().unwrap(), None);
        assert_eq!(f.next().unwrap(), Some(Arg::Flag("--shared".into())));
        assert_eq!(f.after_double_dash().unwrap(), Some(vec!["server".to_owned(), "--help".to_owned()]));
        assert_eq!(f.next().unwrap(), None);
    }
}
