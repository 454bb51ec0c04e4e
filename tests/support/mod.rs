//! Helpers shared by the integration tests, included with `mod support;`.

pub mod oracle;
