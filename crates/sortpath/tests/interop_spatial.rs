//! Hilbert and Morton values against the Python packages hilbertcurve and pymorton.

mod support;

use sortpath::spatial::{hilbert2, hilbert2_decode, morton2, morton2_decode, morton3};
use support::python::{assert_same_lines, run_script, Rng};

fn edge_or_random(rng: &mut Rng, bits: u32) -> u32 {
    let max = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    match rng.next_u64() % 6 {
        0 => 0,
        1 => max,
        2 => max / 2 + 1,
        _ => (rng.next_u64() as u32) & max,
    }
}

#[test]
fn hilbert_matches_hilbertcurve() {
    let mut rng = Rng::new(2024);
    let mut input = String::new();
    let mut expected = Vec::new();
    for _ in 0..2000 {
        let (x, y) = (edge_or_random(&mut rng, 32), edge_or_random(&mut rng, 32));
        input += &format!("hilbert {x} {y}\n");
        expected.push(hilbert2(x, y).to_string());
        let d = rng.next_u64();
        input += &format!("hilbert-inv {d}\n");
        let (px, py) = hilbert2_decode(d);
        expected.push(format!("{px} {py}"));
    }
    let out = run_script("curves.py", &[], &input);
    assert_same_lines(&out, &expected, &input);
}

#[test]
fn morton_matches_pymorton() {
    // pymorton handles 16-bit coordinates in 2D and 10-bit in 3D.
    let mut rng = Rng::new(99);
    let mut input = String::new();
    let mut expected = Vec::new();
    for _ in 0..2000 {
        let (x, y) = (edge_or_random(&mut rng, 16), edge_or_random(&mut rng, 16));
        input += &format!("morton2 {x} {y}\n");
        expected.push(morton2(x, y).to_string());
        let m = morton2(x, y);
        input += &format!("morton2-inv {m}\n");
        let (dx, dy) = morton2_decode(m);
        expected.push(format!("{dx} {dy}"));
        let (a, b, c) = (
            edge_or_random(&mut rng, 10),
            edge_or_random(&mut rng, 10),
            edge_or_random(&mut rng, 10),
        );
        input += &format!("morton3 {a} {b} {c}\n");
        expected.push(morton3(a, b, c).to_string());
    }
    let out = run_script("curves.py", &[], &input);
    assert_same_lines(&out, &expected, &input);
}
