//! The `fwsvm` command (`cargo install fwsvm --features cli`): `fwsvm train|predict|scale`,
//! LIBSVM's `svm-train`, `svm-predict` and `svm-scale` (see `fwsvm::cli`). Installed under the
//! names `fwsvm-train`, `fwsvm-predict` or `fwsvm-scale` it runs that command.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

fn main() {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    // The first Ctrl-C stops the run at its next check (no half-written file is left); a
    // second one exits at once.
    let _ = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    });
    let args: Vec<String> = std::env::args().collect();
    std::process::exit(fwsvm::cli::main_from_args(args, cancel));
}
