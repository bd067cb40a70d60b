//! The string-key linter on arbitrary keys (the input split at `\n`; its first byte
//! chooses the separators): it never panics (its sort order is total), every pair it calls
//! out of order is a problem or unjudged, every example pair really is out of order, and
//! the sort keys of neighbouring keys order as the keys do in the meant order.
#![no_main]

use std::cmp::Ordering;

use sortpath::strkey::lint::Lint;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else { return };
    let separators: &[u8] = match choice % 4 {
        0 => b"#/|:",
        1 => b"#",
        2 => b"- ",
        _ => b"",
    };
    let lint = Lint::new().separators(separators).expect("valid separators");
    let keys: Vec<&[u8]> = rest.split(|&b| b == b'\n').collect();
    let report = lint.run(&keys);
    let pairs: usize = report
        .findings
        .iter()
        .filter(|f| f.problem.is_pair())
        .map(|f| f.count)
        .sum();
    assert_eq!(pairs + report.unjudged, report.out_of_order);
    for f in report.findings.iter().filter(|f| f.problem.is_pair()) {
        let (first, second) = (keys[f.keys[0]], keys[f.keys[1]]);
        assert!(first < second);
        assert_eq!(lint.meant_cmp(first, second), Ordering::Greater);
    }
    for pair in keys.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        assert_eq!(lint.sort_key(a).cmp(&lint.sort_key(b)), lint.meant_cmp(a, b));
    }
});
