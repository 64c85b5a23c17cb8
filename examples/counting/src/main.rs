//! `tinymcp --everything` over stdio, counting every allocation: the tool `allocations` answers
//! `allocations=N bytes=M` (all threads, since start), so a driver can take the difference around
//! a number of calls. For scripts/bench.sh only; the server itself never counts.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tinymcp::{CallToolResult, Server, Tool};

// The binary's own conformance fixture (it lives in the binary, not the library), built here from
// the same files: it uses the library's public API only.
#[path = "../../../crates/tinymcp-cli/src/provide/everything/mod.rs"]
mod everything;

// What the fixture takes from the binary's `provide` module.
mod provide {
    pub(crate) use tinymcp::json_literal as lit;
}

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A reallocation is an allocator call like any other (and often a copy).
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    let server = Server::new("tinymcp-counting", "0");
    everything::register(&server);
    server.register_tool(
        Tool::new("allocations", "Allocations and bytes allocated since start", serde_json::json!({"type": "object"})),
        |_, _| {
            let (n, bytes) = (ALLOCATIONS.load(Ordering::Relaxed), BYTES.load(Ordering::Relaxed));
            Ok(CallToolResult::text(format!("allocations={n} bytes={bytes}")))
        },
    );
    if let Err(e) = tinymcp::transport::stdio::serve(Arc::new(server)) {
        eprintln!("tinymcp-counting: {e}");
        std::process::exit(1);
    }
}
