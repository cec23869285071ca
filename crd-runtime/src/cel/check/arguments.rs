//! Argument types of Kubernetes library functions the checker refuses as cel-go
//! does (`found no matching overload`): its lists library only over comparable
//! (`min`, `max`, `isSorted`) or summable (`sum`) elements, and the validators
//! (`isURL`, `isIP`, `isCIDR`, `isSemver`, `isQuantity`) only on strings.

use super::{Ty, comparable};

/// Whether a list of `elem` has an overload of `name` (apiserver `library/lists.go`).
pub(super) fn list_elements_fit(name: &str, elem: &Ty<'_>) -> bool {
    if elem.is_dyn() {
        return true;
    }
    if name == "sum" {
        matches!(elem, Ty::Int | Ty::Uint | Ty::Double | Ty::Duration)
    } else {
        comparable(elem)
    }
}

/// Whether `args` fit the validator `name` (`isSemver` also takes a bool: normalize).
pub(super) fn validator_args(name: &str, args: &[Ty<'_>]) -> bool {
    let string = |t: &Ty<'_>| matches!(t, Ty::String | Ty::Dyn);
    match args {
        [s] => string(s),
        [s, b] if name == "isSemver" => string(s) && matches!(b, Ty::Bool | Ty::Dyn),
        _ => false,
    }
}

/// cel-go's message for a global call with no overload for `args`.
pub(super) fn no_overload(name: &str, args: &[Ty<'_>]) -> String {
    let names: Vec<String> = args.iter().map(|t| t.name()).collect();
    format!(
        "found no matching overload for '{name}' applied to '({})'",
        names.join(", ")
    )
}
