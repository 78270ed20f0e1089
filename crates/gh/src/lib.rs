//! Gentry-Halevi.
