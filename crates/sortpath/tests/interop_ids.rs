//! KSUID, ULID and UUIDv7 against independent Python implementations (svix-ksuid,
//! python-ulid, uuid6): parse theirs, produce ours, compare bytes, text and timestamps.

#![cfg(feature = "uuid")]

mod support;

use sortpath::idgen::{
    uuid7_timestamp_ms, Ksuid, KsuidGenerator, Ulid, UlidGenerator, Uuid7Generator,
};
use support::python::{assert_same_lines, hex, run_script, Rng};

#[test]
fn their_ids_parse_to_the_same_bytes_and_times() {
    let out = run_script("ids.py", &["generate", "200"], "");
    let mut seen = [0usize; 3];
    for line in out.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [kind, text, bytes, time] = fields[..] else {
            panic!("bad oracle line {line:?}")
        };
        match kind {
            "ksuid" => {
                let id: Ksuid = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(hex(id.as_bytes()), bytes, "{text}");
                assert_eq!(id.unix_seconds().to_string(), time, "{text}");
                assert_eq!(id.to_string(), text);
                seen[0] += 1;
            }
            "ulid" => {
                let id: Ulid = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(hex(&id.to_bytes()), bytes, "{text}");
                assert_eq!(id.timestamp_ms().to_string(), time, "{text}");
                assert_eq!(id.to_string(), text);
                seen[1] += 1;
            }
            "uuid7" => {
                let id: uuid::Uuid = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
                assert_eq!(hex(id.as_bytes()), bytes, "{text}");
                assert_eq!(
                    uuid7_timestamp_ms(id).map(|t| t.to_string()).as_deref(),
                    Some(time),
                    "{text}"
                );
                seen[2] += 1;
            }
            other => panic!("unknown kind {other}"),
        }
    }
    assert_eq!(seen, [200, 200, 200]);
}

#[test]
fn our_ids_parse_the_same_in_their_libraries() {
    let mut rng = Rng::new(0x05EE_D1D5);
    let mut lines = String::new();
    let mut expected = Vec::new();
    let (mut k, mut u, mut v) = (
        KsuidGenerator::new(),
        UlidGenerator::new(),
        Uuid7Generator::new(),
    );
    let mut fill = |buf: &mut [u8]| rng.fill(buf);
    for i in 0..300u64 {
        // Many IDs per second/millisecond, so the monotonic increments are exercised too.
        let seconds = 1_400_000_000 + (i / 10) as i64 * 7_919;
        let millis = 1_700_000_000_000 + i / 10;
        let ks = k.generate(seconds, &mut fill).unwrap();
        let ul = u.generate(millis, &mut fill).unwrap();
        let uu = v.generate(millis, &mut fill).unwrap();
        lines += &format!("ksuid {ks}\nulid {ul}\nuuid7 {uu}\n");
        expected.push(format!("{} {}", hex(ks.as_bytes()), ks.unix_seconds()));
        expected.push(format!("{} {}", hex(&ul.to_bytes()), ul.timestamp_ms()));
        expected.push(format!(
            "{} {}",
            hex(uu.as_bytes()),
            uuid7_timestamp_ms(uu).unwrap()
        ));
    }
    // Extremes: the largest values, and one above the largest (rejected by both sides).
    for (kind, text, ours) in [
        (
            "ksuid",
            Ksuid::MAX.to_string(),
            Some(format!(
                "{} {}",
                hex(Ksuid::MAX.as_bytes()),
                Ksuid::MAX.unix_seconds()
            )),
        ),
        (
            "ksuid",
            Ksuid::MIN.to_string(),
            Some(format!(
                "{} {}",
                hex(Ksuid::MIN.as_bytes()),
                Ksuid::MIN.unix_seconds()
            )),
        ),
        ("ksuid", "aWgEPTl1tmebfsQzFP4bxwgy80W".to_string(), None),
        (
            "ulid",
            Ulid::MAX.to_string(),
            Some(format!(
                "{} {}",
                hex(&Ulid::MAX.to_bytes()),
                Ulid::MAX.timestamp_ms()
            )),
        ),
        ("ulid", "80000000000000000000000000".to_string(), None),
    ] {
        lines += &format!("{kind} {text}\n");
        expected.push(ours.clone().unwrap_or_else(|| "error".into()));
        match kind {
            "ksuid" => assert_eq!(text.parse::<Ksuid>().is_ok(), ours.is_some(), "{text}"),
            _ => assert_eq!(text.parse::<Ulid>().is_ok(), ours.is_some(), "{text}"),
        }
    }
    let out = run_script("ids.py", &["parse"], &lines);
    assert_same_lines(&out, &expected, &lines);
}

#[test]
fn monotonic_ulids_match_python_ulid() {
    // Same clock readings and randomness into both generators: identical ULIDs,
    // including the increment within a millisecond and the overflow error.
    let mut rng = Rng::new(77);
    let mut steps: Vec<(u64, [u8; 10])> = Vec::new();
    let mut millis = 1_469_922_850_259u64;
    for i in 0..200 {
        if i % 7 == 0 {
            millis += 1 + rng.next_u64() % 3;
        }
        let mut r = [0u8; 10];
        rng.fill(&mut r);
        if i == 150 {
            r = [0xFF; 10]; // the next same-millisecond step must overflow
            millis += 1;
        }
        steps.push((millis, r));
        if i == 150 {
            steps.push((millis, r));
            millis += 1;
        }
    }
    let input: String = steps
        .iter()
        .map(|(m, r)| format!("{m} {}\n", hex(r)))
        .collect();
    let theirs = run_script("ids.py", &["ulid-seq"], &input);
    let mut generator = UlidGenerator::new();
    let ours: Vec<String> = steps
        .iter()
        .map(
            |(m, r)| match generator.generate(*m, &mut |buf: &mut [u8]| buf.copy_from_slice(r)) {
                Ok(id) => id.to_string(),
                Err(_) => "overflow".to_string(),
            },
        )
        .collect();
    assert!(ours.iter().any(|s| s == "overflow"));
    assert_eq!(theirs.lines().collect::<Vec<_>>(), ours);
}
