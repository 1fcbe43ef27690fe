//! The op table: one row per elementwise op. The WGSL kernels (`backend/webgpu/codegen.rs`), the
//! CPU reference kernels (`backend/cpu/`), `op_names()` for the TS layer and its coverage test all
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

/// The CPU reference implementation of a row, one fn per compute type; `None` means the op does
/// not exist for that type (PyTorch's "not implemented for 'Float'"), or, for `Float` rows,
/// that integers are promoted to float32 first.
#[derive(Clone, Copy)]
pub enum CpuFn {
    Unary(Option<fn(f32) -> f32>, Option<fn(i32) -> i32>),
    Binary(Option<fn(f32, f32) -> f32>, Option<fn(i32, i32) -> i32>),
    /// Unary with a bool result.
    Test(fn(f32) -> bool, fn(i32) -> bool),
    /// Binary with a bool result.
    Compare(fn(f32, f32) -> bool, fn(i32, i32) -> bool),
}

const fn f(f: fn(f32) -> f32) -> CpuFn {
    CpuFn::Unary(Some(f), None)
}
const fn fi(f: fn(f32) -> f32, i: fn(i32) -> i32) -> CpuFn {
    CpuFn::Unary(Some(f), Some(i))
}
const fn f2(f: fn(f32, f32) -> f32) -> CpuFn {
    CpuFn::Binary(Some(f), None)
}
const fn fi2(f: fn(f32, f32) -> f32, i: fn(i32, i32) -> i32) -> CpuFn {
    CpuFn::Binary(Some(f), Some(i))
}
const fn i2(i: fn(i32, i32) -> i32) -> CpuFn {
    CpuFn::Binary(None, Some(i))
}

pub struct OpInfo {
    pub op: Op,
    pub name: &'static str,
    pub kind: ResultKind,
    pub wgsl: &'static str,
    pub cpu: CpuFn,
}

impl OpInfo {
    /// Whether the row exists for this compute type (else PyTorch's "not implemented" error).
    pub fn supports(&self, c: crate::dtype::Compute) -> bool {
        if c == crate::dtype::Compute::F64 {
            return self.op.cpu_f64().is_some();
        }
        let float = c == crate::dtype::Compute::F32;
        match self.cpu {
            CpuFn::Unary(f, i) => {
                if float {
                    f.is_some()
                } else {
                    i.is_some()
                }
            }
            CpuFn::Binary(f, i) => {
                if float {
                    f.is_some()
                } else {
                    i.is_some()
                }
            }
            CpuFn::Test(..) | CpuFn::Compare(..) => true,
        }
    }

