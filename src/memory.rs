//! How much memory this process can still take, for sizing the kernel-column cache.
//!
//! The cache is the one buffer whose size the user sets freely (`cache_size`), so it is the one
//! that must not run the process out of memory: [`cache_budget`] caps the requested budget at a
//! quarter of the memory still available (a quarter leaves room for the rest of the fit and for
//! two one-vs-one pairs training side by side). On Linux the available memory is the smaller of
//! `MemAvailable` (`/proc/meminfo`) and the address space left under `RLIMIT_AS`
//! (`/proc/self/limits` minus `VmSize` of `/proc/self/status`); elsewhere the request is used
//! as given.

/// The cache budget in bytes for a request of `requested` bytes.
pub(crate) fn cache_budget(requested: usize) -> usize {
    match available() {
        Some(free) => requested.min(free / 4),
        None => requested,
    }
}

/// Bytes this process can still allocate, if the platform says.
pub(crate) fn available() -> Option<usize> {
    let physical = meminfo_available();
    let address_space = address_space_left();
    match (physical, address_space) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The value in kB of the line starting with `key` in a `/proc` status-style file, in bytes.
fn kb_field(text: &str, key: &str) -> Option<usize> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: usize = line[key.len()..].split_whitespace().next()?.parse().ok()?;
    kb.checked_mul(1024)
}

fn meminfo_available() -> Option<usize> {
    kb_field(&read("/proc/meminfo")?, "MemAvailable:")
}

fn address_space_left() -> Option<usize> {
    let limits = read("/proc/self/limits")?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft = line["Max address space".len()..]
        .split_whitespace()
        .next()?;
    let limit: usize = soft.parse().ok()?; // "unlimited" does not parse: no limit
    let used = kb_field(&read("/proc/self/status")?, "VmSize:")?;
    Some(limit.saturating_sub(used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_parse_as_in_proc() {
        let status = "Name:\tx\nVmSize:\t  123 kB\nVmRSS:\t 5 kB\n";
        assert_eq!(kb_field(status, "VmSize:"), Some(123 * 1024));
        assert_eq!(kb_field(status, "VmSwap:"), None);
    }

    #[test]
    fn the_budget_never_exceeds_the_request() {
        assert_eq!(cache_budget(1 << 20).min(1 << 20), cache_budget(1 << 20));
        assert!(cache_budget(1 << 20) > 0);
        if cfg!(target_os = "linux") {
            let free = available().expect("Linux reports available memory");
            assert!(cache_budget(usize::MAX) <= free / 4);
        }
    }
}
