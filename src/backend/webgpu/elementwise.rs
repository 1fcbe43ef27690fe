//! Elementwise kernels (and fused chains of them): the general one-element-per-invocation
//! kernel (`shaders/elementwise.wgsl`, any strides) and its contiguous variant, four consecutive
//! elements per invocation read and written as vec4 words (`shaders/elementwise_x4.wgsl`). Both
//! compute each element with the same statements (`codegen::nodes_code_with`), so their results
//! are the same bit for bit.

use super::codegen::{fill, key_nodes, nodes_code, nodes_code_with, storage_type, KernelKey, KeyNode, MATH};
use crate::backend::Elementwise;
use crate::dtype::{Compute, DType};

const ELEMENTWISE: &str = include_str!("../../../shaders/elementwise.wgsl");
const ELEMENTWISE_X4: &str = include_str!("../../../shaders/elementwise_x4.wgsl");

/// The key of an elementwise kernel (`contiguous[k]`: leaf k is read at `offset + i`; `x4`: the
/// vec4 variant, which `launch.rs` chooses), and the scalar operands in slot order.
pub fn elementwise_key(k: &Elementwise, contiguous: &[bool], x4: bool) -> (KernelKey, Vec<(f64, Compute)>) {
    let (nodes, scalars) = key_nodes(&k.nodes);
    let leaves = k.leaves.iter().zip(contiguous).map(|(o, &c)| (o.dtype, c)).collect();
    (KernelKey::Elementwise { nodes, leaves, out_strided: k.out_view.is_some(), x4 }, scalars)
}

/// Meta words of elementwise kernels (see `shaders/elementwise.wgsl`).
pub const EW_OFFSETS: usize = 8;
pub const EW_SCALARS: usize = 16;
pub const EW_SHAPE: usize = 24;
pub const EW_STRIDES: usize = 32;
pub const EW_MAX_LEAVES: usize = 7;
pub const EW_MAX_SCALARS: usize = 8;
/// Output offset and strides of an in-place (strided) elementwise kernel.
pub const EW_OUT_OFFSET: usize = 3;
pub const EW_OUT_STRIDES: usize = EW_STRIDES + 8 * EW_MAX_LEAVES;

/// The one-element-per-invocation kernel (any strides).
pub fn source(nodes: &[KeyNode], leaves: &[(DType, bool)], out_strided: bool) -> String {
    let mut bindings = String::new();
    let mut index = String::new();
    let strided = out_strided || leaves.iter().any(|(_, c)| !c);
    if strided {
        index.push_str("    var rem = i;\n");
    }
    let mut body = String::new();
    if out_strided {
        index.push_str(&format!("    var oo = m({EW_OUT_OFFSET}u);\n"));
        body.push_str(&format!("        oo += c * m({}u + d);\n", EW_OUT_STRIDES - 1));
    } else {
        index.push_str("    let oo = i;\n");
    }
    for (k, &(d, contiguous)) in leaves.iter().enumerate() {
        bindings.push_str(&format!(
            "@group(0) @binding({}) var<storage, read> in{k}: array<{}>;\n",
            k + 2,
            storage_type(d)
        ));
        if contiguous {
            index.push_str(&format!("    let o{k} = m({}u) + i;\n", EW_OFFSETS + k));
        } else {
            index.push_str(&format!("    var o{k} = m({}u);\n", EW_OFFSETS + k));
            body.push_str(&format!("        o{k} += c * m({}u + d);\n", EW_STRIDES + 8 * k - 1));
        }
    }
    if strided {
        index.push_str(&format!(
            "    for (var d = m(1u); d > 0u; d--) {{\n        let s = m({}u + d);\n        let c = rem % s;\n        rem /= s;\n{body}    }}\n",
            EW_SHAPE - 1
        ));
    }
    let compute = nodes_code(nodes, &leaves.iter().map(|l| l.0).collect::<Vec<_>>(), EW_SCALARS);
    let last = nodes.len() - 1;
    format!(
        "{MATH}\n{}",
        fill(
            ELEMENTWISE,
            &[
                ("OUT", storage_type(nodes[last].out)),
                ("INPUTS", &bindings),
                ("INDEX", &index),
                ("COMPUTE", &compute),
                ("RESULT", &format!("s{last}")),
            ],
        )
    )
}

/// The vec4 variant: the output contiguous from 0, each contiguous leaf at an offset that is a
/// multiple of 4 (`launch.rs` checks that, and that each buffer holds whole words up to the last
/// element). A contiguous leaf is read one vec4 word per invocation (loads issued before any
/// element is computed); a strided leaf (a transposed or windowed view: im2col's gather) is
/// read as four scalars from one index computation, which needs the innermost dim's size to be
/// a multiple of 4 so that the four elements share their outer indices.
pub fn source_x4(nodes: &[KeyNode], leaves: &[(DType, bool)]) -> String {
    let mut bindings = String::new();
    let mut loads = String::new();
    let strided = leaves.iter().any(|(_, c)| !c);
    let mut index = String::new();
    let mut body = String::new();
    if strided {
        index.push_str("    var rem = i * 4u;\n");
    }
    for (k, &(d, contiguous)) in leaves.iter().enumerate() {
        let t = storage_type(d);
        if contiguous {
            bindings.push_str(&format!("@group(0) @binding({}) var<storage, read> in{k}: array<vec4<{t}>>;\n", k + 2));
            loads.push_str(&format!("    let x{k} = in{k}[(m({}u) >> 2u) + i];\n", EW_OFFSETS + k));
        } else {
            bindings.push_str(&format!("@group(0) @binding({}) var<storage, read> in{k}: array<{t}>;\n", k + 2));
            index.push_str(&format!("    var o{k} = m({}u);\n", EW_OFFSETS + k));
            body.push_str(&format!("        o{k} += c * m({}u + d);\n", EW_STRIDES + 8 * k - 1));
            // The innermost dim's stride: four elements in a row along it.
            loads.push_str(&format!(
                "    let s{k} = m({}u + m(1u));\n    let x{k} = vec4<{t}>(in{k}[o{k}], in{k}[o{k} + s{k}], in{k}[o{k} + 2u * s{k}], in{k}[o{k} + 3u * s{k}]);\n",
                EW_STRIDES + 8 * k - 1
            ));
        }
    }
    if strided {
        index.push_str(&format!(
            "    for (var d = m(1u); d > 0u; d--) {{\n        let s = m({}u + d);\n        let c = rem % s;\n        rem /= s;\n{body}    }}\n",
            EW_SHAPE - 1
        ));
    }
    let loads = format!("{index}{loads}");
    let dtypes: Vec<DType> = leaves.iter().map(|l| l.0).collect();
    let last = nodes.len() - 1;
    let mut lanes = String::new();
    for e in 0..4 {
        let code = nodes_code_with(nodes, &dtypes, EW_SCALARS, &|l| format!("x{l}[{e}u]"));
        lanes.push_str(&format!("    {{\n{code}    r[{e}u] = s{last};\n    }}\n"));
    }
    format!(
        "{MATH}\n{}",
        fill(
            ELEMENTWISE_X4,
            &[("OUT", storage_type(nodes[last].out)), ("INPUTS", &bindings), ("LOADS", &loads), ("LANES", &lanes)],
        )
    )
}
