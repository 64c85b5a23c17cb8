//! Writes inside a served folder (`--write`): files replaced atomically, folders created,
//! entries renamed, each through a held descriptor of a folder the sandbox checked, so a symbolic
//! link swapped in on the way is never followed out of the root. Pure std (no `unsafe`).
//!
//! Why it is race-free: a folder is opened once and its real path (what the kernel names the
//! descriptor, `/proc/self/fd/N`) checked to be under the root; every name in it is then reached
//! as `/proc/self/fd/N/name`, which the kernel resolves to the folder held, not to whatever the
//! path names now (the `openat` of std). A new file is created with `O_EXCL`, which never
//! follows a symbolic link at the last component, and its own descriptor is checked again before
//! a byte is written; a rename within a held folder replaces a link swapped in at the last
//! component, never follows it. What remains: a folder held may be moved out of the root by
//! someone who can write both, after the check; the folder is checked again after the change,
//! and the change undone when it left. Without `/proc` (not Linux) names are reached by their
//! canonical path, and the checks of the created file (on Windows, the final name of its handle)
//! and of the folder afterwards are the guard; a folder's identity for the holds is its volume
//! serial and file index there (`platform::file_identity`).

use super::sandbox::{self, real_path, Sandbox};
use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

/// Counts temporary files, so two writes at once never pick the same name.
static TEMPORARY: AtomicU64 = AtomicU64::new(0);

/// The most bytes of the name kept in a temporary name: with the suffix it stays well under
/// the 255 bytes a name may have (`NAME_MAX`), whatever the name's length.
const TEMPORARY_NAME_PART: usize = 64;

/// The set-user-ID and set-group-ID bits: never carried to a file the server's user made.
const SET_ID_BITS: u32 = 0o6000;

/// The files held for a write (the folder's device and inode, and the name), with a condition
/// to wait on: tool calls run in parallel, and a read-modify-write of one file must not
/// interleave with another write of it (one would silently undo the other). Process-wide
/// because every served folder of the process may reach the same file (the binary's, not the
/// library's, state); it holds only the writes under way.
static HELD: (Mutex<Vec<HeldKey>>, Condvar) = (Mutex::new(Vec::new()), Condvar::new());

/// A file held: its folder's device and inode, and its name.
type HeldKey = (u64, u64, String);

/// Files held for writing until dropped (the first is the one written): other writes of them
/// wait meanwhile.
pub(crate) struct Held {
    keys: Vec<HeldKey>,
}

impl Held {
    /// Holds every one of `keys` at once, once none is held by another write: taken together
    /// under one lock, so two writes that each need two files never wait for each other.
    fn take(keys: Vec<HeldKey>) -> Held {
        let (held, freed) = &HELD;
        let mut busy = held.lock().unwrap_or_else(PoisonError::into_inner);
        while keys.iter().any(|k| busy.contains(k)) {
            busy = freed.wait(busy).unwrap_or_else(PoisonError::into_inner);
        }
        busy.extend(keys.iter().cloned());
        Held { keys }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let (held, freed) = &HELD;
        held.lock().unwrap_or_else(PoisonError::into_inner).retain(|k| !self.keys.contains(k));
        freed.notify_all();
    }
}

/// A folder under a root, open and checked; names in it are reached through the descriptor.
pub(crate) struct Folder<'s> {
    sandbox: &'s Sandbox,
    held: File,
    /// `/proc/self/fd/N` on Linux, else the canonical path.
    base: PathBuf,
}

/// What is at a name in a folder, links not followed.
pub(crate) enum Entry {
    /// Nothing.
    Missing,
    /// A regular file.
    File(Metadata),
    /// A folder.
    Dir,
    /// A symbolic link.
    Link,
    /// A FIFO, socket or device.
    Other,
}

impl<'s> Folder<'s> {
    /// Opens the folder at `dir` (canonical, as the sandbox resolved it) and checks the folder
    /// opened is under the root and shown.
    pub(crate) fn open(sandbox: &'s Sandbox, dir: &Path) -> Result<Folder<'s>, String> {
        let (held, base) = sandbox.open_dir(dir)?;
        Ok(Folder { sandbox, held, base })
    }

    fn at(&self, name: &str) -> PathBuf {
        self.base.join(name)
    }

    /// What is at `name` now, links not followed.
    pub(crate) fn entry(&self, name: &str) -> Result<Entry, String> {
        match fs::symlink_metadata(self.at(name)) {
            Ok(meta) if meta.is_file() => Ok(Entry::File(meta)),
            Ok(meta) if meta.is_dir() => Ok(Entry::Dir),
            Ok(meta) if meta.file_type().is_symlink() => Ok(Entry::Link),
            Ok(_) => Ok(Entry::Other),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Entry::Missing),
            Err(e) => Err(format!("cannot inspect: {e}")),
        }
    }

