//! Engine debug flags: `torch.webgpu.set_debug({ print_shaders: true })` in JS, or the environment
//! variable `WEBTORCH_PRINT_SHADER=1` natively, prints each kernel's WGSL when it is compiled.

use std::cell::Cell;

thread_local! {
    static PRINT_SHADERS: Cell<Option<bool>> = const { Cell::new(None) };
}

pub fn set_dump_shaders(on: bool) {
    PRINT_SHADERS.with(|c| c.set(Some(on)));
}

pub fn dump_shaders() -> bool {
    PRINT_SHADERS.with(|c| {
        if c.get().is_none() {
            #[cfg(not(target_arch = "wasm32"))]
            c.set(Some(std::env::var("WEBTORCH_PRINT_SHADER").is_ok_and(|v| v == "1")));
            #[cfg(target_arch = "wasm32")]
            c.set(Some(false));
        }
        c.get().unwrap_or(false)
    })
}

pub fn log(msg: &str) {
    #[cfg(target_arch = "wasm32")]
    web_sys::console::log_1(&msg.into());
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("{msg}");
}

thread_local! {
    /// The fault point `arm_panic` named; `fault_point` panics there once.
    static ARMED: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
    static ANY_ARMED: Cell<bool> = const { Cell::new(false) };
}

/// The fault points, where the engine holds its state borrowed: `arm_panic` accepts these names.
pub const FAULT_POINTS: &[&str] = &[
    "engine",
    "tensor.state",
    "cpu.alloc",
    "cpu.read_buffer",
    "cpu.write_buffer",
    "webgpu.alloc",
    "webgpu.dispatch",
    "webgpu.submit",
    "autograd.backward",
];

/// Makes the next pass through fault point `name` panic (tests of panic recovery:
/// `torch._C.debug_panic_at`); `""` disarms. `false` for a name that is not a fault point.
pub fn arm_panic(name: &str) -> bool {
    if name.is_empty() {
        // Disarms.
        ARMED.with(|a| *a.borrow_mut() = None);
        ANY_ARMED.with(|a| a.set(false));
        return true;
    }
    if !FAULT_POINTS.contains(&name) {
        return false;
    }
    ARMED.with(|a| *a.borrow_mut() = Some(name.to_string()));
    ANY_ARMED.with(|a| a.set(true));
    true
}

/// Panics here when `arm_panic(name)` asked for it; the tests place these where a backend or the
/// engine holds a `RefCell` borrowed, the state a trap must not leave behind.
#[inline]
pub fn fault_point(name: &'static str) {
    if ANY_ARMED.with(Cell::get) && ARMED.with(|a| a.borrow().as_deref() == Some(name)) {
        ARMED.with(|a| *a.borrow_mut() = None);
        ANY_ARMED.with(|a| a.set(false));
        panic!("webtorch: injected panic at {name}");
    }
}
