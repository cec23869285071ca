//! A word per object key for fast equality tests: equal keys have equal prints, and
//! different short keys nearly always differ, so a scan of prints finds a key with
//! one string comparison (the tree and binary searches they replace compared
//! strings at every step, calling `memcmp` each time).

/// Every byte of `b` (shorter than eight bytes) in one word, read with fixed-size
/// loads: two overlapping halves from four bytes, else the first, middle and last
/// bytes (which are all of them), in the low three bytes; 0 for an empty `b`. The
/// key prints and the JSON writer's escape check of short strings share it.
#[inline]
pub(crate) fn pack_short(b: &[u8]) -> u64 {
    let n = b.len();
    debug_assert!(n < 8);
    if n >= 4 {
        let head = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let tail = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
        u64::from(head) | u64::from(tail) << 32
    } else if n > 0 {
        u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16
    } else {
        0
    }
}

/// The print of `k`: its length and a few of its bytes in one word.
#[cfg(feature = "engine")]
#[inline]
pub(crate) fn key_print(k: &str) -> u64 {
    let b = k.as_bytes();
    let bytes = match b.first_chunk::<8>() {
        Some(head) => u64::from_le_bytes(*head),
        None => pack_short(b),
    };
    bytes ^ (b.len() as u64).rotate_right(8)
}

/// Whether key `a` (print `pa`) equals key `b` (print `pb`). A print holds every
/// byte of a key of up to eight bytes, and the first eight of a longer one, so keys
/// of up to sixteen bytes need one more word compared (their last eight bytes), not
/// a `memcmp` call (`apiVersion`, `namespace`, `labelSelector`…).
#[cfg(feature = "engine")]
#[inline]
pub(crate) fn same_key(pa: u64, a: &str, pb: u64, b: &str) -> bool {
    if pa != pb || a.len() != b.len() {
        return false;
    }
    let n = a.len();
    if n <= 8 {
        return true;
    }
    if n <= 16 {
        let tail = |s: &str| {
            s.as_bytes()
                .last_chunk::<8>()
                .map(|t| u64::from_le_bytes(*t))
        };
        return tail(a) == tail(b);
    }
    a == b
}

#[cfg(all(test, feature = "engine"))]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_equal_prints_and_short_keys_of_a_length_apart() {
        let keys = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "abc",
            "acb",
            "abcd",
            "abdc",
            "abcde",
            "spec",
            "status",
            "metadata",
            "metadatb",
            "metadatas",
            "abcdefgh",
            "abcdefgi",
            "hbcdefga",
            "apiVersion",
            "apiVersioN",
            "bpiVersion",
            "labelSelector",
            "labelSelectos",
            "abcdefghijklmnop",
            "abcdefghijklmnoq",
            "abcdefghijklmnopq",
            "abcdefghijklmnopr",
            "kind",
            "é",
            "日本",
        ];
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
