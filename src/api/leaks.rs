//! The live-handle registry behind `torch.webgpu.leak_report()`: every `RawTensor` handle the
//! TS layer holds, with its shape, dtype, bytes and (when `set_leak_tracking(true)`) the JS stack
//! where it was made. Handles leave it when freed (`dispose`, a scope, or the GC backstop).

use crate::cell::RefCell;
use std::cell::Cell;
use std::collections::BTreeMap;

use wasm_bindgen::prelude::*;

use crate::tensor::Tensor;

struct Entry {
    shape: Vec<usize>,
    dtype: &'static str,
    device: &'static str,
    bytes: u64,
    stack: Option<String>,
}

thread_local! {
    static NEXT: Cell<u64> = const { Cell::new(1) };
    static STACKS: Cell<bool> = const { Cell::new(false) };
    static LIVE: RefCell<BTreeMap<u64, Entry>> = const { RefCell::new(BTreeMap::new()) };
}

pub(crate) fn track(t: &Tensor) -> u64 {
    let id = NEXT.with(|n| {
        let id = n.get();
        n.set(id + 1);
        id
    });
    let stack = if STACKS.with(|s| s.get()) {
        js_sys::Reflect::get(&js_sys::Error::new(""), &"stack".into()).ok().and_then(|s| s.as_string())
    } else {
        None
    };
    let entry = Entry {
        shape: t.shape().to_vec(),
        dtype: t.dtype.name(),
        device: t.device().name(),
        bytes: t.numel() as u64 * t.dtype.word_bytes(),
        stack,
    };
    LIVE.with(|l| l.borrow_mut().insert(id, entry));
    id
}

pub(crate) fn untrack(id: u64) {
    LIVE.with(|l| l.borrow_mut().remove(&id));
}

/// Records the JS stack of each new handle (costly; for hunting leaks).
#[wasm_bindgen]
pub fn set_leak_tracking(on: bool) {
    STACKS.with(|s| s.set(on));
}

/// The live handles, oldest first: `[{id, shape, dtype, device, bytes, stack}]`.
#[wasm_bindgen]
pub fn leak_report() -> js_sys::Array {
    let out = js_sys::Array::new();
    LIVE.with(|l| {
        for (id, e) in l.borrow().iter() {
            let o = js_sys::Object::new();
            let set = |k: &str, v: JsValue| {
                let _ = js_sys::Reflect::set(&o, &k.into(), &v);
            };
            set("id", JsValue::from_f64(*id as f64));
            set("shape", e.shape.iter().map(|&s| JsValue::from_f64(s as f64)).collect::<js_sys::Array>().into());
            set("dtype", e.dtype.into());
            set("device", e.device.into());
            set("bytes", JsValue::from_f64(e.bytes as f64));
            set("stack", e.stack.clone().map_or(JsValue::NULL, JsValue::from));
            out.push(&o);
        }
    });
    out
}
