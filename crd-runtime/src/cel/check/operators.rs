//! Which operand types the comparison and arithmetic operators accept, as cel-go's
//! overloads declare them (dynamic values are accepted everywhere).

use super::{Ty, unify};

pub(super) fn equatable(a: &Ty<'_>, b: &Ty<'_>) -> bool {
    if a.is_dyn() || b.is_dyn() || a == b {
        return true;
    }
    if a.is_numeric() && b.is_numeric() {
        return true;
    }
    match (a, b) {
        // Comparing with null is allowed for everything but plain scalars.
        (Ty::Null, t) | (t, Ty::Null) => !t.is_scalar(),
        (Ty::List(_), Ty::List(_)) | (Ty::Map(_), Ty::Map(_)) => true,
        (Ty::Object(..), Ty::Object(..) | Ty::Map(_)) | (Ty::Map(_), Ty::Object(..)) => true,
        (Ty::Optional(_), Ty::Optional(_)) | (Ty::Opaque, _) | (_, Ty::Opaque) => true,
        _ => false,
    }
}

/// The element types cel-go's `sort` has an overload for.
pub(in crate::cel) fn comparable(t: &Ty<'_>) -> bool {
    matches!(
        t,
        Ty::Int
            | Ty::Uint
            | Ty::Double
            | Ty::Bool
            | Ty::Duration
            | Ty::Timestamp
            | Ty::String
            | Ty::Bytes
    )
}

pub(super) fn orderable(a: &Ty<'_>, b: &Ty<'_>) -> bool {
    if a.is_dyn() || b.is_dyn() {
        return true;
    }
    if a.is_numeric() && b.is_numeric() {
        return true;
    }
    a == b && a.is_scalar()
}

pub(super) fn arithmetic<'a>(op: &str, a: &Ty<'a>, b: &Ty<'a>) -> Option<Ty<'a>> {
    use Ty::*;
    Some(match (op, a, b) {
        // Only one `+` overload takes a string (or bytes): cel-go's checker picks it.
        ("_+_", String, Dyn) | ("_+_", Dyn, String) => String,
        ("_+_", Bytes, Dyn) | ("_+_", Dyn, Bytes) => Bytes,
        (_, Dyn, _) | (_, _, Dyn) => Dyn,
        ("_+_", List(x), List(y)) => List(Box::new(unify((**x).clone(), (**y).clone()))),
        ("_+_", String, String) => String,
        ("_+_", Bytes, Bytes) => Bytes,
        ("_+_", Timestamp, Duration) | ("_+_", Duration, Timestamp) => Timestamp,
        ("_+_" | "_-_", Duration, Duration) => Duration,
        ("_-_", Timestamp, Timestamp) => Duration,
        ("_-_", Timestamp, Duration) => Timestamp,
        ("_%_", Double, Double) => return None,
        (_, Int, Int) => Int,
        (_, Uint, Uint) => Uint,
        (_, Double, Double) => Double,
        _ => return None,
    })
}
