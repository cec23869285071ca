//! Lazily rendered field paths.
//!
//! The walkers keep a parent-linked path on the stack and only render it to a
//! string when something is reported, so the happy path allocates nothing.

use crate::field::Path;

/// One step of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg<'a> {
    /// A specified property (`.name`).
    Field(&'a str),
    /// A key of an `additionalProperties` map.
    Key(&'a str),
    /// A list index (`[i]`).
    Index(usize),
}

/// A path to the current value: the parent chain lives on the caller's stack.
#[derive(Clone, Copy, Debug)]
pub struct PathRef<'a> {
    parent: Option<&'a PathRef<'a>>,
    seg: Option<Seg<'a>>,
    depth: usize,
}

impl<'a> PathRef<'a> {
    /// The root of a value.
    pub const fn root() -> PathRef<'static> {
        PathRef {
            parent: None,
            seg: None,
            depth: 0,
        }
    }

    /// A child of `self`.
    pub fn push(&'a self, seg: Seg<'a>) -> PathRef<'a> {
        PathRef {
            parent: Some(self),
            seg: Some(seg),
            depth: self.depth + 1,
        }
    }

    /// `self.name`.
    pub fn field(&'a self, name: &'a str) -> PathRef<'a> {
        self.push(Seg::Field(name))
    }

    /// `self[key]` (a map key).
    pub fn key(&'a self, key: &'a str) -> PathRef<'a> {
        self.push(Seg::Key(key))
    }

    /// `self[i]`.
    pub fn index(&'a self, i: usize) -> PathRef<'a> {
        self.push(Seg::Index(i))
    }

    /// Nesting depth (0 at the root).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The steps from the root to here.
    pub fn segments(&self) -> Vec<Seg<'a>> {
        let mut out = Vec::with_capacity(self.depth);
        let mut cur = Some(self);
        while let Some(p) = cur {
            if let Some(s) = p.seg {
                out.push(s);
            }
            cur = p.parent;
        }
        out.reverse();
        out
    }

    /// The name kube-openapi gives this value: keys and map keys joined with `.`,
    /// indexes in brackets. A map key directly below the root keeps its leading
    /// dot (`.key`), as kube-openapi writes it; [`PathRef::field_path`] trims it.
    pub fn openapi_name(&self) -> String {
        self.joined(true)
    }

    /// Names and keys joined with `.` (keys always after a dot with `dotted_keys`),
    /// indexes in brackets.
    fn joined(&self, dotted_keys: bool) -> String {
        let mut s = String::new();
        self.join_into(&mut s, dotted_keys);
        s
    }

    /// Appends the segments to `s`, root first (no vector of them on the way).
    fn join_into(&self, s: &mut String, dotted_keys: bool) {
        if let Some(parent) = self.parent {
            parent.join_into(s, dotted_keys);
        }
        let Some(seg) = self.seg else { return };
        let dot = dotted_keys && matches!(seg, Seg::Key(_));
        match seg {
            Seg::Field(name) | Seg::Key(name) => {
                if dot || !s.is_empty() {
                    s.push('.');
                }
                s.push_str(name);
            }
            Seg::Index(i) => {
                use std::fmt::Write;
                // Writing to a String cannot fail.
                let _ = write!(s, "[{i}]");
            }
        }
    }

    /// The API server's field path for a schema error (the kube-openapi name
    /// without a leading dot).
    pub fn field_path(&self) -> Path {
        Self::field_path_of(self.openapi_name())
    }

    /// [`PathRef::field_path`] from the [`PathRef::openapi_name`] a message built.
    pub fn field_path_of(mut openapi_name: String) -> Path {
        if openapi_name.starts_with('.') {
            openapi_name.remove(0);
        }
        Path::from(openapi_name)
    }

    /// An apimachinery `field.Path`: map keys in brackets (`labels[app]`).
    pub fn k8s_path(&self) -> Path {
        let mut p = Path::root();
        for seg in self.segments() {
            p = match seg {
                Seg::Field(name) => p.child(name),
                Seg::Key(key) => p.key(key),
                Seg::Index(i) => p.index(i),
            };
        }
        p
    }

    /// The pruning report's form: `a.b`, `[1].b`, `array[2].c`.
    pub fn pruned_path(&self) -> String {
        self.joined(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_each_style() {
        let root = PathRef::root();
        let spec = root.field("spec");
        let items = spec.field("items");
        let two = items.index(2);
        let labels = two.field("labels");
        let app = labels.key("app");
        assert_eq!(app.openapi_name(), "spec.items[2].labels.app");
        assert_eq!(app.k8s_path().to_string(), "spec.items[2].labels[app]");
        assert_eq!(app.pruned_path(), "spec.items[2].labels.app");
        let top = root.key("foo");
        assert_eq!(top.openapi_name(), ".foo");
        assert_eq!(top.field_path().to_string(), "foo");
        assert_eq!(top.k8s_path().to_string(), "[foo]");
        assert_eq!(app.depth(), 5);
    }
}
