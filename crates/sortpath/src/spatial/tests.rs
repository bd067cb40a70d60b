use proptest::prelude::*;

use super::*;

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(crate::test_cases(100_000))
}

fn coord() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0u32),
        Just(1),
        Just(u32::MAX),
        Just(u32::MAX - 1),
        Just(1 << 31),
        any::<u32>()
    ]
}

/// A box of random position and a side of random magnitude (1 to 2^32 points).
fn box2() -> impl Strategy<Value = BoundingBox<2>> {
    (
        coord(),
        coord(),
        0u32..=32,
        0u32..=32,
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(|(x, y, bx, by, rx, ry)| {
            let w = if bx == 32 {
                rx
            } else {
                rx & ((1u64 << bx) - 1) as u32
            };
            let h = if by == 32 {
                ry
            } else {
                ry & ((1u64 << by) - 1) as u32
            };
            BoundingBox::new([x, y], [x.saturating_add(w), y.saturating_add(h)])
        })
}

fn box3() -> impl Strategy<Value = BoundingBox<3>> {
    (box2(), coord(), 0u32..=32, any::<u32>()).prop_map(|(b, z, bz, rz)| {
        let d = if bz == 32 {
            rz
        } else {
            rz & ((1u64 << bz) - 1) as u32
        };
        BoundingBox::new(
            [b.min()[0], b.min()[1], z],
            [b.max()[0], b.max()[1], z.saturating_add(d)],
        )
    })
}

fn point_in<const D: usize>(b: &BoundingBox<D>, fractions: [u64; D]) -> [u32; D] {
    let mut p = [0u32; D];
    for i in 0..D {
        let span = u64::from(b.max()[i] - b.min()[i]) + 1;
        p[i] = b.min()[i] + (fractions[i] % span) as u32;
    }
    p
}

fn check_ranges<T: Ord + Copy>(
    ranges: &[RangeInclusive<T>],
    budget: usize,
) -> Result<(), TestCaseError> {
    prop_assert!(!ranges.is_empty() && ranges.len() <= budget.max(1));
    for w in ranges.windows(2) {
        prop_assert!(
            w[0].end() < w[1].start(),
            "ranges must be sorted and disjoint"
        );
    }
    Ok(())
}

fn covered_u64(ranges: &[RangeInclusive<u64>]) -> u128 {
    ranges
        .iter()
        .map(|r| u128::from(r.end() - r.start()) + 1)
        .sum()
}

#[test]
fn hilbert_small_grid_is_a_continuous_bijection() {
    // The first 4^k curve values fill the aligned 2^k square at the origin.
    let side = 16u32;
    let mut seen = vec![false; (side * side) as usize];
    for x in 0..side {
        for y in 0..side {
            let h = hilbert2(x, y);
            assert!(h < u64::from(side * side), "({x},{y}) -> {h}");
            assert!(!seen[h as usize]);
            seen[h as usize] = true;
        }
    }
    for h in 0..u64::from(side * side) - 1 {
        let (a, b) = (hilbert2_decode(h), hilbert2_decode(h + 1));
        assert_eq!(a.0.abs_diff(b.0) + a.1.abs_diff(b.1), 1, "{h}");
    }
}

#[test]
fn exact_cover_with_a_large_budget() {
    for (a, b) in [([1, 1], [2, 2]), ([3, 5], [13, 14]), ([0, 7], [15, 8])] {
        let bx = BoundingBox::new(a, b);
        for ranges in [morton2_ranges(&bx, 10_000), hilbert2_ranges(&bx, 10_000)] {
            assert_eq!(covered_u64(&ranges), bx.volume(), "{bx:?}");
        }
    }
    let full = BoundingBox::new([0, 0], [u32::MAX, u32::MAX]);
    assert_eq!(morton2_ranges(&full, 3), vec![0..=u64::MAX]);
    assert_eq!(hilbert2_ranges(&full, 0), vec![0..=u64::MAX]);
    let full3 = BoundingBox::new([0; 3], [u32::MAX; 3]);
    assert_eq!(morton3_ranges(&full3, 5), vec![0..=(1u128 << 96) - 1]);
}

/// Random boxes: sides 2^8..2^24, squarish (aspect <= 2) or of any aspect.
fn report_boxes(squarish: bool) -> Vec<BoundingBox<2>> {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    (0..200)
        .map(|_| {
            let strategy = (
                any::<u32>(),
                any::<u32>(),
                8u32..24,
                8u32..24,
                any::<u32>(),
                any::<u32>(),
            );
            let (x, y, bw, bh, rw, rh) = strategy.new_tree(&mut runner).unwrap().current();
            let bh = if squarish { bw } else { bh };
            let (w, h) = ((1u32 << bw) + rw % (1 << bw), (1u32 << bh) + rh % (1 << bh));
            BoundingBox::new([x, y], [x.saturating_add(w), y.saturating_add(h)])
        })
        .collect()
}

/// Mean false-positive ratio (share of covered curve values outside the box) over
/// random boxes, per range budget. Run with `--nocapture` to see the table.
#[test]
fn false_positive_ratio_report() {
    let budgets = [1usize, 2, 4, 8, 16, 32, 64, 128];
    for squarish in [true, false] {
        let boxes = report_boxes(squarish);
        let shape = if squarish {
            "squarish (aspect <= 2)"
        } else {
            "any aspect (up to 2^16:1)"
        };
        eprintln!("{shape} boxes, sides 2^8..2^24, 200 random: mean share of scanned keys outside the box");
        eprintln!("budget  morton2 FP  hilbert2 FP");
        let mut previous = (f64::INFINITY, f64::INFINITY);
        let mut first = None;
        for budget in budgets {
            let mean = |f: &dyn Fn(&BoundingBox<2>) -> Vec<RangeInclusive<u64>>| {
                boxes
                    .iter()
                    .map(|b| {
                        let covered = covered_u64(&f(b));
                        (covered - b.volume()) as f64 / covered as f64
                    })
                    .sum::<f64>()
                    / boxes.len() as f64
            };
            let m = mean(&|b| morton2_ranges(b, budget));
            let h = mean(&|b| hilbert2_ranges(b, budget));
            eprintln!("{budget:>6}  {m:>10.4}  {h:>11.4}");
            assert!(
                m <= previous.0 + 1e-12 && h <= previous.1 + 1e-12,
                "more ranges must not cover more on average"
            );
            previous = (m, h);
            first.get_or_insert((m, h));
        }
        let first = first.unwrap_or_default();
        assert!(
            previous.0 < first.0 / 3.0 && previous.1 < first.1 / 3.0,
            "128 ranges should cut false positives well below 1 range: {first:?} -> {previous:?}"
        );
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn curves_round_trip(x in coord(), y in coord(), z in coord()) {
        prop_assert_eq!(morton2_decode(morton2(x, y)), (x, y));
        prop_assert_eq!(hilbert2_decode(hilbert2(x, y)), (x, y));
        prop_assert_eq!(morton3_decode(morton3(x, y, z)), (x, y, z));
    }

    #[test]
    fn hilbert_neighbours_are_adjacent(h in any::<u64>()) {
        prop_assume!(h < u64::MAX);
        let (a, b) = (hilbert2_decode(h), hilbert2_decode(h + 1));
        prop_assert_eq!(a.0.abs_diff(b.0) + a.1.abs_diff(b.1), 1);
    }

    #[test]
    fn morton_order_is_bitwise_dominance_compatible(x in coord(), y in coord(), dx in 0u32..4, dy in 0u32..4) {
        // Moving up or right never lowers the Z-order value.
        let (x2, y2) = (x.saturating_add(dx), y.saturating_add(dy));
        prop_assert!(morton2(x2, y2) >= morton2(x, y));
    }
}

proptest! {
    // Covers are heavier than point encodings; a tenth of the main case count.
    #![proptest_config(ProptestConfig::with_cases(crate::test_cases(10_000)))]

    #[test]
    fn every_point_in_the_box_is_in_a_range(b in box2(), budget in 1usize..40, f in any::<[u64; 2]>(), g in any::<[u64; 2]>()) {
        let morton = morton2_ranges(&b, budget);
        let hilbert = hilbert2_ranges(&b, budget);
        check_ranges(&morton, budget)?;
        check_ranges(&hilbert, budget)?;
        prop_assert!(covered_u64(&morton) >= b.volume() && covered_u64(&hilbert) >= b.volume());
        for fr in [f, g, [0, 0], [u64::MAX, u64::MAX], [0, u64::MAX]] {
            let [x, y] = point_in(&b, fr);
            let p = [x, y];
            let corner = if fr == [0, 0] { b.min() } else if fr == [u64::MAX, u64::MAX] { b.max() } else { p };
            for [x, y] in [p, corner] {
                prop_assert!(morton.iter().any(|r| r.contains(&morton2(x, y))), "{:?} {:?}", b, (x, y));
                prop_assert!(hilbert.iter().any(|r| r.contains(&hilbert2(x, y))), "{:?} {:?}", b, (x, y));
            }
        }
        prop_assert!(morton.iter().any(|r| r.contains(&morton2(b.max()[0], b.max()[1]))));
        prop_assert!(hilbert.iter().any(|r| r.contains(&hilbert2(b.min()[0], b.max()[1]))));
    }

    #[test]
    fn every_point_in_the_3d_box_is_in_a_range(b in box3(), budget in 1usize..40, f in any::<[u64; 3]>()) {
        let ranges = morton3_ranges(&b, budget);
        check_ranges(&ranges, budget)?;
        for p in [point_in(&b, f), b.min(), b.max()] {
            prop_assert!(ranges.iter().any(|r| r.contains(&morton3(p[0], p[1], p[2]))), "{:?} {:?}", b, p);
        }
    }

    #[test]
    fn geo_quantization_is_monotonic(lat in -90.0f64..=90.0, lon in -180.0f64..=180.0, dlat in 0.0f64..1.0, dlon in 0.0f64..1.0) {
        let a = GeoPoint::new(lat, lon).unwrap().to_grid();
        let b = GeoPoint::new((lat + dlat).min(90.0), (lon + dlon).min(180.0)).unwrap().to_grid();
        prop_assert!(b.0 >= a.0 && b.1 >= a.1);
        let back = GeoPoint::from_grid(a.0, a.1);
        prop_assert!((back.lat() - lat).abs() <= 180.0 / 4_294_967_296.0);
        prop_assert!((back.lon() - lon).abs() <= 360.0 / 4_294_967_296.0);
    }
}

#[test]
fn geo_rejects_out_of_range() {
    for (lat, lon) in [
        (90.0001, 0.0),
        (-90.0001, 0.0),
        (0.0, 180.0001),
        (0.0, -180.0001),
        (f64::NAN, 0.0),
        (0.0, f64::INFINITY),
    ] {
        assert!(GeoPoint::new(lat, lon).is_err(), "{lat} {lon}");
    }
    let boxes = GeoPoint::grid_boxes(
        GeoPoint::new(10.0, 20.0).unwrap(),
        GeoPoint::new(-10.0, 30.0).unwrap(),
    );
    assert_eq!(boxes.len(), 1);
    assert!(boxes[0].contains([
        GeoPoint::new(0.0, 25.0).unwrap().to_grid().0,
        GeoPoint::new(0.0, 25.0).unwrap().to_grid().1
    ]));
}
