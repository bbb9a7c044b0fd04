use super::payload::{check_records, scan_payload, PayloadScan, Segment};
use super::*;
use std::path::Path;

/// A segment beyond 2³² ranks with 16-byte records (the width of
/// Adji-Boto 44 and above) checks, and out-of-order, out-of-range or
/// padded records are refused: the reader's record checks at the
/// width a 4-billion-entry level has, without such a file.
#[test]
fn wide_records_of_a_segment_beyond_u32_are_checked() {
    let first = u32::MAX as u64 - 3;
    let mut values = vec![1u8; 10];
    let mut recs = vec![0u8; 3 * 16];
    for (k, &i) in [1usize, 4, 9].iter().enumerate() {
        values[i] = format::EXCEPTION as u8;
        format::encode_record(&mut recs[k * 16..(k + 1) * 16], first + i as u64, 0xfe, 3);
    }
    let path = Path::new("x");
    let seg = |r: &[u8]| -> Result<(), TableError> {
        let s = Segment {
            first,
            values: &values,
            records: r,
            path,
            crcs: None,
        };
        check_records(&s, path, 16, 20)
    };
    seg(&recs).unwrap();
    assert!(format::record_rank(&recs[16..32]) > u32::MAX as u64);
    assert_eq!(format::find_record(&recs, 16, first + 9), Some((0xfe, 3)));
    let mut swapped = recs.clone();
    swapped[..16].copy_from_slice(&recs[16..32]);
    swapped[16..32].copy_from_slice(&recs[..16]);
    assert!(seg(&swapped).is_err());
    let mut padded = recs.clone();
    padded[15] = 1;
    assert!(seg(&padded).is_err());
    let mut outside = recs.clone();
    format::encode_record(&mut outside[32..], first + 10, 0xfe, 3);
    assert!(seg(&outside).is_err());
    assert!(seg(&recs[..40]).is_err());
}

/// The pieced, parallel scan equals one sequential CRC and count, for
/// pieces that split the values, the exception list, or neither.
#[test]
fn pieced_payload_scan_equals_the_sequential_one() {
    let mut payload: Vec<u8> = (0..10_007u32).map(|i| (i * 7919 % 251) as u8).collect();
    for i in (0..payload.len()).step_by(97) {
        payload[i] = format::EXCEPTION as u8;
    }
    for values in [0, 1, 5_000, 9_999, 10_007] {
        for n in [0u8, 3, 48, 100] {
            let vals = &payload[..values];
            let count = |f: &dyn Fn(i8) -> bool| vals.iter().filter(|&&b| f(b as i8)).count();
            let want = PayloadScan {
                crc: crc32fast::hash(&payload),
                marked: count(&|v| v == format::EXCEPTION) as u64,
                outside: count(&|v| (v as i32).abs() > n as i32) as u64,
            };
            for piece in [1, 7, 64, 4096, 1 << 20] {
                assert_eq!(
                    scan_payload(&payload, values, n, piece),
                    want,
                    "values {values} n {n} piece {piece}"
                );
            }
        }
    }
}
