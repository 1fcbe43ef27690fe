//! `CustomFunction`: the core side of `torch.autograd.Function` subclasses written in TS. The TS
//! layer runs the subclass's `forward` under no_grad, then hands the tensor inputs, the saved
//! tensors and the outputs to a `CustomFunction` and records one graph node whose backward calls
//! back into JS. The node behaves as any other: hooks, retain_grad, the in-place version check on
//! saved tensors, retain_graph, and double backward when the JS backward uses differentiable ops
//! (the engine runs it with grad mode set to `create_graph`).

use js_sys::{Array, Function};
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;

use super::{js, JsResult, RawTensor};
use crate::autograd::{self, Backward};
use crate::tensor::Tensor;

/// One application of a custom function: tensors are added one by one, then `record` makes the
/// node and `output(i)` hands back each output attached to it.
#[wasm_bindgen]
#[derive(Default)]
pub struct CustomFunction {
    inputs: Vec<Tensor>,
    saved: Vec<Tensor>,
    outputs: Vec<Tensor>,
}

/// Whatever JS threw, as text for the error message.
fn describe(e: &JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    if let Some(err) = e.dyn_ref::<js_sys::Error>() {
        return String::from(err.message());
    }
    format!("{e:?}")
}

#[wasm_bindgen]
impl CustomFunction {
    #[wasm_bindgen(constructor)]
    pub fn new() -> CustomFunction {
        CustomFunction::default()
    }

    /// A tensor argument of `forward`, in argument order.
    pub fn add_input(&mut self, t: &RawTensor) {
        self.inputs.push(t.t.clone());
    }

    /// A tensor of `ctx.save_for_backward`: writing to it in place before backward is an error.
    pub fn add_saved(&mut self, t: &RawTensor) {
        self.saved.push(t.t.clone());
    }

    /// A tensor result of `forward`, in result order.
    pub fn add_output(&mut self, t: &RawTensor) {
        self.outputs.push(t.t.clone());
    }

    /// Records the node `name` (when grad mode is on and an input requires grad). `backward`
    /// gets an array with one gradient handle (or `undefined`) per output and returns an array
    /// with one gradient handle (or `undefined`/`null`) per input; the core takes ownership of
    /// the handles it returns.
    pub fn record(&mut self, name: String, backward: Function) -> JsResult<()> {
        let n_inputs = self.inputs.len();
        let fn_name = name.clone();
        let f: Backward = Box::new(move |grads: &[Option<Tensor>]| {
            let args = Array::new();
            for g in grads {
                match g {
                    Some(g) => args.push(&JsValue::from(RawTensor::wrap(g.clone()))),
                    None => args.push(&JsValue::UNDEFINED),
                };
            }
            let r = backward.call1(&JsValue::NULL, &args).map_err(|e| crate::err!(Torch, "{}", describe(&e)))?;
            let r: Array = r.dyn_into().map_err(|_| crate::err!(Torch, "{fn_name}: backward must return an array"))?;
            if r.length() as usize != n_inputs {
                crate::bail!(
                    Torch,
                    "function {fn_name} returned an incorrect number of gradients (expected {n_inputs}, got {})",
                    r.length()
                );
            }
            let mut out = Vec::with_capacity(n_inputs);
            for v in r.iter() {
                if v.is_undefined() || v.is_null() {
                    out.push(None);
                } else {
                    let raw = RawTensor::try_from_js_value(v)
                        .map_err(|_| crate::err!(Torch, "{fn_name}: a gradient must be a Tensor or null"))?;
                    out.push(Some(raw.t.clone()));
                }
            }
            Ok(out)
        });
        let inputs: Vec<&Tensor> = self.inputs.iter().collect();
        let saved: Vec<&Tensor> = self.saved.iter().collect();
        let mut outs: Vec<&mut Tensor> = self.outputs.iter_mut().collect();
        autograd::record(&name, &inputs, &saved, &mut outs, f);
        Ok(())
    }

    /// Output `i`, attached to the recorded node (or as given when nothing was recorded).
    pub fn output(&self, i: usize) -> Option<RawTensor> {
        self.outputs.get(i).cloned().map(RawTensor::wrap)
    }
}

#[wasm_bindgen]
impl RawTensor {
    /// `ctx.mark_dirty(x)`: `x` was modified in place by a custom forward that returned it as
    /// `output`; `x` takes over `output`'s place in the graph, as PyTorch rebases its history.
    pub fn rebase_history(&mut self, output: &RawTensor) -> JsResult<()> {
        if autograd::is_grad_enabled() && self.t.requires_grad() && self.t.is_leaf() {
            return js(Err(crate::err!(
                Torch,
                "a leaf Variable that requires grad has been used in an in-place operation."
            )));
        }
        self.t.take_history(&output.t);
        Ok(())
    }
}
