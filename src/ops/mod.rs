//! Op rules: the table of elementwise rows, and (in `crate::tensor`) the shape and dtype rules of the
//! hand-written families (reductions, matmul, views).

pub mod math;
pub mod table;

pub use table::{Op, OpInfo, ResultKind, TABLE};
