//! The op table: one row per elementwise op. The WGSL kernels (`backend/webgpu/codegen.rs`), the
//! CPU reference kernels (`backend/cpu/`), `op_names()` for the TS layer and its coverage test all
//! come from these rows. Adding an op is one row here, one TS function/method, one fixture entry.
//!
//! Columns: variant, torch name, result kind, WGSL expression, CPU kernels (`CpuFn`: the float
//! pair, f32 and f64 from one definition, and the integer fn). In WGSL, `a`/`b` are the operands
//! in the compute type `T` (`f32` or `i32`); `T` in an expression is replaced by that type. An
//! integer fn of `None` means integer inputs are promoted to float32 first (PyTorch's
//! `exp(int) -> float`). float64 (CPU-only) runs the f64 kernel of the same row.

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

/// A row's CPU kernel at one width: `fn(T) -> T` for a unary row, `fn(T, T) -> T` for a binary one.
pub type Un<T> = fn(T) -> T;
pub type Bin<T> = fn(T, T) -> T;
/// A bool-valued kernel: unary (`Test` rows) and binary (`Compare` rows).
pub type Pred<T> = fn(T) -> bool;
pub type Cmp<T> = fn(T, T) -> bool;

/// The CPU reference implementation of a row, per compute type: f32, i32 and f64 (float64 is a
/// CPU-only dtype). The float kernels come in pairs (`same!`, `wide!`, `pred!`), so that a row
/// has both float widths or neither; `None` means the op does not exist for that type (PyTorch's
/// "not implemented for 'Float'"), or, for an integer fn of a `Float` row, that integers are
/// promoted to float32 first.
#[derive(Clone, Copy)]
pub enum CpuFn {
    Unary(Option<Un<f32>>, Option<Un<i32>>, Option<Un<f64>>),
    Binary(Option<Bin<f32>>, Option<Bin<i32>>, Option<Bin<f64>>),
    /// Unary with a bool result.
    Test(Pred<f32>, Pred<i32>, Pred<f64>),
    /// Binary with a bool result.
    Compare(Cmp<f32>, Cmp<i32>, Cmp<f64>),
}

/// One float expression as the row's f32 and f64 kernels: `same!(a => a * a)`,
/// `same!(a, b => a + b)`.
macro_rules! same {
    ($a:ident => $e:expr) => {{
        fn f32_($a: f32) -> f32 {
            $e
        }
        fn f64_($a: f64) -> f64 {
            $e
        }
        (f32_ as Un<f32>, f64_ as Un<f64>)
    }};
    ($a:ident, $b:ident => $e:expr) => {{
        fn f32_($a: f32, $b: f32) -> f32 {
            $e
        }
        fn f64_($a: f64, $b: f64) -> f64 {
            $e
        }
        (f32_ as Bin<f32>, f64_ as Bin<f64>)
    }};
}

/// An f64 function as the row's f64 kernel, and its value rounded to f32 as the f32 kernel.
macro_rules! wide {
    ($f:path) => {{
        fn f32_(a: f32) -> f32 {
            $f(a as f64) as f32
        }
        (f32_ as Un<f32>, $f as Un<f64>)
    }};
    ($f:path, 2) => {{
        fn f32_(a: f32, b: f32) -> f32 {
            $f(a as f64, b as f64) as f32
        }
        (f32_ as Bin<f32>, $f as Bin<f64>)
    }};
}

/// One bool-valued float expression at both widths: `pred!(a => a.is_nan())`, `pred!(a, b => a < b)`.
macro_rules! pred {
    ($a:ident => $e:expr) => {{
        fn f32_($a: f32) -> bool {
            $e
        }
        fn f64_($a: f64) -> bool {
            $e
        }
        (f32_ as Pred<f32>, f64_ as Pred<f64>)
    }};
    ($a:ident, $b:ident => $e:expr) => {{
        fn f32_($a: f32, $b: f32) -> bool {
            $e
        }
        fn f64_($a: f64, $b: f64) -> bool {
            $e
        }
        (f32_ as Cmp<f32>, f64_ as Cmp<f64>)
    }};
}