    pub fn arity(&self) -> usize {
        match self.cpu {
            CpuFn::Unary(..) | CpuFn::Test(..) => 1,
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

use super::math as m;
use CpuFn::{Compare, Test};

op_table! {
    // unary, integers keep their dtype
    Neg         = "neg",         Same,  "-a",                                    fi(|a| -a, |a| a.wrapping_neg());
    Relu        = "relu",        Same,  "select(a, T(0), a < T(0))",             fi(|a| if a < 0.0 { 0.0 } else { a }, |a| a.max(0));
    Abs         = "abs",         Same,  "abs(a)",                                fi(f32::abs, i32::wrapping_abs);
    Square      = "square",      Same,  "a * a",                                 fi(|a| a * a, |a| a.wrapping_mul(a));
    Ceil        = "ceil",        Same,  "ceil_T(a)",                             fi(f32::ceil, |a| a);
    Floor       = "floor",       Same,  "floor_T(a)",                            fi(f32::floor, |a| a);
    Round       = "round",       Same,  "round_T(a)",                            fi(f32::round_ties_even, |a| a);
    Trunc       = "trunc",       Same,  "trunc_T(a)",                            fi(f32::trunc, |a| a);
    Sign        = "sign",        Same,  "sign_T(a)",                             fi(m::sign, i32::signum);
    Positive    = "positive",    Same,  "a",                                     fi(|a| a, |a| a);
    Frac        = "frac",        Same,  "a - trunc(a)",                          f(|a| a - a.trunc());
    BitwiseNot  = "bitwise_not", Same,  "~a",                                    CpuFn::Unary(None, Some(|a| !a));
    // unary, integers promote to float32
    Exp         = "exp",         Float, "exp_f32(a)",                            f(f32::exp);
    Sqrt        = "sqrt",        Float, "sqrt(a)",                               f(f32::sqrt);
    Log         = "log",         Float, "log_f32(a)",                            f(f32::ln);
    Sigmoid     = "sigmoid",     Float, "sigmoid_f32(a)",                        f(m::sigmoid);
    Tanh        = "tanh",        Float, "tanh_f32(a)",                           f(f32::tanh);
    Sin         = "sin",         Float, "sincos_f32(a, false)",                  f(f32::sin);
    Cos         = "cos",         Float, "sincos_f32(a, true)",                   f(f32::cos);
    Tan         = "tan",         Float, "tan_f32(a)",                            f(m::tan);
    Asin        = "asin",        Float, "asin_f32(a)",                           f(|a| (a as f64).asin() as f32);
    Acos        = "acos",        Float, "acos_f32(a)",                           f(|a| (a as f64).acos() as f32);
    Atan        = "atan",        Float, "atan_f32(a)",                           f(|a| (a as f64).atan() as f32);
    Sinh        = "sinh",        Float, "sinh_f32(a)",                           f(m::sinh);
    Cosh        = "cosh",        Float, "cosh_f32(a)",                           f(m::cosh);
    Asinh       = "asinh",       Float, "asinh_f32(a)",                          f(m::asinh);
    Acosh       = "acosh",       Float, "acosh_f32(a)",                          f(m::acosh);
    Atanh       = "atanh",       Float, "atanh_f32(a)",                          f(m::atanh);
    Expm1       = "expm1",       Float, "expm1_f32(a)",                          f(m::expm1);
    Exp2        = "exp2",        Float, "exp2_f32(a)",                           f(m::exp2);
    Log1p       = "log1p",       Float, "log1p_f32(a)",                          f(m::log1p);
    Log2        = "log2",        Float, "log2_f32(a)",                           f(m::log2);
    Log10       = "log10",       Float, "log10_f32(a)",                          f(m::log10);
    Rsqrt       = "rsqrt",       Float, "rsqrt_f32(a)",                          f(m::rsqrt);
    Reciprocal  = "reciprocal",  Float, "1.0 / a",                               f(|a| 1.0 / a);
    Erf         = "erf",         Float, "erf_f32(a)",                            f(m::erf);
    Erfc        = "erfc",        Float, "erfc_f32(a)",                           f(m::erfc);
    Erfinv      = "erfinv",      Float, "erfinv_f32(a)",                         f(m::erfinv);
    Lgamma      = "lgamma",      Float, "lgamma_f32(a)",                         f(m::lgamma);
    Digamma     = "digamma",     Float, "digamma_f32(a)",                        f(m::digamma);
    Trigamma    = "trigamma",    Float, "trigamma_f32(a)",                       f(m::trigamma);
    Sinc        = "sinc",        Float, "sinc_f32(a)",                           f(m::sinc);
    Logit       = "logit",       Float, "logit_f32(a)",                          f(m::logit);
    I0          = "i0",          Float, "bessel_i_f32(0u, a, false)",            f(m::i0);
    SpecialI0e  = "special_i0e", Float, "bessel_i_f32(0u, a, true)",             f(m::i0e);
    SpecialI1   = "special_i1",  Float, "bessel_i_f32(1u, a, false)",            f(m::i1);
    SpecialI1e  = "special_i1e", Float, "bessel_i_f32(1u, a, true)",             f(m::i1e);
    Deg2rad     = "deg2rad",     Float, "a * 0.017453292519943295",              f(|a| a * (std::f32::consts::PI / 180.0));
    Rad2deg     = "rad2deg",     Float, "a * 57.29577951308232",                 f(|a| a * (180.0 / std::f32::consts::PI));
    // activations (torch.nn.functional)
    Silu        = "silu",        Float, "a * sigmoid_f32(a)",                    f(m::silu);
    Gelu        = "gelu",        Float, "gelu_f32(a)",                           f(m::gelu);
    Mish        = "mish",        Float, "a * tanh_f32(softplus_f32(a))",         f(m::mish);
    Softplus    = "softplus",    Float, "softplus_f32(a)",                       f(m::softplus);
    Logsigmoid  = "logsigmoid",  Float, "sigmoid_log_f32(a)",                    f(m::logsigmoid);
    Softsign    = "softsign",    Float, "a / (1.0 + abs(a))",                    f(|a| a / (1.0 + a.abs()));
    Tanhshrink  = "tanhshrink",  Float, "a - tanh_f32(a)",                       f(|a| a - a.tanh());
    Hardsigmoid = "hardsigmoid", Float, "hardsigmoid_f32(a)",                    f(m::hardsigmoid);
    Hardswish   = "hardswish",   Float, "a * hardsigmoid_f32(a)",                f(m::hardswish);
    Selu        = "selu",        Float, "selu_f32(a)",                           f(m::selu);
    Elu         = "elu",         Float, "elu_f32(a)",                            f(m::elu);
    Celu        = "celu",        Float, "elu_f32(a)",                            f(m::elu);
    Relu6       = "relu6",       Same,  "relu6_T(a)",                            fi(m::relu6, |a| a.clamp(0, 6));
    // unary predicates
    Isnan       = "isnan",       Bool,  "isnan_T(a)",                            Test(f32::is_nan, |_| false);
    Isinf       = "isinf",       Bool,  "isinf_T(a)",                            Test(f32::is_infinite, |_| false);
    Isfinite    = "isfinite",    Bool,  "isfinite_T(a)",                         Test(f32::is_finite, |_| true);
    Signbit     = "signbit",     Bool,  "signbit_T(a)",                          Test(f32::is_sign_negative, |a| a < 0);
    LogicalNot  = "logical_not", Bool,  "!truthy_T(a)",                          Test(|a| !m::truthy(a), |a| a == 0);
    // binary
    Add         = "add",         Same,  "a + b",                                 fi2(|a, b| a + b, i32::wrapping_add);
    Sub         = "sub",         Same,  "a - b",                                 fi2(|a, b| a - b, i32::wrapping_sub);
    Mul         = "mul",         Same,  "a * b",                                 fi2(|a, b| a * b, i32::wrapping_mul);
    Div         = "div",         Float, "a / b",                                 f2(|a, b| a / b);
    Maximum     = "maximum",     Same,  "select(max(a, b), a + b, isnan_T(a) || isnan_T(b))", fi2(|a, b| if a.is_nan() || b.is_nan() { f32::NAN } else { a.max(b) }, i32::max);
    Minimum     = "minimum",     Same,  "select(min(a, b), a + b, isnan_T(a) || isnan_T(b))", fi2(|a, b| if a.is_nan() || b.is_nan() { f32::NAN } else { a.min(b) }, i32::min);
    Pow         = "pow",         Same,  "pow_T(a, b)",                           fi2(f32::powf, ipow);
    Fmod        = "fmod",        Same,  "fmod_T(a, b)",                          fi2(m::fmod, m::fmod_i);
    Remainder   = "remainder",   Same,  "remainder_T(a, b)",                     fi2(m::remainder, m::remainder_i);
    FloorDivide = "floor_divide", Same, "floor_divide_T(a, b)",                  fi2(m::floor_divide, m::floor_divide_i);
    BitwiseAnd  = "bitwise_and", Same,  "a & b",                                 i2(|a, b| a & b);
    BitwiseOr   = "bitwise_or",  Same,  "a | b",                                 i2(|a, b| a | b);
    BitwiseXor  = "bitwise_xor", Same,  "a ^ b",                                 i2(|a, b| a ^ b);
    Atan2       = "atan2",       Float, "atan2_f32(a, b)",                       f2(m::atan2);
    Hypot       = "hypot",       Float, "hypot_f32(a, b)",                       f2(m::hypot);
    Xlogy       = "xlogy",       Float, "xlogy_f32(a, b)",                       f2(m::xlogy);
    Logaddexp   = "logaddexp",   Float, "logaddexp_f32(a, b)",                   f2(m::logaddexp);
    Logaddexp2  = "logaddexp2",  Float, "logaddexp2_f32(a, b)",                  f2(m::logaddexp2);
    Copysign    = "copysign",    Float, "copysign_f32(a, b)",                    f2(f32::copysign);
    Nextafter   = "nextafter",   Same,  "nextafter_f32(a, b)",                   f2(libm::nextafterf);
    // comparisons and logical ops (bool results)
    Eq          = "eq",          Bool,  "a == b",                                Compare(|a, b| a == b, |a, b| a == b);
    Ne          = "ne",          Bool,  "a != b || isnan_T(a) || isnan_T(b)",    Compare(|a, b| a != b, |a, b| a != b);
    Lt          = "lt",          Bool,  "a < b",                                 Compare(|a, b| a < b, |a, b| a < b);
    Le          = "le",          Bool,  "a <= b",                                Compare(|a, b| a <= b, |a, b| a <= b);
    Gt          = "gt",          Bool,  "a > b",                                 Compare(|a, b| a > b, |a, b| a > b);
    Ge          = "ge",          Bool,  "a >= b",                                Compare(|a, b| a >= b, |a, b| a >= b);
    LogicalAnd  = "logical_and", Bool,  "truthy_T(a) && truthy_T(b)",            Compare(|a, b| m::truthy(a) && m::truthy(b), |a, b| a != 0 && b != 0);
    LogicalOr   = "logical_or",  Bool,  "truthy_T(a) || truthy_T(b)",            Compare(|a, b| m::truthy(a) || m::truthy(b), |a, b| a != 0 || b != 0);
    LogicalXor  = "logical_xor", Bool,  "truthy_T(a) != truthy_T(b)",            Compare(|a, b| m::truthy(a) != m::truthy(b), |a, b| (a != 0) != (b != 0));
}

/// Which input dtypes PyTorch refuses for an op, and how it says so (the promoted input dtype
/// names the message: `"silu_cpu" not implemented for 'Int'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refuses {
    Nothing,
    /// Integers and bools: `"<kernel>" not implemented for '<dtype>'`.
    NonFloat(&'static str),
    /// Bools: `"<kernel>" not implemented for 'Bool'`.
    Bool(&'static str),
    /// Bools, with this message.
    BoolSaying(&'static str),
}

impl Op {
    /// The dtypes this op refuses (PyTorch's CPU kernels define the set and the words).
    pub fn refuses(self) -> Refuses {
        use Op::*;
        match self {
            Abs => Refuses::Bool("abs_cpu"),
            Pow => Refuses::Bool("pow"),
            Ceil => Refuses::Bool("ceil_vml_cpu"),
            Floor => Refuses::Bool("floor_vml_cpu"),
            Round => Refuses::Bool("round_vml_cpu"),
            Trunc => Refuses::Bool("trunc_vml_cpu"),
            Softsign => Refuses::Bool("abs_cpu"),
            Fmod => Refuses::Bool("fmod_cpu"),
            Remainder => Refuses::Bool("remainder_cpu"),
            FloorDivide => Refuses::Bool("div_floor_cpu"),
            Positive => Refuses::BoolSaying("The `+` operator, on a bool tensor is not supported."),
            Relu6 => Refuses::BoolSaying("Bool inputs not supported for hardtanh"),
            Tanhshrink => Refuses::BoolSaying(
                "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.",
            ),
            Silu => Refuses::NonFloat("silu_cpu"),
            Gelu => Refuses::NonFloat("GeluKernelImpl"),
            Mish => Refuses::NonFloat("mish_cpu"),
            Softplus => Refuses::NonFloat("softplus_cpu"),
            Logsigmoid => Refuses::NonFloat("log_sigmoid_cpu"),
            Hardsigmoid => Refuses::NonFloat("hardsigmoid_cpu"),
            Hardswish => Refuses::NonFloat("hardswish_cpu"),
            Selu | Elu | Celu => Refuses::NonFloat("elu_cpu"),
            Hypot => Refuses::NonFloat("hypot_cpu"),
            Logaddexp => Refuses::NonFloat("logaddexp_cpu"),
            Logaddexp2 => Refuses::NonFloat("logaddexp2_cpu"),
            _ => Refuses::Nothing,
        }
    }
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

/// The CPU's float64 implementation of a row (the WebGPU backend has no float64). Only the
/// rows below exist in float64; the others raise PyTorch's "not implemented for 'Double'".
#[derive(Clone, Copy)]
pub enum F64Fn {
    Unary(fn(f64) -> f64),
    Binary(fn(f64, f64) -> f64),
    Test(fn(f64) -> bool),
    Compare(fn(f64, f64) -> bool),
}

impl Op {
    pub fn cpu_f64(self) -> Option<F64Fn> {
        use F64Fn::{Binary as B, Compare as C, Test as T, Unary as U};
        use Op::*;
        Some(match self {
            Neg => U(|a| -a),
            Relu => U(|a| if a < 0.0 { 0.0 } else { a }),
            Abs => U(f64::abs),
            Square => U(|a| a * a),
            Ceil => U(f64::ceil),
            Floor => U(f64::floor),
            Round => U(f64::round_ties_even),
            Trunc => U(f64::trunc),
            Sign => U(|a| {
                if a > 0.0 {
                    1.0
                } else if a < 0.0 {
                    -1.0
                } else if a.is_nan() {
                    0.0
                } else {
                    a
                }
            }),
            Positive => U(|a| a),
            Frac => U(|a| a - a.trunc()),
            Exp => U(f64::exp),
            Sqrt => U(f64::sqrt),
            Log => U(f64::ln),
            Sigmoid => U(m::sigmoid64),
            Tanh => U(f64::tanh),
            Sin => U(f64::sin),
            Cos => U(f64::cos),
            Tan => U(f64::tan),
            Asin => U(f64::asin),
            Acos => U(f64::acos),
            Atan => U(f64::atan),
            Sinh => U(f64::sinh),
            Cosh => U(f64::cosh),
            Asinh => U(libm::asinh),
            Acosh => U(libm::acosh),
            Atanh => U(libm::atanh),
            Expm1 => U(f64::exp_m1),
            Exp2 => U(f64::exp2),
            Log1p => U(f64::ln_1p),
            Log2 => U(f64::log2),
            Log10 => U(f64::log10),
            Rsqrt => U(|a| 1.0 / a.sqrt()),
            Reciprocal => U(|a| 1.0 / a),
            Erf => U(libm::erf),
            Erfc => U(libm::erfc),
            Deg2rad => U(|a| a * (std::f64::consts::PI / 180.0)),
            Rad2deg => U(|a| a * (180.0 / std::f64::consts::PI)),
            Silu => U(|a| a * m::sigmoid64(a)),
            Logsigmoid => U(|x| if x >= 0.0 { -(-x).exp().ln_1p() } else { x - x.exp().ln_1p() }),
            Softsign => U(|a| a / (1.0 + a.abs())),
            Gelu => U(|x| 0.5 * x * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2))),
            Softplus => U(m::softplus64),
            Mish => U(|x| x * m::softplus64(x).tanh()),
            Elu | Celu => U(m::elu64),
            Selu => U(|x| 1.0507009873554805 * if x > 0.0 || x.is_nan() { x } else { 1.6732632423543772 * x.exp_m1() }),
            Relu6 => U(m::relu6_64),
            Hardsigmoid => U(|x| m::relu6_64(x + 3.0) / 6.0),
            Hardswish => U(|x| x * m::relu6_64(x + 3.0) / 6.0),
            Logit => U(|x| (x / (1.0 - x)).ln()),
            Sinc => U(|x| if x == 0.0 { 1.0 } else { (std::f64::consts::PI * x).sin() / (std::f64::consts::PI * x) }),
            Tanhshrink => U(|a| a - a.tanh()),
            Isnan => T(f64::is_nan),
            Isinf => T(f64::is_infinite),
            Isfinite => T(f64::is_finite),
            Signbit => T(f64::is_sign_negative),
            LogicalNot => T(|a| a == 0.0),
            Add => B(|a, b| a + b),
            Sub => B(|a, b| a - b),
            Mul => B(|a, b| a * b),
            Div => B(|a, b| a / b),
            Maximum => B(|a, b| if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }),
            Minimum => B(|a, b| if a.is_nan() || b.is_nan() { f64::NAN } else { a.min(b) }),
            Pow => B(f64::powf),
            Fmod => B(|a, b| a % b),
            Remainder => B(m::remainder64),
            FloorDivide => B(m::floor_divide64),
            Logaddexp => B(|a, b| m::logaddexp64(a, b, false)),
            Logaddexp2 => B(|a, b| m::logaddexp64(a, b, true)),
            Atan2 => B(f64::atan2),
            Hypot => B(f64::hypot),
            Copysign => B(f64::copysign),
            Nextafter => B(libm::nextafter),
            Xlogy => B(|x, y| {
                if y.is_nan() {
                    y
                } else if x == 0.0 {
                    0.0
                } else {
                    x * y.ln()
                }
            }),
            Eq => C(|a, b| a == b),
            Ne => C(|a, b| a != b),
            Lt => C(|a, b| a < b),
            Le => C(|a, b| a <= b),
            Gt => C(|a, b| a > b),
            Ge => C(|a, b| a >= b),
            LogicalAnd => C(|a, b| a != 0.0 && b != 0.0),
            LogicalOr => C(|a, b| a != 0.0 || b != 0.0),
            LogicalXor => C(|a, b| (a != 0.0) != (b != 0.0)),
            _ => return None,
        })
    }

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
