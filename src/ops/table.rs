//! The op table: one row per elementwise op. The WGSL kernels (`backend/webgpu/codegen.rs`), the
//! CPU reference kernels (`backend/cpu.rs`), `op_names()` for the TS layer and its coverage test all
//! come from these rows. Adding an op is one row here, one TS function/method, one fixture entry.
//!
//! Columns: variant, torch name, result kind, WGSL expression, CPU float fn, CPU integer fn.
//! In WGSL, `a`/`b` are the operands in the compute type `T` (`f32` or `i32`); `T` in an
//! expression is replaced by that type. An integer fn of `None` means integer inputs are promoted
//! to float32 first (PyTorch's `exp(int) -> float`).

/// How an op's result dtype follows from its (promoted) input dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultKind {
    /// Same as the promoted inputs (`add`, `neg`, `relu`).
    Same,
    /// Integers promote to float32 (`exp`, `div`, `sigmoid`).
    Float,
    /// `bool` (comparisons); the expression is a WGSL `bool`.
    Bool,
}

/// The CPU reference implementation of a row, one fn per compute type.
#[derive(Clone, Copy)]
pub enum CpuFn {
    Unary(fn(f32) -> f32, Option<fn(i32) -> i32>),
    Binary(fn(f32, f32) -> f32, Option<fn(i32, i32) -> i32>),
    Compare(fn(f32, f32) -> bool, fn(i32, i32) -> bool),
}

pub struct OpInfo {
    pub op: Op,
    pub name: &'static str,
    pub kind: ResultKind,
    pub wgsl: &'static str,
    pub cpu: CpuFn,
}

impl OpInfo {
    pub fn arity(&self) -> usize {
        match self.cpu {
            CpuFn::Unary(..) => 1,
            CpuFn::Binary(..) | CpuFn::Compare(..) => 2,
        }
    }
}

macro_rules! op_table {
    ($( $variant:ident = $name:literal, $kind:ident, $wgsl:literal, $cpu:expr; )*) => {
        /// Every elementwise op, in table order (the id the TS layer passes is the index).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op { $($variant),* }

        pub static TABLE: &[OpInfo] = &[
            $(OpInfo { op: Op::$variant, name: $name, kind: ResultKind::$kind, wgsl: $wgsl, cpu: $cpu }),*
        ];
    };
}

use CpuFn::{Binary, Compare, Unary};

op_table! {
    // unary
    Neg      = "neg",      Same,  "-a",                                                  Unary(|a| -a, Some(|a| a.wrapping_neg()));
    Exp      = "exp",      Float, "exp_f32(a)",                                          Unary(f32::exp, None);
    Relu     = "relu",     Same,  "select(a, T(0), a < T(0))",                           Unary(|a| if a < 0.0 { 0.0 } else { a }, Some(|a| a.max(0)));
    Abs      = "abs",      Same,  "abs(a)",                                              Unary(f32::abs, Some(|a| a.wrapping_abs()));
    Sqrt     = "sqrt",     Float, "sqrt(a)",                                             Unary(f32::sqrt, None);
    Log      = "log",      Float, "log_f32(a)",                                          Unary(f32::ln, None);
    Sigmoid  = "sigmoid",  Float, "sigmoid_f32(a)",                                      Unary(|a| if a >= 0.0 { 1.0 / (1.0 + (-a).exp()) } else { a.exp() / (1.0 + a.exp()) }, None);
    Tanh     = "tanh",     Float, "tanh_f32(a)",                                         Unary(f32::tanh, None);
    Square   = "square",   Same,  "a * a",                                               Unary(|a| a * a, Some(|a| a.wrapping_mul(a)));
    Sin      = "sin",      Float, "sincos_f32(a, false)",                                Unary(f32::sin, None);
    Cos      = "cos",      Float, "sincos_f32(a, true)",                                 Unary(f32::cos, None);
    // binary
    Add      = "add",      Same,  "a + b",                                               Binary(|a, b| a + b, Some(|a, b| a.wrapping_add(b)));
    Sub      = "sub",      Same,  "a - b",                                               Binary(|a, b| a - b, Some(|a, b| a.wrapping_sub(b)));
    Mul      = "mul",      Same,  "a * b",                                               Binary(|a, b| a * b, Some(|a, b| a.wrapping_mul(b)));
    Div      = "div",      Float, "a / b",                                               Binary(|a, b| a / b, None);
    Maximum  = "maximum",  Same,  "select(max(a, b), a + b, isnan_T(a) || isnan_T(b))",  Binary(|a, b| if a.is_nan() || b.is_nan() { f32::NAN } else { a.max(b) }, Some(|a, b| a.max(b)));
    Minimum  = "minimum",  Same,  "select(min(a, b), a + b, isnan_T(a) || isnan_T(b))",  Binary(|a, b| if a.is_nan() || b.is_nan() { f32::NAN } else { a.min(b) }, Some(|a, b| a.min(b)));
    Pow      = "pow",      Same,  "pow_T(a, b)",                                         Binary(f32::powf, Some(ipow));
    Eq       = "eq",       Bool,  "a == b",                                              Compare(|a, b| a == b, |a, b| a == b);
    Ne       = "ne",       Bool,  "a != b || isnan_T(a) || isnan_T(b)",                  Compare(|a, b| a != b, |a, b| a != b);
    Lt       = "lt",       Bool,  "a < b",                                               Compare(|a, b| a < b, |a, b| a < b);
    Le       = "le",       Bool,  "a <= b",                                              Compare(|a, b| a <= b, |a, b| a <= b);
    Gt       = "gt",       Bool,  "a > b",                                               Compare(|a, b| a > b, |a, b| a > b);
    Ge       = "ge",       Bool,  "a >= b",                                              Compare(|a, b| a >= b, |a, b| a >= b);
}

/// Integer power as PyTorch computes it for integer tensors (negative exponents give 0 unless
/// the base is ±1); the WGSL twin is `pow_i32` in `shaders/common.wgsl`.
fn ipow(a: i32, b: i32) -> i32 {
    if b < 0 {
        return match a {
            1 => 1,
            -1 => {
                if b % 2 == 0 {
                    1
                } else {
                    -1
                }
            }
            _ => 0,
        };
    }
    let (mut base, mut e, mut acc) = (a, b as u32, 1i32);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        e >>= 1;
    }
    acc
}

impl Op {
    pub fn info(self) -> &'static OpInfo {
        &TABLE[self as usize]
    }

    pub fn from_id(id: u32) -> Option<Op> {
        TABLE.get(id as usize).map(|i| i.op)
    }

    pub fn by_name(name: &str) -> Option<Op> {
        TABLE.iter().find(|i| i.name == name).map(|i| i.op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_match_table_order() {
        for (i, row) in TABLE.iter().enumerate() {
            assert_eq!(row.op as usize, i, "{}", row.name);
            assert_eq!(Op::by_name(row.name), Some(row.op));
        }
        assert_eq!(ipow(3, 4), 81);
        assert_eq!(ipow(2, -1), 0);
        assert_eq!(ipow(-1, -3), -1);
    }
}
