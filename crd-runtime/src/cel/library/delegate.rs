//! Calls into kube-cel's own implementation of a function that a module of
//! `library` wraps: its types are private, so values of them (quantities,
//! formats, …) can only be made and read by its registered functions.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use kube_cel::KubeCelExt;
use kube_cel::cel::objects::Value;
use kube_cel::cel::{Context, ExecutionError, Program, ResolveResult};

thread_local! {
    /// kube-cel's functions as it registers them, untouched by our overrides.
    static KUBE: Context<'static> = Context::default().with_all();
    /// Compiled call expressions by source.
    static PROGRAMS: RefCell<HashMap<&'static str, Rc<Program>>> = RefCell::new(HashMap::new());
}

/// Evaluates `src` (a call of kube-cel functions on the variables `a`, `b`, …)
/// with `args` bound to those variables in order.
pub(crate) fn call(src: &'static str, args: &[Value]) -> ResolveResult {
    const NAMES: [&str; 3] = ["a", "b", "c"];
    let program = PROGRAMS.with(|p| {
        if let Some(prog) = p.borrow().get(src) {
            return Ok(Rc::clone(prog));
        }
        let prog = Rc::new(
            Program::compile(src)
                .map_err(|e| ExecutionError::function_error("delegate", e.to_string()))?,
        );
        p.borrow_mut().insert(src, Rc::clone(&prog));
        Ok::<_, ExecutionError>(prog)
    })?;
    KUBE.with(|root| {
        let mut scope = root.new_inner_scope();
        for (name, v) in NAMES.iter().zip(args) {
            scope.add_variable_from_value(*name, v.clone());
        }
        program.execute(&scope)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_kube_cel_functions() {
        let q = call("quantity(a)", &[Value::from("1k")]).unwrap();
        assert_eq!(call("a.asInteger()", &[q]), Ok(Value::Int(1000)));
        assert!(call("quantity(a)", &[Value::from("x")]).is_err());
    }
}
