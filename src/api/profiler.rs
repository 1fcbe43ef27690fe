//! The core half of `torch.profiler`: while recording, every op's host time (the time the call
//! spent in the engine, recording or dispatching its kernels) is logged with its name, and on a
//! WebGPU device with `timestamp-query` every kernel's GPU time, tagged with the op that
//! dispatched it (`backend/timing.rs`). The TS layer turns the events into
//! `key_averages().table()` and a Chrome trace.

use crate::cell::RefCell;
use std::cell::Cell;

use wasm_bindgen::prelude::*;

struct Event {
    name: String,
    start_us: f64,
    dur_us: f64,
}

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static EVENTS: RefCell<Vec<Event>> = const { RefCell::new(Vec::new()) };
    static NOW: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
    /// The GPU times of the last profile, read when the TS layer asks.
    static GPU: RefCell<Option<GpuRead>> = const { RefCell::new(None) };
}

type GpuRead = crate::backend::LocalFuture<crate::Result<Vec<crate::backend::timing::GpuEvent>>>;

/// `performance.now()` in µs (`Date.now()`, ms resolution, where `performance` is missing).
fn now_us() -> f64 {
    let f = NOW.with(|n| {
        n.borrow_mut()
            .get_or_insert_with(|| {
                let perf = js_sys::Reflect::get(&js_sys::global(), &"performance".into()).unwrap_or(JsValue::UNDEFINED);
                js_sys::Reflect::get(&perf, &"now".into())
                    .ok()
                    .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                    .map(|now| now.bind0(&perf))
                    .unwrap_or_else(|| js_sys::Function::from(JsValue::UNDEFINED))
            })
            .clone()
    });
    match f.call0(&JsValue::NULL).ok().and_then(|v| v.as_f64()) {
        Some(ms) => ms * 1000.0,
        None => js_sys::Date::now() * 1000.0,
    }
}

/// Runs `f`, logging its host time as `name` while the profiler records.
pub(crate) fn time<R>(name: &str, f: impl FnOnce() -> R) -> R {
    if !ON.with(|o| o.get()) {
        return f();
    }
    let start = now_us();
    let outer = crate::backend::timing::set_current_op(Some((name.to_string(), start)));
    let r = f();
    crate::backend::timing::set_current_op(outer);
    let dur = now_us() - start;
    EVENTS.with(|e| e.borrow_mut().push(Event { name: name.to_string(), start_us: start, dur_us: dur }));
    r
}

/// Starts recording; true when kernels' GPU times are recorded too (a WebGPU device with
/// `timestamp-query`).
#[wasm_bindgen]
pub fn profiler_start() -> bool {
    EVENTS.with(|e| e.borrow_mut().clear());
    GPU.with(|g| *g.borrow_mut() = None);
    ON.with(|o| o.set(true));
    crate::engine::backend(crate::Device::WebGpu).is_ok_and(|b| b.timing().is_some_and(|t| t.start()))
}

/// Stops recording; returns `[{name, start_us, dur_us}]` (the GPU times are read by
/// `profiler_gpu_events`).
#[wasm_bindgen]
pub fn profiler_stop() -> js_sys::Array {
    ON.with(|o| o.set(false));
    if let Some(t) = crate::engine::backend(crate::Device::WebGpu).ok().as_deref().and_then(|b| b.timing()) {
        GPU.with(|g| *g.borrow_mut() = Some(t.stop()));
    }
    let out = js_sys::Array::new();
    EVENTS.with(|e| {
        for ev in e.borrow_mut().drain(..) {
            let o = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&o, &"name".into(), &ev.name.into());
            let _ = js_sys::Reflect::set(&o, &"start_us".into(), &ev.start_us.into());
            let _ = js_sys::Reflect::set(&o, &"dur_us".into(), &ev.dur_us.into());
            out.push(&o);
        }
    });
    out
}

/// The kernels' GPU times of the profile `profiler_stop` ended: `[{kernel, op, op_start_us,
/// start_ns, dur_ns}]` in dispatch order (empty without timestamps).
#[wasm_bindgen]
pub async fn profiler_gpu_events() -> Result<JsValue, JsValue> {
    let read = GPU.with(|g| g.borrow_mut().take());
    let events = match read {
        Some(f) => super::js(f.await)?,
        None => Vec::new(),
    };
    serde_wasm_bindgen::to_value(&events).map_err(|e| JsValue::from_str(&e.to_string()))
}
