//! kube-rs interop (feature `kube`): derived roots implement `kube::Resource`,
//! `kube::core::object::HasSpec` and (with a status) `HasStatus`, so that
//! `kube::Api::<CronTab>` works with no glue code.
//!
//! The derive cannot test `#[cfg(feature = "kube")]` itself: the code it emits is compiled
//! in the *user's* crate, where crd-runtime's features are invisible. It therefore calls
//! [`__impl_kube!`](crate::__impl_kube), whose definition depends on crd-runtime's own
//! feature: the impls with `kube`, nothing without. kube and k8s-openapi are re-exported as
//! `crd_runtime::__private::{kube, k8s_openapi}` so the impls name the very versions
//! crd-runtime was built with.
//!
//! k8s-openapi requires the final crate (the binary, or the package whose tests run) to pick
//! the Kubernetes version: add `k8s-openapi = { version = "0.29", features = ["latest"] }`
//! (or `v1_3x`) there, as kube's own documentation asks.

/// Implements kube's traits for a derived root (feature `kube`). Not a public API.
#[cfg(feature = "kube")]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_kube {
    (root = $root:ty, spec = $spec:ty, scope = $scope:ident $(, status = $status:ty)? $(,)?) => {
        #[automatically_derived]
        impl $crate::__private::kube::Resource for $root {
            type DynamicType = ();
            type Scope = $crate::__private::kube::core::$scope;

            fn kind(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(<Self as $crate::CustomResourceExt>::KIND)
            }
            fn group(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(<Self as $crate::CustomResourceExt>::GROUP)
            }
            fn version(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(<Self as $crate::CustomResourceExt>::VERSION)
            }
            fn api_version(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(<Self as $crate::CustomResourceExt>::API_VERSION)
            }
            fn plural(_: &()) -> ::std::borrow::Cow<'_, str> {
                ::std::borrow::Cow::Borrowed(<Self as $crate::CustomResourceExt>::PLURAL)
            }
            fn meta(&self) -> &$crate::meta::ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut $crate::meta::ObjectMeta {
                &mut self.metadata
            }
        }

        #[automatically_derived]
        impl $crate::__private::kube::core::object::HasSpec for $root {
            type Spec = $spec;
            fn spec(&self) -> &$spec {
                &self.spec
            }
            fn spec_mut(&mut self) -> &mut $spec {
                &mut self.spec
            }
        }

        $(
            #[automatically_derived]
            impl $crate::__private::kube::core::object::HasStatus for $root {
                type Status = $status;
                fn status(&self) -> ::core::option::Option<&$status> {
                    self.status.as_ref()
                }
                fn status_mut(&mut self) -> &mut ::core::option::Option<$status> {
                    &mut self.status
                }
            }
        )?
    };
}

/// Without the `kube` feature derived roots get no kube impls. Not a public API.
#[cfg(not(feature = "kube"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __impl_kube {
    ($($input:tt)*) => {};
}
