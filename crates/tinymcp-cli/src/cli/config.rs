//! `tinymcp config` and `tinymcp install`: the server's options checked as for a run, its
//! paths made absolute, and the entry a host's configuration gets.

use crate::cli;
use crate::cli::flags::Flags;
use crate::cli::hosts::{self, Host, Launcher};
use crate::cli::options::{listen_addr, parse_args, Parsed};
use std::path::{Path, PathBuf};

/// What `tinymcp config` prints: the host, the server's options, and the URL the host connects
/// to (from `--url`, or `--http`), or none for a host that starts the server over stdio.
pub struct Config {
    pub host: Host,
    pub flags: Vec<String>,
    pub url: Option<String>,
    /// `--launcher`: what the entry runs; `None` for how this binary was started (`started_by`).
    pub launcher: Option<Launcher>,
    /// `install` rather than `config`: where, and whether to write.
    pub install: Option<Install>,
}

pub struct Install {
    pub scope: cli::install::Scope,
    pub config_file: Option<PathBuf>,
    pub dry_run: bool,
}

/// `tinymcp config`'s usage (`--help`).
pub const CONFIG_USAGE: &str = "    tinymcp config --host HOST [--url URL] [--launcher npx|uvx|binary] [OPTIONS]
        print the configuration that makes that host run this binary with these options
        (relative paths made absolute; the current directory as --root when none is given);
        with --http ADDR, or --url URL of a server running elsewhere, the host connects to the URL.
        --launcher: what the host runs: `npx -y tinymcp`, `uvx tinymcp` or this binary's path
        (by default the way this binary was started: npx or uvx when it came from their package).
        HOST: claude-desktop (or claude), claude-code, vscode, cursor, windsurf, zed, codex, gemini";

/// `tinymcp install`'s usage (`--help`).
pub const INSTALL_USAGE: &str =
    "    tinymcp install --host HOST [--scope user|project] [--config-file FILE] [--dry-run] [--launcher L] [OPTIONS]
        write that configuration into the host's own file (found from $HOME, or FILE): merged
        with the servers already there, the previous file kept as FILE.bak, nothing written
        when it is there already; --dry-run prints the file it would write";

/// `tinymcp config --host HOST [OPTIONS]`: the options are checked as if to run, and the paths
/// in them made absolute, since a host starts the server in a folder of its choosing.
pub fn parse_config(args: impl IntoIterator<Item = String>, installing: bool) -> Result<Parsed, String> {
    let mut args = Flags::new(args);
    let mut host = None;
    let mut flags = Vec::new();
    let mut url = None;
    let mut launcher = None;
    let mut install = Install { scope: cli::install::Scope::User, config_file: None, dry_run: false };
    while let Some(arg) = args.next()? {
        match arg.as_str() {
            "--scope" if installing => {
                install.scope = match args.value("--scope")?.as_str() {
                    "user" => cli::install::Scope::User,
                    "project" => cli::install::Scope::Project,
                    other => return Err(format!("--scope: expected user or project, got {other:?}")),
                }
            }
            "--config-file" if installing => install.config_file = Some(PathBuf::from(args.value("--config-file")?)),
            "--dry-run" if installing => install.dry_run = true,
            "--url" => {
                let value = args.value("--url")?;
                if !value.starts_with("http://") && !value.starts_with("https://") {
                    return Err(format!("--url: expected an http:// or https:// URL, got {value:?}"));
                }
                url = Some(value);
            }
            "--launcher" => {
                let name = args.value_named("--launcher", &format!("one of: {}", hosts::LAUNCHER_NAMES))?;
                let found = Launcher::from_name(&name)
                    .ok_or_else(|| format!("--launcher: expected one of {}, got {name:?}", hosts::LAUNCHER_NAMES))?;
                launcher = Some(found);
            }
            "--host" => {
                let name = args.value_named("--host", &format!("one of: {}", hosts::HOST_NAMES))?;
                let found = Host::from_name(&name)
                    .ok_or_else(|| format!("--host: expected one of {}, got {name:?}", hosts::HOST_NAMES))?;
                host = Some(found);
            }
            flag if cli::install::PATH_FLAGS.contains(&flag) => {
                let flag = flag.to_owned();
                let value = args.value_named(&flag, "a path")?;
                let absolute = crate::platform::canonicalize(value.as_ref())
                    .map_err(|e| format!("{flag} {value}: {e}"))?
                    .display()
                    .to_string();
                flags.push(flag);
                flags.push(absolute);
            }
            _ => args.pass(arg, &mut flags)?,
        }
    }
    let host = host.ok_or_else(|| format!("config needs --host (one of: {})", hosts::HOST_NAMES))?;
    match parse_args(flags.clone())? {
        Parsed::Run(run) => {
            let nothing = run.roots.is_empty() && run.write_roots.is_empty() && run.manifest.is_none();
            if nothing && !run.everything && run.skills.is_none() {
                let here = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
                flags.extend(["--root".to_owned(), here.display().to_string()]);
            }
            // A server started with --http does not answer on stdin: the host connects to its URL.
            let url = url.or_else(|| run.http.as_deref().map(|addr| hosts::url_of_listen_addr(&listen_addr(addr))));
            Ok(Parsed::Config(Config { host, flags, url, launcher, install: installing.then_some(install) }))
        }
        _ => Err("config: give the options the server should run with (not --check or --version)".into()),
    }
}

