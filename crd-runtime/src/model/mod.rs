//! The typed CRD model (`apiextensions.k8s.io/v1`), plus the v1beta1 reader.

mod crd;
mod either;
mod grow;
mod preexisting;
mod schema;
mod schema_traits;
mod v1beta1;

pub use crd::*;
pub use preexisting::PreexistingExpressions;
pub use schema::*;
pub use v1beta1::CustomResourceDefinitionV1Beta1;
