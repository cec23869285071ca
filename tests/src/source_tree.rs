//! A crate's module tree read from its source files with `syn`, without compiling:
//! the shared ground of the module-cycle test and the public-API listing.
//!
//! Every `mod` is followed, whatever its `cfg` (a test-only module is still code that
//! can form a cycle or leak an item), with the compiler's file rules: `name.rs` or
//! `name/mod.rs` beside a mod-rs file, below `parent/` otherwise, and `#[path]`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One module: a file, or an inline `mod name { ... }` inside one.
pub struct Module {
    /// Names from the crate root (`[]` for the root itself).
    pub path: Vec<String>,
    /// The file its items are written in.
    pub file: PathBuf,
    /// The module it is declared in (`None` for the root).
    pub parent: Option<usize>,
    /// Child modules by name, as indices into [`ModuleTree::modules`].
    pub children: BTreeMap<String, usize>,
    /// Its items, child `mod` declarations included.
    pub items: Vec<syn::Item>,
    /// The `mod` declaration's outer attributes and the module's inner ones.
    pub attrs: Vec<syn::Attribute>,
    /// The `mod` declaration's visibility (`pub` for the root).
    pub vis: syn::Visibility,
}

impl Module {
    /// `crate::a::b`, for messages.
    pub fn display_path(&self) -> String {
        std::iter::once("crate")
            .chain(self.path.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("::")
    }
}

/// The modules of one crate target (a `lib.rs`, `main.rs` or `bin/*.rs` root).
pub struct ModuleTree {
    /// Index 0 is the root; parents come before their children.
    pub modules: Vec<Module>,
}

/// Reads source files: the disk in tests of real crates, a map in unit tests.
pub trait Sources {
    /// The file's text, or `None` if it does not exist.
    fn read(&self, path: &Path) -> Option<String>;
}

/// The file system.
pub struct Disk;

impl Sources for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

impl Sources for BTreeMap<PathBuf, String> {
    fn read(&self, path: &Path) -> Option<String> {
        self.get(path).cloned()
    }
}

/// Why a tree could not be read.
#[derive(Debug)]
pub enum TreeError {
    /// A `mod name;` whose file is missing.
    MissingFile {
        /// The module path.
        module: String,
        /// The candidates tried.
        tried: Vec<PathBuf>,
    },
    /// A file syn cannot parse.
    Parse {
        /// The file.
        file: PathBuf,
        /// syn's message.
        message: String,
    },
}

impl std::fmt::Display for TreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TreeError::MissingFile { module, tried } => {
                write!(f, "no file for module {module} (tried {tried:?})")
            }
            TreeError::Parse { file, message } => {
                write!(f, "{}: {message}", file.display())
            }
        }
    }
}

/// The crate roots under `src`: `lib.rs`, `main.rs` and `bin/*.rs` (or `bin/*/main.rs`),
/// each the root of its own tree.
pub fn crate_roots(src: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .filter(|p| p.is_file())
        .collect();
    if let Ok(entries) = std::fs::read_dir(src.join("bin")) {
        let mut bins: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter_map(|p| {
                if p.extension().is_some_and(|e| e == "rs") {
                    Some(p)
                } else {
                    Some(p.join("main.rs")).filter(|m| m.is_file())
                }
            })
            .collect();
        bins.sort();
        roots.extend(bins);
    }
    roots
}

/// Reads the tree rooted at `root` (a `lib.rs`-like file).
pub fn load(root: &Path, sources: &dyn Sources) -> Result<ModuleTree, TreeError> {
    let mut loader = Loader {
        tree: ModuleTree {
            modules: Vec::new(),
        },
        sources,
    };
    let file = parse(root, sources)?;
    let dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
    let ctx = FileCtx {
        file: root.to_path_buf(),
        child_dir: dir.clone(),
        path_attr_dir: dir,
    };
    let public = syn::Visibility::Public(Default::default());
    loader.add(None, Vec::new(), (file.attrs, public), file.items, &ctx)?;
    Ok(loader.tree)
}

/// Where the `mod` declarations of a module look for their files.
struct FileCtx {
    file: PathBuf,
    /// `name.rs` / `name/mod.rs` are looked for here.
    child_dir: PathBuf,
    /// `#[path]` is relative to this.
    path_attr_dir: PathBuf,
}

struct Loader<'a> {
    tree: ModuleTree,
    sources: &'a dyn Sources,
}

