//! Space-filling curves as sortable integers, and bounding boxes as a few key ranges.
//!
//! A point on a `u32` grid becomes one integer whose order keeps nearby points mostly
//! near each other in the key space:
//!
//! - [`morton2`] / [`morton3`]: Z-order; bit `i` of x, y (and z) lands at bit `D*i`,
//!   `D*i+1` (and `D*i+2`) of the result, so x is the least significant of each group.
//! - [`hilbert2`]: the order-32 Hilbert curve (Skilling's transposed-axes form, x the
//!   more significant of each bit pair); neighbours on the curve are always neighbours
//!   on the grid, so box queries need fewer ranges than Z-order.
//!
//! The part a query needs is [`morton2_ranges`], [`hilbert2_ranges`] and
//! [`morton3_ranges`]: a box becomes at most `max_ranges` inclusive ranges of curve
//! values whose union contains every point in the box (and, when the budget is small,
//! some points outside it: the false positives a scan must filter out).
//!
//! Why it works: a square (cube) cell of side `2^L` whose corner is a multiple of `2^L`
//! is one contiguous run of `4^L` (`8^L`) curve values on both curves. The box is split
//! into such cells, largest waste first, and the resulting runs are merged across the
//! smallest gaps until at most `max_ranges` remain.
//!
//! Latitude/longitude map onto the grid with [`GeoPoint::to_grid`]: longitude is x,
//! latitude is y, each quantized to 2^32 steps (about 9.3 mm of longitude at the equator).
//!
//! ```
//! use sortpath::spatial::{hilbert2, hilbert2_ranges, BoundingBox};
//! let area = BoundingBox::new([100, 200], [180, 260]);
//! let ranges = hilbert2_ranges(&area, 8);
//! assert!(ranges.len() <= 8);
//! assert!(ranges.iter().any(|r| r.contains(&hilbert2(150, 230))));
//! ```

use std::collections::BinaryHeap;
use std::ops::RangeInclusive;

#[cfg(test)]
mod tests;

/// Bits per grid coordinate.
///
/// ```
/// assert_eq!(sortpath::spatial::morton2(u32::MAX, 0).count_ones(), sortpath::spatial::COORD_BITS);
/// ```
pub const COORD_BITS: u32 = 32;

/// Spreads the 32 bits of `v` to every second bit of a u64 (bit i -> bit 2i).
fn spread2(v: u32) -> u64 {
    let mut x = u64::from(v);
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    (x | (x << 1)) & 0x5555_5555_5555_5555
}

/// Inverse of [`spread2`]: gathers every second bit.
fn compact2(v: u64) -> u32 {
    let mut x = v & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x >> 4)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
    ((x | (x >> 16)) & 0xFFFF_FFFF) as u32
}

/// Spreads the 32 bits of `v` to every third bit of a u128 (bit i -> bit 3i).
fn spread3(v: u32) -> u128 {
    (0..COORD_BITS).fold(0u128, |acc, i| acc | (u128::from((v >> i) & 1) << (3 * i)))
}

/// Inverse of [`spread3`].
fn compact3(v: u128) -> u32 {
    (0..COORD_BITS).fold(0u32, |acc, i| acc | ((((v >> (3 * i)) & 1) as u32) << i))
}

/// The Z-order (Morton) value of a 2D point: x in the even bits, y in the odd bits.
///
/// ```
/// assert_eq!(sortpath::spatial::morton2(0b11, 0b01), 0b0111);
/// assert_eq!(sortpath::spatial::morton2(u32::MAX, u32::MAX), u64::MAX);
/// ```
pub fn morton2(x: u32, y: u32) -> u64 {
    spread2(x) | (spread2(y) << 1)
}

/// The point of a 2D Z-order value.
///
/// ```
/// assert_eq!(sortpath::spatial::morton2_decode(0b0111), (0b11, 0b01));
/// ```
pub fn morton2_decode(z: u64) -> (u32, u32) {
    (compact2(z), compact2(z >> 1))
}

