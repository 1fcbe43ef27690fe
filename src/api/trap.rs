//! Recovering from a trap. A panic on wasm32 aborts the call (`unreachable`), as does a failed
//! allocation, and no destructor runs. The TS layer calls every core function through a guard
//! (`ts/src/runtime.ts`); when a call ends in anything but a `TorchError` it asks `trap_info`
//! what happened — the panic message the hook below recorded, or the size of the allocation that
//! failed — and turns that into an `OutOfMemoryError` or an `InternalError`. Once the outermost
//! call into the core has ended, it puts the shadow-stack pointer back (exported for it,
//! `.cargo/config.toml`) and calls `recover`, which releases the borrows the trapped frames held
//! (`crate::cell`); the next call works.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use wasm_bindgen::prelude::*;

thread_local! {
    static LAST_PANIC: Cell<Option<String>> = const { Cell::new(None) };
}

/// The size of the last allocation the system allocator refused (0: none since the last
/// `recover`); an abort follows unless the caller handles it (`try_reserve`).
static FAILED_ALLOC: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, noting refusals: after a trap, `recover` reports an allocation that
/// failed as out of memory rather than as an internal error.
struct NotingAllocator;

// SAFETY: every call is forwarded to `System` unchanged; only a refusal is noted.
unsafe impl GlobalAlloc for NotingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        noted(System.alloc(layout), layout.size())
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        noted(System.alloc_zeroed(layout), layout.size())
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        noted(System.realloc(ptr, layout, new_size), new_size)
    }
}

fn noted(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() {
        FAILED_ALLOC.store(size, Ordering::Relaxed);
    }
    p
}

#[global_allocator]
static ALLOCATOR: NotingAllocator = NotingAllocator;

/// Forgets a refusal the caller handled (a `try_reserve` that became an `OutOfMemoryError`).
pub(crate) fn clear_failed_alloc() {
    FAILED_ALLOC.store(0, Ordering::Relaxed);
}

/// Records each panic's message for `trap_info` (instead of logging it: the guard throws it).
/// Installed once: after a trapped panic std counts the thread as panicking for good (the panic
/// never finished), and `set_hook` panics when called from a panicking thread — a second `init`
/// would trap.
pub(crate) fn install_panic_hook() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(install);
}

fn install() {
    std::panic::set_hook(Box::new(|info| {
        let msg = match info.payload().downcast_ref::<&str>() {
            Some(s) => (*s).to_string(),
            None => info.payload().downcast_ref::<String>().cloned().unwrap_or_else(|| "panic".into()),
        };
        let at = info.location().map(|l| format!(" ({}:{})", l.file(), l.line())).unwrap_or_default();
        LAST_PANIC.with(|p| p.set(Some(format!("{msg}{at}"))));
    }));
}

/// Releases every borrow the frames of a trapped call held. Called by the guard once the
/// outermost call into the core has ended after a failure: no frame of the core is running then.
#[wasm_bindgen]
pub fn recover() {
    // SAFETY: called from JS with no core frame on the stack (the guard's outermost exit); no
    // future holds a cell guard across an await (clippy.toml).
    unsafe { crate::cell::recover() };
}

/// What a trapped call left: `{ panic: string | null, failed_alloc: number }` (and forgets it).
#[wasm_bindgen]
pub fn trap_info() -> JsValue {
    let panic = LAST_PANIC.with(Cell::take);
    let failed = FAILED_ALLOC.swap(0, Ordering::Relaxed);
    let out = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&out, &"panic".into(), &panic.map_or(JsValue::NULL, |p| p.into()));
    let _ = js_sys::Reflect::set(&out, &"failed_alloc".into(), &(failed as f64).into());
    out.into()
}

/// Makes the next pass through the named fault point panic (`crate::debug::FAULT_POINTS`).
#[wasm_bindgen]
pub fn debug_panic_at(point: &str) -> Result<(), JsValue> {
    if crate::debug::arm_panic(point) {
        Ok(())
    } else {
        Err(super::to_js(crate::err!(
            Torch,
            "unknown fault point '{point}' (one of {})",
            crate::debug::FAULT_POINTS.join(", ")
        )))
    }
}

/// The fault points `debug_panic_at` accepts.
#[wasm_bindgen]
pub fn debug_fault_points() -> Vec<String> {
    crate::debug::FAULT_POINTS.iter().map(|s| s.to_string()).collect()
}
