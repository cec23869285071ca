//! `format.named(<string>)` as the API server has it: `optional<Format>`, none
//! for an unknown name (kube-cel returns the format itself, or null).

use std::sync::Arc;

use kube_cel::cel::objects::{OptionalValue, Value};
use kube_cel::cel::{Context, ResolveResult};

use super::delegate::call;

pub(crate) fn register(ctx: &mut Context<'_>) {
    ctx.add_function("format.named", named);
}

fn named(name: Arc<String>) -> ResolveResult {
    let optional = match call("format.named(a)", &[Value::String(name)])? {
        Value::Null => OptionalValue::none(),
        format => OptionalValue::of(format),
    };
    Ok(Value::Opaque(Arc::new(optional)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_cel::KubeCelExt;
    use kube_cel::cel::Program;

    fn eval(src: &str) -> ResolveResult {
        let mut ctx = Context::default().with_all();
        register(&mut ctx);
        Program::compile(src).expect("parses").execute(&ctx)
    }

    #[test]
    fn named_formats_are_optional() {
        assert_eq!(
            eval("format.named('dns1123Label').hasValue()"),
            Ok(Value::Bool(true))
        );
        assert_eq!(
            eval("format.named('nope').hasValue()"),
            Ok(Value::Bool(false))
        );
        assert_eq!(
            eval("format.named('dns1123Label').value() == format.dns1123Label()"),
            Ok(Value::Bool(true))
        );
    }
}
