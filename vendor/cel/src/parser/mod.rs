#![allow(clippy::module_inception)]
#[allow(clippy::all)]
mod gen;

pub mod references;

pub use crate::common::ast::IdedExpr as Expression;

mod macros;
mod macros_ext;
mod parse;
#[allow(non_snake_case)]
mod parser;

pub use macros_ext::{ACCUMULATOR, MAP_INSERT, SORT_BY_ASSOCIATED_KEYS};
pub use parser::*;
pub use references::ExpressionReferences;