/// The Z-order value of a 3D point (96 significant bits): x at bits 3i, y at 3i+1, z at 3i+2.
///
/// ```
/// assert_eq!(sortpath::spatial::morton3(1, 1, 1), 0b111);
/// assert_eq!(sortpath::spatial::morton3(u32::MAX, u32::MAX, u32::MAX), (1u128 << 96) - 1);
/// ```
pub fn morton3(x: u32, y: u32, z: u32) -> u128 {
    spread3(x) | (spread3(y) << 1) | (spread3(z) << 2)
}

/// The point of a 3D Z-order value (bits above 96 are ignored).
///
/// ```
/// assert_eq!(sortpath::spatial::morton3_decode(0b110), (0, 1, 1));
/// ```
pub fn morton3_decode(m: u128) -> (u32, u32, u32) {
    (compact3(m), compact3(m >> 1), compact3(m >> 2))
}

/// The order-32 Hilbert curve value of a 2D point.
///
/// ```
/// use sortpath::spatial::hilbert2;
/// // The first cell of the curve is the origin; its neighbours on the curve are grid neighbours.
/// assert_eq!(hilbert2(0, 0), 0);
/// let (a, b) = (sortpath::spatial::hilbert2_decode(41), sortpath::spatial::hilbert2_decode(42));
/// assert_eq!(a.0.abs_diff(b.0) + a.1.abs_diff(b.1), 1);
/// ```
pub fn hilbert2(x: u32, y: u32) -> u64 {
    let mut axes = [x, y];
    // Skilling's AxesToTranspose: undo the excess work of the rotations, then Gray-encode.
    let mut q: u32 = 1 << (COORD_BITS - 1);
    while q > 1 {
        let p = q - 1;
        for i in 0..2 {
            if axes[i] & q != 0 {
                axes[0] ^= p;
            } else {
                let t = (axes[0] ^ axes[i]) & p;
                axes[0] ^= t;
                axes[i] ^= t;
            }
        }
        q >>= 1;
    }
    axes[1] ^= axes[0];
    let mut t = 0;
    let mut q: u32 = 1 << (COORD_BITS - 1);
    while q > 1 {
        if axes[1] & q != 0 {
            t ^= q - 1;
        }
        q >>= 1;
    }
    axes[0] ^= t;
    axes[1] ^= t;
    // Transposed form -> integer: axis 0 supplies the higher bit of each pair.
    (spread2(axes[0]) << 1) | spread2(axes[1])
}

/// The point of an order-32 Hilbert curve value.
///
/// ```
/// use sortpath::spatial::{hilbert2, hilbert2_decode};
/// assert_eq!(hilbert2_decode(hilbert2(12345, 67890)), (12345, 67890));
/// ```
pub fn hilbert2_decode(h: u64) -> (u32, u32) {
    let mut axes = [compact2(h >> 1), compact2(h)];
    // Skilling's TransposeToAxes: Gray-decode, then redo the rotations.
    let t = axes[1] >> 1;
    axes[1] ^= axes[0];
    axes[0] ^= t;
    let mut q: u64 = 2;
    while q != 1u64 << COORD_BITS {
        let p = (q - 1) as u32;
        let qb = q as u32;
        for i in (0..2).rev() {
            if axes[i] & qb != 0 {
                axes[0] ^= p;
            } else {
                let t = (axes[0] ^ axes[i]) & p;
                axes[0] ^= t;
                axes[i] ^= t;
            }
        }
        q <<= 1;
    }
    (axes[0], axes[1])
}

/// An axis-aligned box of grid points, inclusive on both ends, in `D` dimensions.
///
/// ```
/// use sortpath::spatial::BoundingBox;
/// let b = BoundingBox::new([5, 1], [2, 3]); // corners in any order
/// assert_eq!((b.min(), b.max()), ([2, 1], [5, 3]));
/// assert!(b.contains([2, 3]));
/// assert_eq!(b.volume(), 12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BoundingBox<const D: usize> {
    min: [u32; D],
    max: [u32; D],
}

