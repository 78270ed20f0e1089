//! The BFV scheme (being built).