const fn f(p: (Un<f32>, Un<f64>)) -> CpuFn {
    CpuFn::Unary(Some(p.0), None, Some(p.1))
}
const fn fi(p: (Un<f32>, Un<f64>), i: Un<i32>) -> CpuFn {
    CpuFn::Unary(Some(p.0), Some(i), Some(p.1))
}
const fn f2(p: (Bin<f32>, Bin<f64>)) -> CpuFn {
    CpuFn::Binary(Some(p.0), None, Some(p.1))
}
const fn fi2(p: (Bin<f32>, Bin<f64>), i: Bin<i32>) -> CpuFn {
    CpuFn::Binary(Some(p.0), Some(i), Some(p.1))
}
/// Integer-only rows (the bitwise ops: PyTorch defines them for integers and bools alone).
const fn i1(i: Un<i32>) -> CpuFn {
    CpuFn::Unary(None, Some(i), None)
}
const fn i2(i: Bin<i32>) -> CpuFn {
    CpuFn::Binary(None, Some(i), None)
}
const fn test(p: (Pred<f32>, Pred<f64>), i: Pred<i32>) -> CpuFn {
    CpuFn::Test(p.0, i, p.1)
}
const fn compare(p: (Cmp<f32>, Cmp<f64>), i: Cmp<i32>) -> CpuFn {
    CpuFn::Compare(p.0, i, p.1)
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
        use crate::dtype::Compute;
        match self.cpu {
            CpuFn::Unary(f, i, d) => match c {
                Compute::F32 => f.is_some(),
                Compute::F64 => d.is_some(),
                _ => i.is_some(),
            },
            CpuFn::Binary(f, i, d) => match c {
                Compute::F32 => f.is_some(),
                Compute::F64 => d.is_some(),
                _ => i.is_some(),
            },
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

op_table! {
    // unary, integers keep their dtype
    Neg         = "neg",         Same,  "-a",                                    fi(same!(a => -a), |a| a.wrapping_neg());
    Relu        = "relu",        Same,  "select(a, T(0), a < T(0))",             fi(same!(a => if a < 0.0 { 0.0 } else { a }), |a| a.max(0));
    Abs         = "abs",         Same,  "abs(a)",                                fi(same!(a => a.abs()), i32::wrapping_abs);
    Square      = "square",      Same,  "a * a",                                 fi(same!(a => a * a), |a| a.wrapping_mul(a));
    Ceil        = "ceil",        Same,  "ceil_T(a)",                             fi(same!(a => a.ceil()), |a| a);
    Floor       = "floor",       Same,  "floor_T(a)",                            fi(same!(a => a.floor()), |a| a);
    Round       = "round",       Same,  "round_T(a)",                            fi(same!(a => a.round_ties_even()), |a| a);
    Trunc       = "trunc",       Same,  "trunc_T(a)",                            fi(same!(a => a.trunc()), |a| a);
    Sign        = "sign",        Same,  "sign_T(a)",                             fi((m::sign, m::sign64), i32::signum);
    Positive    = "positive",    Same,  "a",                                     fi(same!(a => a), |a| a);
    Frac        = "frac",        Same,  "a - trunc(a)",                          f(same!(a => a - a.trunc()));
    BitwiseNot  = "bitwise_not", Same,  "~a",                                    i1(|a| !a);
    // unary, integers promote to float32
    Exp         = "exp",         Float, "exp_f32(a)",                            f(same!(a => a.exp()));
    Sqrt        = "sqrt",        Float, "sqrt(a)",                               f(same!(a => a.sqrt()));
    Log         = "log",         Float, "log_f32(a)",                            f(same!(a => a.ln()));
    Sigmoid     = "sigmoid",     Float, "sigmoid_f32(a)",                        f(wide!(m::sigmoid));
    Tanh        = "tanh",        Float, "tanh_f32(a)",                           f(same!(a => a.tanh()));
    Sin         = "sin",         Float, "sincos_f32(a, false)",                  f(same!(a => a.sin()));
    Cos         = "cos",         Float, "sincos_f32(a, true)",                   f(same!(a => a.cos()));
    Tan         = "tan",         Float, "tan_f32(a)",                            f(wide!(f64::tan));
    Asin        = "asin",        Float, "asin_f32(a)",                           f(wide!(f64::asin));
    Acos        = "acos",        Float, "acos_f32(a)",                           f(wide!(f64::acos));
    Atan        = "atan",        Float, "atan_f32(a)",                           f(wide!(f64::atan));
    Sinh        = "sinh",        Float, "sinh_f32(a)",                           f(wide!(f64::sinh));
    Cosh        = "cosh",        Float, "cosh_f32(a)",                           f(wide!(f64::cosh));
    Asinh       = "asinh",       Float, "asinh_f32(a)",                          f(wide!(libm::asinh));
    Acosh       = "acosh",       Float, "acosh_f32(a)",                          f(wide!(libm::acosh));
    Atanh       = "atanh",       Float, "atanh_f32(a)",                          f(wide!(libm::atanh));
    Expm1       = "expm1",       Float, "expm1_f32(a)",                          f(wide!(f64::exp_m1));
    Exp2        = "exp2",        Float, "exp2_f32(a)",                           f(wide!(f64::exp2));
    Log1p       = "log1p",       Float, "log1p_f32(a)",                          f(wide!(f64::ln_1p));
    Log2        = "log2",        Float, "log2_f32(a)",                           f(wide!(f64::log2));
    Log10       = "log10",       Float, "log10_f32(a)",                          f(wide!(f64::log10));
    Rsqrt       = "rsqrt",       Float, "rsqrt_f32(a)",                          f(wide!(m::rsqrt));
    Reciprocal  = "reciprocal",  Float, "1.0 / a",                               f(same!(a => 1.0 / a));
    Erf         = "erf",         Float, "erf_f32(a)",                            f(wide!(libm::erf));
    Erfc        = "erfc",        Float, "erfc_f32(a)",                           f(wide!(libm::erfc));
    Erfinv      = "erfinv",      Float, "erfinv_f32(a)",                         f(wide!(m::erfinv));
    Lgamma      = "lgamma",      Float, "lgamma_f32(a)",                         f(wide!(libm::lgamma));
    Digamma     = "digamma",     Float, "digamma_f32(a)",                        f(wide!(m::digamma));
    Trigamma    = "trigamma",    Float, "trigamma_f32(a)",                       f((m::trigamma32, m::trigamma));
    Sinc        = "sinc",        Float, "sinc_f32(a)",                           f(wide!(m::sinc));
    Logit       = "logit",       Float, "logit_f32(a)",                          f(wide!(m::logit));
    I0          = "i0",          Float, "bessel_i_f32(0u, a, false)",            f(wide!(m::i0));
    SpecialI0e  = "special_i0e", Float, "bessel_i_f32(0u, a, true)",             f(wide!(m::i0e));
    SpecialI1   = "special_i1",  Float, "bessel_i_f32(1u, a, false)",            f(wide!(m::i1));
    SpecialI1e  = "special_i1e", Float, "bessel_i_f32(1u, a, true)",             f(wide!(m::i1e));
    Deg2rad     = "deg2rad",     Float, "a * 0.017453292519943295",              f(same!(a => a.to_radians()));
    Rad2deg     = "rad2deg",     Float, "a * 57.29577951308232",                 f(same!(a => a.to_degrees()));
    // activations (torch.nn.functional)
    Silu        = "silu",        Float, "a * sigmoid_f32(a)",                    f(wide!(m::silu));
    Gelu        = "gelu",        Float, "gelu_f32(a)",                           f(wide!(m::gelu));
    Mish        = "mish",        Float, "a * tanh_f32(softplus_f32(a))",         f(wide!(m::mish));
    Softplus    = "softplus",    Float, "softplus_f32(a)",                       f(wide!(m::softplus));
    Logsigmoid  = "logsigmoid",  Float, "sigmoid_log_f32(a)",                    f(wide!(m::logsigmoid));
    Softsign    = "softsign",    Float, "a / (1.0 + abs(a))",                    f(same!(a => a / (1.0 + a.abs())));
    Tanhshrink  = "tanhshrink",  Float, "a - tanh_f32(a)",                       f(same!(a => a - a.tanh()));
    Hardsigmoid = "hardsigmoid", Float, "hardsigmoid_f32(a)",                    f((m::hardsigmoid, m::hardsigmoid64));
    Hardswish   = "hardswish",   Float, "a * hardsigmoid_f32(a)",                f((m::hardswish, m::hardswish64));
    Selu        = "selu",        Float, "selu_f32(a)",                           f(wide!(m::selu));
    Elu         = "elu",         Float, "elu_f32(a)",                            f(wide!(m::elu));
    Celu        = "celu",        Float, "elu_f32(a)",                            f(wide!(m::elu));
    Relu6       = "relu6",       Same,  "relu6_T(a)",                            fi((m::relu6, m::relu6_64), |a| a.clamp(0, 6));
    // unary predicates
    Isnan       = "isnan",       Bool,  "isnan_T(a)",                            test(pred!(a => a.is_nan()), |_| false);
    Isinf       = "isinf",       Bool,  "isinf_T(a)",                            test(pred!(a => a.is_infinite()), |_| false);
    Isfinite    = "isfinite",    Bool,  "isfinite_T(a)",                         test(pred!(a => a.is_finite()), |_| true);
    Signbit     = "signbit",     Bool,  "signbit_T(a)",                          test(pred!(a => a.is_sign_negative()), |a| a < 0);
    LogicalNot  = "logical_not", Bool,  "!truthy_T(a)",                          test(pred!(a => a == 0.0), |a| a == 0);
    // binary
    Add         = "add",         Same,  "a + b",                                 fi2(same!(a, b => a + b), i32::wrapping_add);
    Sub         = "sub",         Same,  "a - b",                                 fi2(same!(a, b => a - b), i32::wrapping_sub);
    Mul         = "mul",         Same,  "a * b",                                 fi2(same!(a, b => a * b), i32::wrapping_mul);
    Div         = "div",         Float, "a / b",                                 f2(same!(a, b => a / b));
    Maximum     = "maximum",     Same,  "select(max(a, b), a + b, isnan_T(a) || isnan_T(b))", fi2((m::maximum, m::maximum64), i32::max);
    Minimum     = "minimum",     Same,  "select(min(a, b), a + b, isnan_T(a) || isnan_T(b))", fi2((m::minimum, m::minimum64), i32::min);
    Pow         = "pow",         Same,  "pow_T(a, b)",                           fi2(same!(a, b => a.powf(b)), ipow);
    Fmod        = "fmod",        Same,  "fmod_T(a, b)",                          fi2(same!(a, b => a % b), m::fmod_i);
    Remainder   = "remainder",   Same,  "remainder_T(a, b)",                     fi2((m::remainder, m::remainder64), m::remainder_i);
    FloorDivide = "floor_divide", Same, "floor_divide_T(a, b)",                  fi2((m::floor_divide, m::floor_divide64), m::floor_divide_i);
    BitwiseAnd  = "bitwise_and", Same,  "a & b",                                 i2(|a, b| a & b);
    BitwiseOr   = "bitwise_or",  Same,  "a | b",                                 i2(|a, b| a | b);
    BitwiseXor  = "bitwise_xor", Same,  "a ^ b",                                 i2(|a, b| a ^ b);
    Atan2       = "atan2",       Float, "atan2_f32(a, b)",                       f2(wide!(f64::atan2, 2));
    Hypot       = "hypot",       Float, "hypot_f32(a, b)",                       f2(wide!(f64::hypot, 2));
    Xlogy       = "xlogy",       Float, "xlogy_f32(a, b)",                       f2(wide!(m::xlogy, 2));
    Logaddexp   = "logaddexp",   Float, "logaddexp_f32(a, b)",                   f2(wide!(m::logaddexp, 2));
    Logaddexp2  = "logaddexp2",  Float, "logaddexp2_f32(a, b)",                  f2(wide!(m::logaddexp2, 2));
    Copysign    = "copysign",    Float, "copysign_f32(a, b)",                    f2(same!(a, b => a.copysign(b)));
    // Each width steps to its own neighbour: the f32 kernel is not the f64 one rounded.
    Nextafter   = "nextafter",   Same,  "nextafter_f32(a, b)",                   f2((libm::nextafterf as Bin<f32>, libm::nextafter as Bin<f64>));
    // comparisons and logical ops (bool results)
    Eq          = "eq",          Bool,  "a == b",                                compare(pred!(a, b => a == b), |a, b| a == b);
    Ne          = "ne",          Bool,  "a != b || isnan_T(a) || isnan_T(b)",    compare(pred!(a, b => a != b), |a, b| a != b);
    Lt          = "lt",          Bool,  "a < b",                                 compare(pred!(a, b => a < b), |a, b| a < b);
    Le          = "le",          Bool,  "a <= b",                                compare(pred!(a, b => a <= b), |a, b| a <= b);
    Gt          = "gt",          Bool,  "a > b",                                 compare(pred!(a, b => a > b), |a, b| a > b);
    Ge          = "ge",          Bool,  "a >= b",                                compare(pred!(a, b => a >= b), |a, b| a >= b);
    LogicalAnd  = "logical_and", Bool,  "truthy_T(a) && truthy_T(b)",            compare(pred!(a, b => a != 0.0 && b != 0.0), |a, b| a != 0 && b != 0);
    LogicalOr   = "logical_or",  Bool,  "truthy_T(a) || truthy_T(b)",            compare(pred!(a, b => a != 0.0 || b != 0.0), |a, b| a != 0 || b != 0);
    LogicalXor  = "logical_xor", Bool,  "truthy_T(a) != truthy_T(b)",            compare(pred!(a, b => (a != 0.0) != (b != 0.0)), |a, b| (a != 0) != (b != 0));
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

    /// The rows without float kernels, and why: PyTorch defines the bitwise ops for integers and
    /// bools alone ("bitwise_and_cpu" not implemented for 'Float' / 'Double').
    const INTEGER_ONLY: &[Op] = &[Op::BitwiseNot, Op::BitwiseAnd, Op::BitwiseOr, Op::BitwiseXor];

    #[test]
    fn f64_kernel_beside_every_f32_kernel() {
        use crate::dtype::Compute;
        for row in TABLE {
            let (f32_, f64_) = (row.supports(Compute::F32), row.supports(Compute::F64));
            assert_eq!(f32_, f64_, "{}: a float32 kernel and a float64 kernel come together", row.name);
            assert_eq!(
                !f32_,
                INTEGER_ONLY.contains(&row.op),
                "{}: listed as integer-only exactly when it has no float kernel",
                row.name
            );
        }
    }
}