impl<const D: usize> BoundingBox<D> {
    /// The box spanned by two opposite corners (given in any order).
    ///
    /// ```
    /// let b = sortpath::spatial::BoundingBox::new([0, 0, 0], [1, 1, 1]);
    /// assert_eq!(b.volume(), 8);
    /// ```
    pub fn new(a: [u32; D], b: [u32; D]) -> BoundingBox<D> {
        let mut min = a;
        let mut max = b;
        for i in 0..D {
            min[i] = a[i].min(b[i]);
            max[i] = a[i].max(b[i]);
        }
        BoundingBox { min, max }
    }

    /// The corner with the smallest coordinates.
    ///
    /// ```
    /// assert_eq!(sortpath::spatial::BoundingBox::new([3, 4], [1, 9]).min(), [1, 4]);
    /// ```
    pub fn min(&self) -> [u32; D] {
        self.min
    }

    /// The corner with the largest coordinates.
    ///
    /// ```
    /// assert_eq!(sortpath::spatial::BoundingBox::new([3, 4], [1, 9]).max(), [3, 9]);
    /// ```
    pub fn max(&self) -> [u32; D] {
        self.max
    }

    /// Whether the point is inside (edges included).
    ///
    /// ```
    /// assert!(!sortpath::spatial::BoundingBox::new([0, 0], [1, 1]).contains([2, 0]));
    /// ```
    pub fn contains(&self, point: [u32; D]) -> bool {
        (0..D).all(|i| self.min[i] <= point[i] && point[i] <= self.max[i])
    }

    /// Number of grid points inside (up to 2^96 in 3D).
    ///
    /// ```
    /// assert_eq!(sortpath::spatial::BoundingBox::new([0, 0], [u32::MAX, u32::MAX]).volume(), 1 << 64);
    /// ```
    pub fn volume(&self) -> u128 {
        (0..D)
            .map(|i| u128::from(self.max[i] - self.min[i]) + 1)
            .product()
    }
}

/// An aligned cell: corner a multiple of `2^level` in every dimension.
#[derive(Clone, Copy)]
struct Cell<const D: usize> {
    corner: [u32; D],
    level: u32,
}

impl<const D: usize> Cell<D> {
    fn side_max(&self, i: usize) -> u32 {
        // corner + 2^level - 1, without overflow at level 32.
        self.corner[i] | ((1u64 << self.level) - 1) as u32
    }

    /// Points of the cell inside the box (0 if disjoint).
    fn overlap(&self, b: &BoundingBox<D>) -> u128 {
        (0..D)
            .map(|i| {
                let lo = self.corner[i].max(b.min[i]);
                let hi = self.side_max(i).min(b.max[i]);
                if lo > hi {
                    0
                } else {
                    u128::from(hi - lo) + 1
                }
            })
            .product()
    }

    fn volume(&self) -> u128 {
        1u128 << (self.level as usize * D)
    }
}

