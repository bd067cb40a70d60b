//! sortpath-store on SlateDB (feature `slatedb`): the same items and queries as on the
//! embedded store, with the data in an object store. Here the object store is a local
//! directory; an `s3://bucket/prefix` URL works the same way once the matching
//! `object_store` features are enabled (see the `backend::slatedb` docs).
//!
//! ```sh
//! cargo run --release -p sortpath-store --features slatedb --example object_storage [DIR]
//! ```
//!
//! A write returns once it is durable in the object store. A second process that opens the
//! same database for writing fences this one: its next write fails with an error rather
//! than being acknowledged and lost.

use serde::{Deserialize, Serialize};
use sortpath::{path::PathError, KeyPath};
use sortpath_store::backend::slatedb::{SlateDbBackend, SlateDbOptions};
use sortpath_store::{Item, Query, Store};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Reading {
    sensor: String,
    /// Seconds since the epoch.
    at: u64,
    celsius: f64,
}

impl Item for Reading {
    const TYPE: &'static str = "reading";
    fn key_path(&self) -> Result<KeyPath, PathError> {
        KeyPath::new()
            .push("sensor", self.sensor.as_str())?
            .push("at", self.at)
    }
}

async fn run(location: &str) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    // A short flush interval suits an interactive program: each write waits for it.
    let options = SlateDbOptions::default().flush_interval(std::time::Duration::from_millis(5));
    let store = Store::new(SlateDbBackend::open_with_options(location, options).await?);
    let mut out = Vec::new();
    for (at, celsius) in [(1_000, 20.5), (1_060, 21.0), (1_120, 21.25), (1_180, 20.75)] {
        store
            .put(&Reading {
                sensor: "hall".into(),
                at,
                celsius,
            })
            .await?;
    }
    // The last two readings of the sensor: one reverse range read.
    let latest = Query::prefix(&"/sensor-hall".parse()?)?.reverse().limit(2);
    let page = store.list::<Reading>(&latest).await?;
    let got: Vec<(u64, f64)> = page
        .items
        .iter()
        .map(|r| (r.item.at, r.item.celsius))
        .collect();
    assert_eq!(got, [(1_180, 20.75), (1_120, 21.25)]);
    out.push(format!("latest two readings: {got:?}"));
    // Readings between two times: a key range within the sensor's collection.
    let from: KeyPath = "/sensor-hall/at-1060".parse()?;
    let to: KeyPath = "/sensor-hall/at-1180".parse()?;
    let window = Query::prefix(&"/sensor-hall".parse()?)?
        .gte(&from)?
        .lt(&to)?;
    let page = store.list::<Reading>(&window).await?;
    let times: Vec<u64> = page.items.iter().map(|r| r.item.at).collect();
    assert_eq!(times, [1_060, 1_120]);
    out.push(format!("readings from 1060 up to 1180: {times:?}"));
    Ok(out)
}

#[cfg_attr(test, allow(dead_code))]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let temp = tempfile::tempdir()?;
    let location = match std::env::args().nth(1) {
        Some(dir) => dir,
        None => temp
            .path()
            .to_str()
            .ok_or("a UTF-8 temporary path")?
            .to_owned(),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    for line in rt.block_on(run(&location))? {
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn latest_readings_and_a_time_window() {
        let dir = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap();
        let lines = rt
            .block_on(super::run(dir.path().to_str().unwrap()))
            .unwrap();
        assert_eq!(lines.len(), 2);
    }
}
