//! Build script: two link choices of the binary (never of an embedder's, through the `-bins`
//! instructions), both for its start-up.
//!
//! musl: packs the static binary's relative relocations (DT_RELR) into a few hundred bytes
//! instead of a 40 KiB table, keeping it position-independent (ASLR). musl applies them itself
//! at start-up (since 1.2.4; Rust bundles a newer one), and `scripts/test.sh` runs the static
//! binary. Only for musl: glibc builds would then need glibc 2.36 or newer to start.
//!
//! glibc: links GCC's unwinder (`libgcc_eh.a`, panics unwind through it) into the binary instead
//! of loading `libgcc_s.so.1` at every start. Loading that library costs the dynamic loader a
//! second object to map and relocate, and its constructor probes the CPU with a dozen `cpuid`
//! instructions, each a trap to the hypervisor on a virtual machine (about 7 µs each on our
//! 2-core VM): 0.1-0.3 ms of a ~1 ms start there, for 24 KiB of binary. Rust's `unwind` crate
//! asks for `-lgcc_s` by name, so a folder searched first holds a `libgcc_s.so` that is a
//! linker script naming `libgcc_eh.a`. Only when the C compiler that links knows where
//! `libgcc_eh.a` is; otherwise the binary loads `libgcc_s.so.1` as before.
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" && env == "musl" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    if os == "linux" && env == "gnu" {
        if let Some(folder) = static_unwinder() {
            println!("cargo:rustc-link-arg-bins=-L{}", folder.display());
        }
    }
}

/// A folder holding `libgcc_s.so` as a linker script for the static `libgcc_eh.a`, when the
/// linker of a native build finds that archive (a cross build keeps the default).
fn static_unwinder() -> Option<PathBuf> {
    if std::env::var("TARGET").ok()? != std::env::var("HOST").ok()? {
        return None;
    }
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_owned());
    let output = Command::new(linker).arg("-print-file-name=libgcc_eh.a").output().ok()?;
    let archive = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    // Not found, the compiler prints the bare name back.
    if !output.status.success() || !archive.is_absolute() || !archive.is_file() {
        return None;
    }
    let folder = Path::new(&std::env::var("OUT_DIR").ok()?).join("static-unwinder");
    std::fs::create_dir_all(&folder).ok()?;
    std::fs::write(folder.join("libgcc_s.so"), format!("INPUT(\"{}\")\n", archive.display())).ok()?;
    Some(folder)
}