/// How this binary was started, for `--launcher`'s default. The npm package's command says so in
/// `TINYMCP_LAUNCHER` (`variable`); a wheel's binary lies in the `bin` (Windows: `Scripts`)
/// folder of a Python environment, whose `pyvenv.cfg` is beside that folder (uvx, pipx, a
/// virtualenv); anything else is this binary, named by its path.
pub fn started_by(variable: Option<&str>, exe: &Path) -> Launcher {
    match variable.and_then(Launcher::from_name) {
        Some(launcher) => launcher,
        None if exe.parent().and_then(Path::parent).is_some_and(|env| env.join("pyvenv.cfg").is_file()) => {
            Launcher::Uvx
        }
        None => Launcher::Binary,
    }
}

/// `tinymcp install`: the entry merged into the host's file. Answers what to print: with
/// `--dry-run` the diff it would make (stdout), and what was done (stderr). A project's file
/// gets the portable launch (`cli::install::portable`).
pub fn install_entry(
    host: Host,
    exe: &str,
    launcher: Launcher,
    flags: &[String],
    url: Option<&str>,
    install: &Install,
) -> Result<(Option<String>, String), String> {
    use cli::install::{Change, Scope};
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")).map(PathBuf::from);
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let mut notes = cli::install::wide_roots(flags, home.as_deref());
    let (command, args) = match install.scope {
        Scope::Project => {
            let project = crate::platform::canonicalize(&cwd).unwrap_or(cwd.clone());
            let (portable, said) = cli::install::portable(host, flags, &project);
            if launcher == Launcher::Binary {
                // The binary by name, from PATH: its path here means nothing on another machine.
                notes.push(cli::install::on_path_note(exe));
            }
            notes.extend(said);
            match launcher {
                Launcher::Binary => ("tinymcp".to_owned(), portable),
                _ => launcher.command(exe, &portable),
            }
        }
        Scope::User => launcher.command(exe, flags),
    };
    let launch = match url {
        Some(url) => hosts::Launch::Url(url),
        None => hosts::Launch::Stdio { command: &command, args: &args },
    };
    let entry = hosts::entry(host, launch)?;
    let path = match &install.config_file {
        Some(path) => path.clone(),
        None => {
            let home = home.ok_or("cannot find the home folder: HOME is not set (give --config-file FILE)")?;
            cli::install::config_path(host, install.scope, &cli::install::Places::here(&home, &cwd))?
        }
    };
    let outcome = cli::install::install(host, &path, "tinymcp", &entry, install.dry_run)?;
    let shown = outcome.path.display();
    let what = match outcome.change {
        Change::Added => "adds the server \"tinymcp\" to",
        Change::Replaced => "replaces the server \"tinymcp\" in",
        Change::Unchanged => "finds the server \"tinymcp\" as it should be already in",
    };
    let mut message: String = notes.iter().map(|note| format!("tinymcp: {note}\n")).collect();
    if install.dry_run {
        let diff = cli::install::diff(&outcome.path, &outcome.old, &outcome.text);
        message.push_str(&format!("tinymcp: --dry-run: this {what} {shown}; nothing written"));
        return Ok((Some(diff), message));
    }
    match (outcome.change, &outcome.backup) {
        (Change::Unchanged, _) => {
            message.push_str(&format!(
                "tinymcp: {host}: nothing to do: the server \"tinymcp\" is already as it should be in {shown}"
            ));
            return Ok((None, message));
        }
        (_, Some(backup)) => message.push_str(&format!(
            "tinymcp: {host}: {shown} changed: {what} it (the previous file is {})",
            backup.display()
        )),
        (_, None) => message.push_str(&format!("tinymcp: {host}: {shown} written: {what} it (a new file)")),
    }
    Ok((None, format!("{message}\ntinymcp: restart {host} (or reload its MCP servers) to use it")))
}
