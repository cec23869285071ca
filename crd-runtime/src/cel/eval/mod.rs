//! Evaluating compiled rules: the interpreter's root context with every library
//! registered (`context`), the rules of one schema node (`rules`), all rules of a
//! schema over a whole object with `oldSelf` correlated like the server
//! (`validator`), and all of it as the engine's last validation pass (`pass`).

pub(in crate::cel) mod context;
pub(in crate::cel) mod pass;
pub(in crate::cel) mod rules;
pub(in crate::cel) mod validator;