/// Covers `b` with at most `max_ranges` (at least 1) runs of curve values, where
/// `index` maps a point to its curve value and aligned cells are contiguous runs.
fn cover<const D: usize>(
    b: &BoundingBox<D>,
    max_ranges: usize,
    index: impl Fn([u32; D]) -> u128,
) -> Vec<RangeInclusive<u128>> {
    let max_ranges = max_ranges.max(1);
    // Refine until there are this many cells; more cells give the gap merge more choice.
    let cell_cap = max_ranges.saturating_mul(8).clamp(64, 1 << 16);
    // The smallest aligned cell holding the whole box.
    let level = (0..D)
        .map(|i| COORD_BITS - (b.min[i] ^ b.max[i]).leading_zeros())
        .max()
        .unwrap_or(0);
    let mask = |v: u32| {
        if level == COORD_BITS {
            0
        } else {
            v & !((1u32 << level) - 1)
        }
    };
    let root = Cell {
        corner: b.min.map(mask),
        level,
    };

    // Cells still to refine, largest waste (points outside the box) first.
    let mut cells: Vec<Cell<D>> = vec![root];
    let mut open: BinaryHeap<(u128, usize)> = BinaryHeap::new();
    open.push((root.volume() - root.overlap(b), 0));
    let mut done: Vec<usize> = Vec::new();
    while let Some(&(waste, index_of_cell)) = open.peek() {
        if waste == 0 || open.len() + done.len() + (1 << D) - 1 > cell_cap {
            break;
        }
        open.pop();
        let cell = cells[index_of_cell];
        let child_level = cell.level - 1;
        for k in 0..(1usize << D) {
            let mut corner = cell.corner;
            for (i, c) in corner.iter_mut().enumerate() {
                if k >> i & 1 == 1 {
                    *c |= 1 << child_level;
                }
            }
            let child = Cell {
                corner,
                level: child_level,
            };
            let overlap = child.overlap(b);
            if overlap == 0 {
                continue;
            }
            cells.push(child);
            let waste = child.volume() - overlap;
            if waste == 0 {
                done.push(cells.len() - 1);
            } else {
                open.push((waste, cells.len() - 1));
            }
        }
    }
    done.extend(open.into_iter().map(|(_, i)| i));

    let mut ranges: Vec<(u128, u128)> = done
        .iter()
        .map(|&i| {
            let c = &cells[i];
            let run = c.volume() - 1;
            let start = index(c.corner) & !run;
            (start, start | run)
        })
        .collect();
    ranges.sort_unstable();
    merge(ranges, max_ranges)
}

/// Joins touching runs, then closes the smallest gaps until at most `max_ranges` remain.
fn merge(sorted: Vec<(u128, u128)>, max_ranges: usize) -> Vec<RangeInclusive<u128>> {
    let mut runs: Vec<(u128, u128)> = Vec::with_capacity(sorted.len());
    for (lo, hi) in sorted {
        match runs.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => runs.push((lo, hi)),
        }
    }
    if runs.len() > max_ranges {
        // Gap i lies between runs i and i+1; keep the largest max_ranges - 1 gaps open.
        let mut gaps: Vec<(u128, usize)> = (0..runs.len() - 1)
            .map(|i| (runs[i + 1].0 - runs[i].1, i))
            .collect();
        gaps.sort_unstable_by(|a, b| b.cmp(a));
        let mut open_gaps: Vec<usize> = gaps[..max_ranges - 1].iter().map(|&(_, i)| i).collect();
        open_gaps.sort_unstable();
        let mut merged = Vec::with_capacity(max_ranges);
        let mut start = 0;
        for &g in &open_gaps {
            merged.push((runs[start].0, runs[g].1));
            start = g + 1;
        }
        merged.push((runs[start].0, runs[runs.len() - 1].1));
        runs = merged;
    }
    runs.into_iter().map(|(lo, hi)| lo..=hi).collect()
}

fn narrow(ranges: Vec<RangeInclusive<u128>>) -> Vec<RangeInclusive<u64>> {
    // 2D curve values are below 2^64 by construction.
    ranges
        .into_iter()
        .map(|r| (*r.start() as u64)..=(*r.end() as u64))
        .collect()
}

