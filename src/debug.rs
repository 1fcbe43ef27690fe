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