    /// Holds the file `name` of this folder for a write: waits while another write of it is
    /// under way. The folder is known by its identity, so two paths to it share the hold.
    pub(crate) fn hold(&self, name: &str) -> Result<Held, String> {
        Ok(Held::take(vec![self.key(name)?]))
    }

    /// What holds the file `name` of this folder.
    fn key(&self, name: &str) -> Result<HeldKey, String> {
        // The open folder's identity (Windows: volume serial and file index), never its path:
        // two spellings of one folder share the hold.
        let (device, inode) =
            crate::platform::file_identity(&self.held).map_err(|e| format!("cannot identify the folder: {e}"))?;
        Ok((device, inode, name.to_owned()))
    }

    /// Reads the regular file `name` whole (at most `max_bytes`), opened through the held
    /// folder and checked like every served file.
    pub(crate) fn read_file(&self, _held: &Held, name: &str, max_bytes: u64) -> Result<Vec<u8>, String> {
        let (file, meta) = self.sandbox.open(&self.at(name))?;
        sandbox::read_all(file, &meta, max_bytes)
    }

    /// Checks the folder held is still under the root (it may have been moved since it was opened).
    fn still_inside(&self) -> Result<(), String> {
        let meta = self.held.metadata().map_err(|e| format!("cannot inspect the folder: {e}"))?;
        let real = real_path(&self.held, &meta, &self.base)?;
        self.sandbox.inside(real).map(|_| ())
    }

    /// Creates or replaces the regular file `name` with `bytes`, atomically: a temporary file in
    /// this folder, checked, written and synced, then renamed over the name. A replaced file's
    /// permissions are kept (but set-uid and set-gid), and its owner when the server may set it.
    /// The caller holds the file (`hold`), so that no other write of it interleaves. Answers
    /// whether the file is new.
    pub(crate) fn write_file(&self, held: &Held, bytes: &[u8]) -> Result<bool, String> {
        let Some((_, _, name)) = held.keys.first() else { return Err("nothing was held to write".into()) };
        let existing = match self.entry(name)? {
            Entry::Missing => None,
            Entry::File(meta) => Some(meta),
            Entry::Dir => return Err("is a folder, not a file".into()),
            Entry::Link => return Err("is a symbolic link that leads nowhere inside the served folder".into()),
            Entry::Other => return Err("is not a regular file (a FIFO, socket or device is never written)".into()),
        };
        let (file, temporary) = self.create_temporary(name)?;
        let written = self.fill(file, existing.as_ref(), bytes).and_then(|()| {
            fs::rename(self.at(&temporary), self.at(name)).map_err(|e| format!("cannot replace the file: {e}"))
        });
        if let Err(why) = written {
            let _ = fs::remove_file(self.at(&temporary));
            return Err(why);
        }
        if let Err(why) = self.still_inside() {
            let _ = fs::remove_file(self.at(name));
            return Err(why);
        }
        Ok(existing.is_none())
    }

    /// Creates a new temporary file next to `name` (hidden, so never listed without
    /// `--include-hidden`), and checks what was created is under the root before it is written.
    fn create_temporary(&self, name: &str) -> Result<(File, String), String> {
        // The name's start (cut at a character) tells a person whose it is; the counter makes
        // it unique, and the length stays within NAME_MAX for a name of any length.
        let mut end = name.len().min(TEMPORARY_NAME_PART);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        for _ in 0..16 {
            let n = TEMPORARY.fetch_add(1, Ordering::Relaxed);
            let temporary = format!(".{}.tinymcp-{}-{n}.tmp", &name[..end], std::process::id());
            let created = OpenOptions::new().write(true).create_new(true).open(self.at(&temporary));
            let file = match created {
                Ok(file) => file,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(format!("cannot create a file here: {e}")),
            };
            // The temporary name is hidden, so it is its folder that must be shown.
            let checked = file
                .metadata()
                .map_err(|e| format!("cannot inspect: {e}"))
                .and_then(|meta| real_path(&file, &meta, &self.at(&temporary)))
                .and_then(|real| match (real.parent(), real.file_name()) {
                    (Some(dir), Some(created)) if created == temporary.as_str() => {
                        self.sandbox.inside(dir.to_path_buf())
                    }
                    _ => Err("what was created is not what was asked for".into()),
                });
            return match checked {
                Ok(_) => Ok((file, temporary)),
                Err(why) => {
                    let _ = fs::remove_file(self.at(&temporary));
                    Err(why)
                }
            };
        }
        Err("cannot find a free temporary name".into())
    }