/// At most `max_ranges` (treated as at least 1) sorted, disjoint ranges of [`morton2`]
/// values that together contain every point of `b`.
///
/// ```
/// use sortpath::spatial::{morton2, morton2_ranges, BoundingBox};
/// let b = BoundingBox::new([0, 0], [3, 3]);
/// assert_eq!(morton2_ranges(&b, 4), vec![0..=15]); // an aligned square is one run
/// let b = BoundingBox::new([1, 1], [2, 2]);
/// let ranges = morton2_ranges(&b, 4);
/// assert_eq!(ranges, vec![3..=3, 6..=6, 9..=9, 12..=12]);
/// assert_eq!(morton2_ranges(&b, 1), vec![3..=12]);
/// ```
pub fn morton2_ranges(b: &BoundingBox<2>, max_ranges: usize) -> Vec<RangeInclusive<u64>> {
    narrow(cover(b, max_ranges, |[x, y]| u128::from(morton2(x, y))))
}

/// At most `max_ranges` (treated as at least 1) sorted, disjoint ranges of [`hilbert2`]
/// values that together contain every point of `b`.
///
/// ```
/// use sortpath::spatial::{hilbert2, hilbert2_ranges, BoundingBox};
/// let b = BoundingBox::new([1, 1], [2, 2]);
/// let ranges = hilbert2_ranges(&b, 2);
/// assert!(ranges.len() <= 2);
/// for (x, y) in [(1, 1), (1, 2), (2, 1), (2, 2)] {
///     assert!(ranges.iter().any(|r| r.contains(&hilbert2(x, y))));
/// }
/// ```
pub fn hilbert2_ranges(b: &BoundingBox<2>, max_ranges: usize) -> Vec<RangeInclusive<u64>> {
    narrow(cover(b, max_ranges, |[x, y]| u128::from(hilbert2(x, y))))
}

/// At most `max_ranges` (treated as at least 1) sorted, disjoint ranges of [`morton3`]
/// values that together contain every point of `b`.
///
/// ```
/// use sortpath::spatial::{morton3_ranges, BoundingBox};
/// let b = BoundingBox::new([0, 0, 0], [1, 1, 1]);
/// assert_eq!(morton3_ranges(&b, 1), vec![0..=7]);
/// ```
pub fn morton3_ranges(b: &BoundingBox<3>, max_ranges: usize) -> Vec<RangeInclusive<u128>> {
    cover(b, max_ranges, |[x, y, z]| morton3(x, y, z))
}

/// Why a latitude or longitude cannot be placed on the grid.
///
/// ```
/// let err = sortpath::spatial::GeoPoint::new(91.0, 0.0).unwrap_err();
/// assert_eq!(err.to_string(), "expected a latitude in -90..=90 degrees, found 91");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("expected a {axis} in {range} degrees, found {found}")]
pub struct GeoRangeError {
    axis: &'static str,
    range: &'static str,
    found: f64,
}

/// A point on Earth in degrees (WGS 84 latitude and longitude).
///
/// ```
/// use sortpath::spatial::{hilbert2, GeoPoint};
/// let paris = GeoPoint::new(48.8566, 2.3522)?;
/// let (x, y) = paris.to_grid();
/// let key = hilbert2(x, y);
/// let back = GeoPoint::from_grid(x, y);
/// assert!((back.lat() - 48.8566).abs() < 1e-7 && (back.lon() - 2.3522).abs() < 1e-7);
/// # let _ = key;
/// # Ok::<(), sortpath::spatial::GeoRangeError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoPoint {
    lat: f64,
    lon: f64,
}

/// Grid steps per axis (2^32).
const GRID_STEPS: f64 = 4_294_967_296.0;

fn quantize(value: f64, min: f64, span: f64) -> u32 {
    // Floor into 2^32 equal steps; the top edge (e.g. lat 90) joins the last step.
    let scaled = ((value - min) / span * GRID_STEPS).floor();
    if scaled >= GRID_STEPS - 1.0 {
        u32::MAX
    } else {
        scaled as u32
    }
}

fn dequantize(step: u32, min: f64, span: f64) -> f64 {
    // The centre of the step, so a round trip errs by at most half a step.
    min + (f64::from(step) + 0.5) / GRID_STEPS * span
}

