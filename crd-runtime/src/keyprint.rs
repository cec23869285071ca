//! Key lookups in small maps without a string comparison per step. A print is a word
//! per key: equal keys have equal prints, and different short keys nearly always
//! differ, so a scan of prints finds a key with one string comparison at most (the
//! tree and binary searches they replace compared strings at every step, calling
//! `memcmp` each time); [`get`] scans a small map comparing lengths first.

use serde_json::{Map, Value};

/// The print of `k`: its length and a few of its bytes in one word.
#[inline]
pub(crate) fn key_print(k: &str) -> u64 {
    let b = k.as_bytes();
    let n = b.len();
    let bytes = if let Some(head) = b.first_chunk::<8>() {
        u64::from_le_bytes(*head)
    } else if n >= 4 {
        let head = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let tail = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
        u64::from(head) | u64::from(tail) << 32
    } else if n > 0 {
        u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16
    } else {
        0
    };
    bytes ^ (n as u64).rotate_right(8)
}

/// Whether key `a` (print `pa`) equals key `b` (print `pb`). A print holds every
/// byte of a key of up to eight bytes, so keys that short need no string comparison
/// (and no `memcmp` call).
#[inline]
pub(crate) fn same_key(pa: u64, a: &str, pb: u64, b: &str) -> bool {
    pa == pb && a.len() == b.len() && (a.len() <= 8 || a == b)
}

/// Maps this small are searched entry by entry ([`get`], [`get_mut`]).
const SCAN: usize = 8;

/// `map.get(key)` for the few entries of an object's root: entries are compared by
/// length first, so only a key of the same length costs a string comparison (the
/// tree search calls `memcmp` at every step).
#[inline]
pub(crate) fn get<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() > SCAN {
        return map.get(key);
    }
    map.iter()
        .find(|(k, _)| k.len() == key.len() && k.as_str() == key)
        .map(|(_, v)| v)
}

/// [`get`], mutable.
#[inline]
pub(crate) fn get_mut<'a>(map: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Value> {
    if map.len() > SCAN {
        return map.get_mut(key);
    }
    map.iter_mut()
        .find(|(k, _)| k.len() == key.len() && k.as_str() == key)
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_maps_answer_as_their_own_lookups() {
        for n in [0, 1, 5, 8, 9, 30] {
            let mut map: Map<String, Value> =
                (0..n).map(|i| (format!("k{i}"), Value::from(i))).collect();
            for key in ["k0", "k4", "k8", "k29", "k", "", "kk"] {
                assert_eq!(get(&map, key), map.get(key), "{n} {key}");
                let want = map.get(key).cloned();
                assert_eq!(get_mut(&mut map, key).map(|v| v.clone()), want);
            }
        }
    }

    #[test]
    fn equal_keys_equal_prints_and_short_keys_of_a_length_apart() {
        let keys = ["", "a", "b", "ab", "ba", "abc", "acb", "abcd", "abdc", "abcde", "spec",
            "status", "metadata", "metadatb", "metadatas", "abcdefgh", "abcdefgi", "hbcdefga", "apiVersion", "kind", "é", "日本"];
        for a in keys {
            assert_eq!(key_print(a), key_print(&a.to_string()));
            for b in keys {
                let same = same_key(key_print(a), a, key_print(b), b);
                assert_eq!(same, a == b, "{a} {b}");
                if a != b && a.len() == b.len() && a.len() <= 8 {
                    assert_ne!(key_print(a), key_print(b), "{a} {b}");
                }
            }
        }
    }
}
