//! `jsonpatch.escapeKey` (`library.JSONPatch`), for the JSONPatch mutations of
//! MutatingAdmissionPolicies: a map key escaped as a JSON pointer token.

use std::sync::Arc;

use kube_cel::cel::Context;

/// Registers the library in the root context.
pub(in crate::cel) fn register(ctx: &mut Context<'static>) {
    ctx.add_function("jsonpatch.escapeKey", |key: Arc<String>| -> Arc<String> {
        Arc::new(key.replace('~', "~0").replace('/', "~1"))
    });
}

#[cfg(test)]
mod tests {
    use kube_cel::cel::Program;
    use kube_cel::cel::objects::Value;

    #[test]
    fn keys_are_escaped_as_pointer_tokens() {
        let p = Program::compile("jsonpatch.escapeKey('example.com/a~b')").unwrap();
        let mut ctx = kube_cel::cel::Context::default();
        super::register(&mut ctx);
        let got = p.execute(&ctx);
        assert_eq!(got, Ok(Value::from("example.com~1a~0b")));
    }
}