impl GeoPoint {
    /// A point; errors if latitude is outside -90..=90, longitude outside -180..=180,
    /// or either is NaN.
    ///
    /// ```
    /// assert!(sortpath::spatial::GeoPoint::new(0.0, f64::NAN).is_err());
    /// ```
    pub fn new(lat: f64, lon: f64) -> Result<GeoPoint, GeoRangeError> {
        if !(-90.0..=90.0).contains(&lat) {
            return Err(GeoRangeError {
                axis: "latitude",
                range: "-90..=90",
                found: lat,
            });
        }
        if !(-180.0..=180.0).contains(&lon) {
            return Err(GeoRangeError {
                axis: "longitude",
                range: "-180..=180",
                found: lon,
            });
        }
        Ok(GeoPoint { lat, lon })
    }

    /// Latitude in degrees.
    ///
    /// ```
    /// assert_eq!(sortpath::spatial::GeoPoint::new(1.5, 2.0)?.lat(), 1.5);
    /// # Ok::<(), sortpath::spatial::GeoRangeError>(())
    /// ```
    pub fn lat(&self) -> f64 {
        self.lat
    }

    /// Longitude in degrees.
    ///
    /// ```
    /// assert_eq!(sortpath::spatial::GeoPoint::new(1.5, 2.0)?.lon(), 2.0);
    /// # Ok::<(), sortpath::spatial::GeoRangeError>(())
    /// ```
    pub fn lon(&self) -> f64 {
        self.lon
    }

    /// The grid cell `(x, y)`: longitude and latitude each quantized (floored) to 2^32
    /// steps; larger latitude/longitude never gives a smaller coordinate.
    ///
    /// ```
    /// use sortpath::spatial::GeoPoint;
    /// assert_eq!(GeoPoint::new(-90.0, -180.0)?.to_grid(), (0, 0));
    /// assert_eq!(GeoPoint::new(90.0, 180.0)?.to_grid(), (u32::MAX, u32::MAX));
    /// assert_eq!(GeoPoint::new(0.0, 0.0)?.to_grid(), (1 << 31, 1 << 31));
    /// # Ok::<(), sortpath::spatial::GeoRangeError>(())
    /// ```
    pub fn to_grid(&self) -> (u32, u32) {
        (
            quantize(self.lon, -180.0, 360.0),
            quantize(self.lat, -90.0, 180.0),
        )
    }

    /// The centre of grid cell `(x, y)`.
    ///
    /// ```
    /// let p = sortpath::spatial::GeoPoint::from_grid(0, 0);
    /// assert!(p.lat() > -90.0 && p.lat() < -89.99999);
    /// ```
    pub fn from_grid(x: u32, y: u32) -> GeoPoint {
        GeoPoint {
            lat: dequantize(y, -90.0, 180.0),
            lon: dequantize(x, -180.0, 360.0),
        }
    }

    /// The grid boxes covering the area between two corners `south_west` and
    /// `north_east`: one box, or two when the area crosses the antimeridian
    /// (`south_west.lon() > north_east.lon()`).
    ///
    /// ```
    /// use sortpath::spatial::GeoPoint;
    /// let boxes = GeoPoint::grid_boxes(GeoPoint::new(-10.0, 170.0)?, GeoPoint::new(10.0, -170.0)?);
    /// assert_eq!(boxes.len(), 2);
    /// # Ok::<(), sortpath::spatial::GeoRangeError>(())
    /// ```
    pub fn grid_boxes(south_west: GeoPoint, north_east: GeoPoint) -> Vec<BoundingBox<2>> {
        let (x0, y0) = south_west.to_grid();
        let (x1, y1) = north_east.to_grid();
        let (y0, y1) = (y0.min(y1), y0.max(y1));
        if x0 <= x1 {
            vec![BoundingBox::new([x0, y0], [x1, y1])]
        } else {
            vec![
                BoundingBox::new([x0, y0], [u32::MAX, y1]),
                BoundingBox::new([0, y0], [x1, y1]),
            ]
        }
    }
}
