//! GPU backend (being built).
