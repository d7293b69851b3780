//! What `statectl taint ADDRESS FILE --backup -` does to a plaintext state, through the same library
//! calls and nothing else (no rules, no diff, no printing): lock, read under the lock, parse, plan,
//! render the splice, check the re-rendered object, commit. For timing the write against its floor
//! (`cp` + `fsync` of the same file), as issue 27 asks: `taint_state ADDRESS FILE [taint|untaint|forget]`.

use std::time::Duration;

use statectl_state::state::legacy::StateBytes;
use statectl_state::state::mutate::{Mutation, check_splice, plan, render_tracked};
use statectl_state::state::store::{Backup, Locked};

fn main() {
    let mut arguments = std::env::args().skip(1);
    let (Some(address), Some(path)) = (arguments.next(), arguments.next()) else {
        panic!("usage: taint_state ADDRESS FILE [taint|untaint|forget]");
    };
    let mutation = match arguments.next().as_deref().unwrap_or("taint") {
        "taint" => Mutation::Taint(address.parse().expect("an instance address")),
        "untaint" => Mutation::Untaint(address.parse().expect("an instance address")),
        "forget" => Mutation::Forget(address.parse().expect("an address")),
        other => panic!("unknown operation `{other}`"),
    };
    let locked = Locked::acquire(path.as_ref(), "statectl taint", Duration::ZERO).expect("lock");
    let bytes = StateBytes::new(locked.read().expect("read"));
    let state = bytes.parse().expect("parse");
    let plan = plan(&state, &[mutation]).expect("plan");
    assert!(!plan.is_empty(), "nothing to change");
    let applied = render_tracked(&state, &plan);
    check_splice(&state, &plan, &applied).expect("the splice holds the plan");
    locked
        .commit_pieces(
            bytes.raw(),
            &applied.pieces().collect::<Vec<_>>(),
            &Backup::Skip,
        )
        .expect("commit");
}
