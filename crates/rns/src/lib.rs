//! RNS bases and conversions (being built).
