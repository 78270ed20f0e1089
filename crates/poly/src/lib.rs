//! CPU reference ring arithmetic (being built).
