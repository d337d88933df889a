//! The data plane: sequenced, authenticated UDP multicast (sans-I/O).
