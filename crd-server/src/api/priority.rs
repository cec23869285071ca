//! Version priority, as Kubernetes sorts API versions (discovery's preferred version,
//! the order versions are listed in).

use std::cmp::Ordering;

/// Kubernetes version priority: GA > beta > alpha, higher numbers first, then others
/// alphabetically (`version.CompareKubeAwareVersionStrings`).
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    fn parse(v: &str) -> Option<(u32, u32, u32)> {
        let rest = v.strip_prefix('v')?;
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let major: u32 = digits.parse().ok()?;
        let tail = &rest[digits.len()..];
        if tail.is_empty() {
            return Some((2, major, 0));
        }
        for (label, rank) in [("beta", 1), ("alpha", 0)] {
            if let Some(n) = tail.strip_prefix(label) {
                let minor = n.parse().ok()?;
                return Some((rank, major, minor));
            }
        }
        None
    }
    match (parse(a), parse(b)) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_like_kubernetes() {
        let mut v = vec![
            "v1alpha1", "v2beta1", "foo", "v1", "v1beta2", "v2", "v10", "bar",
        ];
        v.sort_by(|a, b| compare_versions(a, b));
        assert_eq!(
            v,
            [
                "v10", "v2", "v1", "v2beta1", "v1beta2", "v1alpha1", "bar", "foo"
            ]
        );
    }
}
