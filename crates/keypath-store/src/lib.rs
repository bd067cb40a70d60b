//! Item collections with secondary indexes over sorted key-value stores.