    /// Writes the temporary file: the replaced file's owner (when the server may give it: run
    /// as root, or the same user) and permissions, the bytes, then a sync so the rename never
    /// publishes an empty file after a crash. Set-uid and set-gid are cleared, as the kernel
    /// clears them when a file is written: the new file is the server's user's until its owner
    /// is set, and a bit kept would lend whoever runs it that user's rights.
    fn fill(&self, mut file: File, existing: Option<&Metadata>, bytes: &[u8]) -> Result<(), String> {
        if let Some(meta) = existing {
            crate::platform::keep_owner_and_mode(&file, meta, SET_ID_BITS)
                .map_err(|e| format!("cannot keep the permissions: {e}"))?;
        }
        file.write_all(bytes).and_then(|()| file.sync_all()).map_err(|e| format!("cannot write: {e}"))
    }

    /// Creates the folder `name`; answers whether it is new (an existing folder is fine).
    pub(crate) fn create_dir(&self, name: &str) -> Result<bool, String> {
        match fs::create_dir(self.at(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return match self.entry(name)? {
                    Entry::Dir => Ok(false),
                    _ => Err("exists and is not a folder".into()),
                }
            }
            Err(e) => return Err(format!("cannot create the folder: {e}")),
        }
        if let Err(why) = self.still_inside() {
            let _ = fs::remove_dir(self.at(name));
            return Err(why);
        }
        Ok(true)
    }

    /// Moves the entry `name` (a link is moved as a link) to `to`'s `new_name`. Without
    /// `overwrite`, an existing destination is refused: a file is moved by a hard link, which
    /// the kernel refuses atomically when the name exists, then the old name removed; a folder
    /// is renamed, which can replace only an empty folder. A folder is never replaced.
    /// Both names are held meanwhile: an edit of either under way would otherwise rename its
    /// old read over the move.
    pub(crate) fn move_to(&self, name: &str, to: &Folder<'_>, new_name: &str, overwrite: bool) -> Result<(), String> {
        let _held = Held::take(vec![self.key(name)?, to.key(new_name)?]);
        let source = self.entry(name)?;
        match source {
            Entry::Missing => return Err("no such file or directory".into()),
            // Moving a link does not follow it, but one that leads out is left where it is.
            Entry::Link if self.sandbox.follow(&self.at(name)).is_none() => {
                return Err("a symbolic link leads outside the served folder (or to nothing it serves)".into())
            }
            _ => {}
        }
        match to.entry(new_name)? {
            Entry::Missing => {}
            Entry::Link if to.sandbox.follow(&to.at(new_name)).is_none() => {
                return Err("the destination: a symbolic link leads outside the served folder".into())
            }
            Entry::Dir => return Err("the destination is a folder that exists (a folder is never replaced)".into()),
            _ if !overwrite => return Err("the destination exists (pass overwrite: true to replace it)".into()),
            _ => {}
        }
        let (from, dest) = (self.at(name), to.at(new_name));
        let moved = match source {
            Entry::Dir => fs::rename(&from, &dest),
            _ if overwrite => fs::rename(&from, &dest),
            _ => fs::hard_link(&from, &dest).and_then(|()| fs::remove_file(&from)),
        };
        moved.map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => "the destination exists (pass overwrite: true to replace it)".to_owned(),
            // What rename(2) answers for a folder moved below itself.
            io::ErrorKind::InvalidInput => {
                "a folder cannot be moved into itself (choose a destination outside it)".to_owned()
            }
            _ => format!("cannot move: {e}"),
        })?;
        if let Err(why) = to.still_inside() {
            // Moved into a folder that left the root meanwhile: bring it back.
            let _ = fs::rename(&dest, &from);
            return Err(why);
        }
        Ok(())
    }
}