impl Loader<'_> {
    /// Adds a module (its declaration's attributes and visibility in `decl`) and,
    /// recursively, its children.
    fn add(
        &mut self,
        parent: Option<usize>,
        path: Vec<String>,
        decl: (Vec<syn::Attribute>, syn::Visibility),
        items: Vec<syn::Item>,
        ctx: &FileCtx,
    ) -> Result<usize, TreeError> {
        let (attrs, vis) = decl;
        let sources = self.sources;
        let index = self.tree.modules.len();
        self.tree.modules.push(Module {
            path: path.clone(),
            file: ctx.file.clone(),
            parent,
            children: BTreeMap::new(),
            items: items.clone(),
            attrs,
            vis,
        });
        for item in items {
            let syn::Item::Mod(m) = item else { continue };
            let name = m.ident.to_string();
            let mut child_path = path.clone();
            child_path.push(name.clone());
            let child = match m.content {
                Some((_, inner)) => {
                    // Inline: its own `mod x;` files live one directory further down.
                    let dir = ctx.child_dir.join(&name);
                    let inner_ctx = FileCtx {
                        file: ctx.file.clone(),
                        child_dir: dir.clone(),
                        path_attr_dir: dir,
                    };
                    self.add(Some(index), child_path, (m.attrs, m.vis), inner, &inner_ctx)?
                }
                None => {
                    let tried = match path_attr(&m.attrs) {
                        Some(p) => vec![ctx.path_attr_dir.join(p)],
                        None => vec![
                            ctx.child_dir.join(format!("{name}.rs")),
                            ctx.child_dir.join(&name).join("mod.rs"),
                        ],
                    };
                    let Some(found) = tried.iter().find(|p| sources.read(p).is_some()) else {
                        return Err(TreeError::MissingFile {
                            module: child_path.join("::"),
                            tried,
                        });
                    };
                    let file = parse(found, sources)?;
                    let here = found.parent().unwrap_or(Path::new("")).to_path_buf();
                    // A `#[path]` file or a `mod.rs` keeps its children beside it.
                    let mod_rs = path_attr(&m.attrs).is_some()
                        || found.file_name().is_some_and(|n| n == "mod.rs");
                    let child_dir = if mod_rs {
                        here.clone()
                    } else {
                        here.join(&name)
                    };
                    let file_ctx = FileCtx {
                        file: found.clone(),
                        child_dir,
                        path_attr_dir: here,
                    };
                    let mut attrs = m.attrs;
                    attrs.extend(file.attrs);
                    self.add(
                        Some(index),
                        child_path,
                        (attrs, m.vis),
                        file.items,
                        &file_ctx,
                    )?
                }
            };
            self.tree.modules[index].children.insert(name, child);
        }
        Ok(index)
    }
}

fn parse(path: &Path, sources: &dyn Sources) -> Result<syn::File, TreeError> {
    let text = sources.read(path).ok_or_else(|| TreeError::MissingFile {
        module: path.display().to_string(),
        tried: vec![path.to_path_buf()],
    })?;
    syn::parse_file(&text).map_err(|e| TreeError::Parse {
        file: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// The value of `#[path = "..."]`, if any.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| {
        let syn::Meta::NameValue(nv) = &a.meta else {
            return None;
        };
        if !nv.path.is_ident("path") {
            return None;
        }
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        }
    })
}

#[cfg(test)]
pub(crate) fn sources(files: &[(&str, &str)]) -> BTreeMap<PathBuf, String> {
    files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(tree: &ModuleTree) -> Vec<String> {
        tree.modules.iter().map(Module::display_path).collect()
    }

    #[test]
    fn follows_files_inline_modules_and_path_attributes() {
        let src = sources(&[
            (
                "s/lib.rs",
                "mod a; mod b { mod c; } #[path = \"x/y.rs\"] mod d;",
            ),
            ("s/a.rs", "mod inner;"),
            ("s/a/inner.rs", "fn f() {}"),
            ("s/b/c/mod.rs", ""),
            ("s/x/y.rs", "mod z;"),
            ("s/x/z.rs", ""),
        ]);
        let tree = load(Path::new("s/lib.rs"), &src).unwrap();
        assert_eq!(
            paths(&tree),
            [
                "crate",
                "crate::a",
                "crate::a::inner",
                "crate::b",
                "crate::b::c",
                "crate::d",
                "crate::d::z"
            ]
        );
        assert_eq!(tree.modules[2].file, Path::new("s/a/inner.rs"));
        assert_eq!(tree.modules[3].file, Path::new("s/lib.rs"));
    }

    #[test]
    fn a_missing_file_is_an_error_naming_the_module() {
        let src = sources(&[("s/lib.rs", "mod gone;")]);
        let err = load(Path::new("s/lib.rs"), &src).err().unwrap();
        assert!(
            err.to_string().starts_with("no file for module gone"),
            "{err}"
        );
    }
}
