//! The ZIP container of the payload, as NumPy's `np.savez` writes it: one *stored*
//! (uncompressed) entry per array. Reading follows the central directory (with its ZIP64
//! extensions, which NumPy's writer may use) and checks every entry's CRC-32; compressed or
//! encrypted entries are refused. Writing produces a plain ZIP (ZIP64 is not needed below
//! 4 GiB) with fixed timestamps, so the same model gives the same bytes.

const LOCAL: u32 = 0x0403_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const END: u32 = 0x0605_4b50;
const END64: u32 = 0x0606_4b50;
const END64_LOCATOR: u32 = 0x0706_4b50;
/// 1980-01-01 in MS-DOS date format (the ZIP epoch).
const DOS_DATE: u16 = (1 << 5) | 1;

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// The entries of a ZIP archive of stored files, as (name, contents) borrowed from `zip`.
///
/// # Errors
/// A message naming what is malformed.
pub(crate) fn read_stored(zip: &[u8]) -> Result<Vec<(String, &[u8])>, String> {
    let short = || "the archive is truncated or not a ZIP file".to_string();
    // The end-of-central-directory record: 22 bytes plus a comment of at most 65,535.
    let lowest = zip.len().saturating_sub(22 + 65_535);
    let end = (lowest..=zip.len().saturating_sub(22))
        .rev()
        .find(|&i| u32_at(zip, i) == Some(END))
        .filter(|_| zip.len() >= 22)
        .ok_or_else(short)?;
    let mut n_entries = u64::from(u16_at(zip, end + 10).ok_or_else(short)?);
    let mut cd_size = u64::from(u32_at(zip, end + 12).ok_or_else(short)?);
    let mut cd_offset = u64::from(u32_at(zip, end + 16).ok_or_else(short)?);
    if n_entries == 0xFFFF || cd_size == 0xFFFF_FFFF || cd_offset == 0xFFFF_FFFF {
        let locator = end.checked_sub(20).ok_or_else(short)?;
        if u32_at(zip, locator) != Some(END64_LOCATOR) {
            return Err("the ZIP64 end record is missing".into());
        }
        let at =
            usize::try_from(u64_at(zip, locator + 8).ok_or_else(short)?).map_err(|_| short())?;
        if u32_at(zip, at) != Some(END64) {
            return Err("the ZIP64 end record is malformed".into());
        }
        n_entries = u64_at(zip, at + 32).ok_or_else(short)?;
        cd_size = u64_at(zip, at + 40).ok_or_else(short)?;
        cd_offset = u64_at(zip, at + 48).ok_or_else(short)?;
    }
    let cd_start = usize::try_from(cd_offset).map_err(|_| short())?;
    let cd_end = usize::try_from(cd_size)
        .ok()
        .and_then(|s| cd_start.checked_add(s))
        .filter(|&e| e <= zip.len())
        .ok_or_else(short)?;
    let cd = &zip[cd_start..cd_end];
    // Each central record takes at least 46 bytes: the count cannot ask for more than that.
    if n_entries > (cd.len() / 46) as u64 {
        return Err(format!(
            "the archive claims {n_entries} entries in a {}-byte directory",
            cd.len()
        ));
    }
    let mut entries = Vec::with_capacity(n_entries as usize);
    let mut p = 0usize;
    for _ in 0..n_entries {
        if u32_at(cd, p) != Some(CENTRAL) {
            return Err("a central directory record is malformed".into());
        }
        let field = |at: usize| u16_at(cd, p + at).ok_or_else(short);
        let (flags, method) = (field(8)?, field(10)?);
        let crc = u32_at(cd, p + 16).ok_or_else(short)?;
        let mut compressed = u64::from(u32_at(cd, p + 20).ok_or_else(short)?);
        let mut size = u64::from(u32_at(cd, p + 24).ok_or_else(short)?);
        let (name_len, extra_len, comment_len) = (
            field(28)? as usize,
            field(30)? as usize,
            field(32)? as usize,
        );
        let mut offset = u64::from(u32_at(cd, p + 42).ok_or_else(short)?);
        let name = cd.get(p + 46..p + 46 + name_len).ok_or_else(short)?;
        let extra = cd
            .get(p + 46 + name_len..p + 46 + name_len + extra_len)
            .ok_or_else(short)?;
        // ZIP64 extra field (id 1): the 64-bit values of the fields saturated at 0xFFFFFFFF,
        // in the order uncompressed size, compressed size, offset.
        let mut e = 0;
        while e + 4 <= extra.len() {
            let (id, len) = (
                u16_at(extra, e).unwrap_or(0),
                u16_at(extra, e + 2).unwrap_or(0) as usize,
            );
            let body = extra.get(e + 4..e + 4 + len).ok_or_else(short)?;
            if id == 1 {
                let mut q = 0;
                for value in [&mut size, &mut compressed, &mut offset] {
                    if *value == 0xFFFF_FFFF {
                        *value = u64_at(body, q).ok_or_else(short)?;
                        q += 8;
                    }
                }
            }
            e += 4 + len;
        }
        p += 46 + name_len + extra_len + comment_len;
        let name = String::from_utf8(name.to_vec())
            .map_err(|_| "an entry name is not UTF-8".to_string())?;
        if flags & 1 != 0 {
            return Err(format!("entry {name:?} is encrypted"));
        }
        if method != 0 || compressed != size {
            return Err(format!(
                "entry {name:?} is compressed (method {method}); model files store arrays uncompressed"
            ));
        }
        let local = usize::try_from(offset).map_err(|_| short())?;
        if u32_at(zip, local) != Some(LOCAL) {
            return Err(format!("entry {name:?} has no local header"));
        }
        let skip = 30
            + u16_at(zip, local + 26).ok_or_else(short)? as usize
            + u16_at(zip, local + 28).ok_or_else(short)? as usize;
        let start = local + skip;
        let data = usize::try_from(size)
            .ok()
            .and_then(|s| start.checked_add(s))
            .and_then(|end| zip.get(start..end))
            .ok_or_else(|| format!("entry {name:?} is truncated"))?;
        if crc32fast::hash(data) != crc {
            return Err(format!("entry {name:?} fails its CRC-32 check"));
        }
        entries.push((name, data));
    }
    Ok(entries)
}

