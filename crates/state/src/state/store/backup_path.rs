//! The one backup path a write must refuse: one that is the state it backs up, the state's lock info,
//! or a temporary file of the write. Such a "backup" would replace the old state (or the lock info,
//! or be removed as a leftover) before the new state is written, so the old bytes would be lost while
//! the command said "backup `st.tfstate`". Paths are compared as the file system sees them: by
//! device and inode when the file exists (a hard link, a symlink, `./st.tfstate`, an absolute path),
//! and by the resolved path when it does not yet (the lock info before the lock is taken).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::state::store::StoreError;
use crate::state::store::lock_info::sidecar_path;
use crate::state::store::replace::{folder_of, temporary_prefix};

/// How many symbolic links are followed before giving up, as Linux's `ELOOP` limit.
const MAX_LINKS: usize = 40;

/// What a refused backup path would have overwritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Protected {
    State,
    LockInfo,
    Temporary,
}

/// Refuses `backup` when it names the state at `state`, its lock info, or a temporary file the
/// write uses beside it.
pub fn refuse_backup_over_state(backup: &Path, state: &Path) -> Result<(), StoreError> {
    let Some(what) = collides(backup, state) else {
        return Ok(());
    };
    let shown = backup.display();
    let message = match what {
        Protected::State => format!(
            "`--backup {shown}` is the state itself ({}): the backup would replace the state it backs up; nothing was written",
            state.display()
        ),
        Protected::LockInfo => format!(
            "`--backup {shown}` is the state's lock info file ({}); nothing was written",
            sidecar_path(state).display()
        ),
        Protected::Temporary => format!(
            "`--backup {shown}` is a temporary file statectl writes (and removes) beside the state; nothing was written"
        ),
    };
    Err(StoreError::new(message).with_hint(format!(
        "name another file, e.g. `--backup {}.old`, or `--backup -` for no backup",
        state.display()
    )))
}

fn collides(backup: &Path, state: &Path) -> Option<Protected> {
    let backup_identity = identity(backup);
    let backup_resolved = resolved(backup)?;
    let state_resolved = resolved(state);
    let same = |path: &Path| {
        (backup_identity.is_some() && identity(path) == backup_identity)
            || resolved(path).is_some_and(|path| path == backup_resolved)
    };
    if same(state) {
        return Some(Protected::State);
    }
    // The lock info beside the state as named (where statectl and Terraform write it), and beside
    // the file it resolves to (where a run naming that path writes it).
    let mut sidecars = vec![sidecar_path(state)];
    sidecars.extend(state_resolved.as_deref().map(sidecar_path));
    if sidecars.iter().any(|sidecar| same(sidecar)) {
        return Some(Protected::LockInfo);
    }
    // The new state's temporary file (`.<name>.statectl-<pid>.tmp`, beside the file the state
    // resolves to) and the lock info's (`.<lock info>.statectl-<pid>`): a write removes every
    // such file it finds as a killed writer's leftover.
    let name = backup_resolved.file_name()?.to_string_lossy().into_owned();
    let folder = backup_resolved.parent()?;
    let mut patterns: Vec<(PathBuf, String, &str)> = Vec::new();
    for target in [Some(state.to_owned()), state_resolved]
        .into_iter()
        .flatten()
    {
        if let Some(folder) = resolved_folder(&target) {
            patterns.push((folder, temporary_prefix(&target), ".tmp"));
        }
        let sidecar = sidecar_path(&target);
        if let (Some(folder), Some(sidecar_name)) = (resolved_folder(&sidecar), sidecar.file_name())
        {
            patterns.push((
                folder,
                format!("{}.statectl-", sidecar_name.to_string_lossy()),
                "",
            ));
        }
    }
    patterns
        .iter()
        .any(|(pattern_folder, prefix, suffix)| {
            pattern_folder == folder && name.starts_with(prefix.as_str()) && name.ends_with(suffix)
        })
        .then_some(Protected::Temporary)
}

/// The device and inode of the file at `path`, links followed; `None` when there is none.
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path)
        .ok()
        .map(|metadata| (metadata.dev(), metadata.ino()))
}

/// Where `path` leads: its symbolic links followed (also when the file at the end does not exist
/// yet), its folder made absolute and canonical. `None` when its folder does not exist (nothing
/// can be written there) or the links loop.
fn resolved(path: &Path) -> Option<PathBuf> {
    let mut path = path.to_owned();
    for _ in 0..MAX_LINKS {
        let Ok(metadata) = std::fs::symlink_metadata(&path) else {
            break;
        };
        if !metadata.file_type().is_symlink() {
            break;
        }
        let target = std::fs::read_link(&path).ok()?;
        path = folder_of(&path).join(target);
    }
    match path.file_name() {
        Some(name) => Some(std::fs::canonicalize(folder_of(&path)).ok()?.join(name)),
        // `..`, `/`: a folder, which no backup can replace.
        None => std::fs::canonicalize(&path).ok(),
    }
}

/// The canonical folder holding `path`.
fn resolved_folder(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(folder_of(path)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> (tempfile::TempDir, PathBuf) {
        let folder = tempfile::tempdir().unwrap();
        let state = folder.path().join("st.tfstate");
        std::fs::write(&state, "{}").unwrap();
        (folder, state)
    }

    #[test]
    fn the_state_by_any_name_is_refused() {
        let (folder, state) = folder();
        let dir = folder.path();
        std::os::unix::fs::symlink(&state, dir.join("link")).unwrap();
        std::fs::hard_link(&state, dir.join("hard")).unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        for backup in [
            state.clone(),
            dir.join("./st.tfstate"),
            dir.join("sub/../st.tfstate"),
            dir.join("link"),
            dir.join("hard"),
        ] {
            assert_eq!(
                collides(&backup, &state),
                Some(Protected::State),
                "{}",
                backup.display()
            );
        }
        // The state named through the link: the file it points to is the state too.
        assert_eq!(collides(&state, &dir.join("link")), Some(Protected::State));
    }

    #[test]
    fn the_lock_info_and_the_temporary_files_are_refused_before_they_exist() {
        let (folder, state) = folder();
        let dir = folder.path();
        std::os::unix::fs::symlink(dir.join(".st.tfstate.lock.info"), dir.join("dangling"))
            .unwrap();
        for (backup, what) in [
            (".st.tfstate.lock.info", Protected::LockInfo),
            ("dangling", Protected::LockInfo),
            (".st.tfstate.statectl-123.tmp", Protected::Temporary),
            (".st.tfstate.lock.info.statectl-123", Protected::Temporary),
        ] {
            assert_eq!(collides(&dir.join(backup), &state), Some(what), "{backup}");
        }
    }

    #[test]
    fn other_paths_are_taken() {
        let (folder, state) = folder();
        let dir = folder.path();
        std::fs::write(dir.join("copy"), "{}").unwrap();
        for backup in [
            "st.tfstate.backup",
            "copy",
            ".st.tfstate.statectl-1.txt",
            "nowhere/x",
        ] {
            assert_eq!(collides(&dir.join(backup), &state), None, "{backup}");
        }
        assert!(refuse_backup_over_state(&dir.join("st.tfstate.old"), &state).is_ok());
    }
}