/// A ZIP archive storing `entries` uncompressed.
///
/// # Errors
/// A message when an entry or the archive would exceed the 4 GiB of a plain ZIP.
pub(crate) fn write_stored(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let too_big = || "the model is larger than 4 GiB, which this format does not store".to_string();
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = u32::try_from(out.len()).map_err(|_| too_big())?;
        let size = u32::try_from(data.len()).map_err(|_| too_big())?;
        let name_len = u16::try_from(name.len()).map_err(|_| "an entry name is too long")?;
        let crc = crc32fast::hash(data);
        // Shared fields: version needed 2.0, no flags, stored, time 0, date, crc, sizes.
        let mut common = Vec::with_capacity(26);
        common.extend_from_slice(&20u16.to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes());
        common.extend_from_slice(&DOS_DATE.to_le_bytes());
        common.extend_from_slice(&crc.to_le_bytes());
        common.extend_from_slice(&size.to_le_bytes());
        common.extend_from_slice(&size.to_le_bytes());
        common.extend_from_slice(&name_len.to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes()); // extra length
        out.extend_from_slice(&LOCAL.to_le_bytes());
        out.extend_from_slice(&common);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(&CENTRAL.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // version made by
        central.extend_from_slice(&common);
        central.extend_from_slice(&0u16.to_le_bytes()); // comment length
        central.extend_from_slice(&0u16.to_le_bytes()); // disk
        central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        central.extend_from_slice(&(0o600u32 << 16).to_le_bytes()); // external: rw-------
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = u32::try_from(out.len()).map_err(|_| too_big())?;
    let cd_size = u32::try_from(central.len()).map_err(|_| too_big())?;
    let count = u16::try_from(entries.len()).map_err(|_| "too many arrays in one model")?;
    out.extend_from_slice(&central);
    out.extend_from_slice(&END.to_le_bytes());
    out.extend_from_slice(&[0; 4]); // disk numbers
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&cd_size.to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let entries = vec![
            ("a.npy".to_string(), b"hello".to_vec()),
            ("b.npy".into(), vec![]),
        ];
        let zip = write_stored(&entries).unwrap();
        let back = read_stored(&zip).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!((back[0].0.as_str(), back[0].1), ("a.npy", &b"hello"[..]));
        let mut bad = zip.clone();
        bad[30 + 5] ^= 1; // inside "hello"
        assert!(read_stored(&bad).unwrap_err().contains("CRC"));
        for cut in [0, 10, zip.len() - 1] {
            assert!(read_stored(&zip[..cut]).is_err());
        }
    }
}
