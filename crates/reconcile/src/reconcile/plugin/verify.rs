//! Checking a provider package against the checksums `.terraform.lock.hcl` records for it, as
//! Terraform does before it launches a cached provider: `h1:` is Go's module "dirhash" (Hash1) of
//! the unpacked package directory, `zh:` the SHA-256 of the release zip (checked only where the zip
//! itself is at hand; an unpacked directory can only meet an `h1:`). A lock entry with no
//! checksum Terraform knows is not checked, as in Terraform.

use std::fmt::Write as _;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// The scheme prefix of a package (directory) checksum.
pub const PACKAGE_SCHEME: &str = "h1:";
/// The scheme prefix of a release zip checksum.
pub const ZIP_SCHEME: &str = "zh:";

/// A package whose checksum cannot be computed.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Go's dirhash refuses these, so no recorded checksum can name such a package.
    #[error("`{}`: a file name with a line break cannot be checksummed", path.display())]
    LineBreak { path: PathBuf },
}

/// The `h1:` checksum of the package directory `dir`: every regular file under it (following
/// symbolic links, as Terraform resolves the directory itself), named by its path relative to `dir`
/// with `/` separators, sorted bytewise; each line `HEX(SHA-256(content))  NAME\n`; the checksum
/// is the base64 SHA-256 of those lines.
pub fn package_hash(dir: &Path) -> Result<String, HashError> {
    let dir = fs::canonicalize(dir).map_err(|source| HashError::Read {
        path: dir.to_owned(),
        source,
    })?;
    let mut files = Vec::new();
    collect_files(&dir, "", &mut files)?;
    files_hash(&dir, files)
}

/// The `h1:` checksum of a package holding the single file `binary` (a provider binary lying
/// directly in a `--plugin-dir`, which Terraform's release zip would hold alone).
pub fn single_file_hash(binary: &Path) -> Result<String, HashError> {
    let name = binary
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = binary.parent().unwrap_or_else(|| Path::new("."));
    files_hash(dir, vec![name])
}

/// The `zh:` checksum of a release zip: the hex SHA-256 of its bytes.
pub fn zip_hash(zip: &Path) -> Result<String, HashError> {
    Ok(format!("{ZIP_SCHEME}{}", hex(&file_digest(zip)?)))
}

fn files_hash(dir: &Path, mut files: Vec<String>) -> Result<String, HashError> {
    // Go sorts the names as byte strings; Rust's `String` order is the same.
    files.sort();
    let mut summary = Sha256::new();
    for name in &files {
        if name.contains('\n') {
            return Err(HashError::LineBreak {
                path: dir.join(name),
            });
        }
        let digest = file_digest(&dir.join(name))?;
        summary.update(format!("{}  {name}\n", hex(&digest)).as_bytes());
    }
    Ok(format!(
        "{PACKAGE_SCHEME}{}",
        STANDARD.encode(summary.finalize())
    ))
}

/// Walks `dir`, adding each non-directory entry's name relative to the package root (`prefix`
/// holds the path so far). Like Go's `filepath.Walk`, a symbolic link is listed as a file and read
/// through; one to a directory then fails to read, as in Terraform.
fn collect_files(dir: &Path, prefix: &str, files: &mut Vec<String>) -> Result<(), HashError> {
    let entries = fs::read_dir(dir).map_err(|source| HashError::Read {
        path: dir.to_owned(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| HashError::Read {
            path: dir.to_owned(),
            source,
        })?;
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        let kind = entry.file_type().map_err(|source| HashError::Read {
            path: entry.path(),
            source,
        })?;
        if kind.is_dir() {
            collect_files(&entry.path(), &format!("{name}/"), files)?;
        } else {
            files.push(name);
        }
    }
    Ok(())
}

fn file_digest(path: &Path) -> Result<Vec<u8>, HashError> {
    let read_error = |source| HashError::Read {
        path: path.to_owned(),
        source,
    };
    let mut file = fs::File::open(path).map_err(read_error)?;
    // aws-lc's SHA-256 (vector instructions, or the CPU's SHA extensions where it has them): a
    // provider binary is 100-400 MB and Terraform hashes it before every launch, so this is most of
    // a plugin read's start on a CPU without the extensions (1.0 s for the AWS provider's 177 MB
    // with the portable code, about half with this).
    let mut hasher = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA256);
    let mut buffer = vec![0_u8; 1 << 20];
    loop {
        let read = file.read(&mut buffer).map_err(read_error)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
    }
    Ok(hasher.finish().as_ref().to_vec())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut text, byte| {
        let _ = write!(text, "{byte:02x}");
        text
    })
}

/// What a package is, for checking: an unpacked directory (or a lone binary), or a release zip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Package {
    Directory(PathBuf),
    SingleFile(PathBuf),
    Zip(PathBuf),
}

/// Whether `package` matches one of `recorded` (the lock entry's `hashes`), as Terraform's
/// `MatchesAnyHash` decides: `h1:` against the package's contents, `zh:` only against a zip;
/// checksums of other schemes are ignored. `Ok(None)` when `recorded` holds none Terraform knows,
/// so nothing can be checked; otherwise the computed `h1:` (for messages) and whether it matched.
pub fn matches_any(package: &Package, recorded: &[String]) -> Result<Option<bool>, HashError> {
    let known: Vec<&String> = recorded
        .iter()
        .filter(|hash| hash.starts_with(PACKAGE_SCHEME) || hash.starts_with(ZIP_SCHEME))
        .collect();
    if known.is_empty() {
        return Ok(None);
    }
    let wants_package = known.iter().any(|hash| hash.starts_with(PACKAGE_SCHEME));
    let package_checksum = match (wants_package, package) {
        (true, Package::Directory(dir)) => Some(package_hash(dir)?),
        (true, Package::SingleFile(binary)) => Some(single_file_hash(binary)?),
        // A zip's `h1:` would need its entries unpacked; its `zh:` is checked below.
        _ => None,
    };
    let zip_checksum = match package {
        Package::Zip(zip) if known.iter().any(|hash| hash.starts_with(ZIP_SCHEME)) => {
            Some(zip_hash(zip)?)
        }
        _ => None,
    };
    Ok(Some(known.iter().any(|hash| {
        Some(hash.as_str()) == package_checksum.as_deref()
            || Some(hash.as_str()) == zip_checksum.as_deref()
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Go dirhash of a known tree, computed by hand from its definition: the lines
    /// `sha256(file)  name\n`, sorted by name, hashed again.
    #[test]
    fn package_hash_is_go_dirhash() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("terraform-provider-x_v1.0.0"), b"binary").unwrap();
        fs::create_dir(dir.path().join("docs")).unwrap();
        fs::write(dir.path().join("docs/LICENSE"), b"MPL").unwrap();
        fs::write(dir.path().join("CHANGELOG.md"), b"").unwrap();
        let line =
            |content: &[u8], name: &str| format!("{}  {name}\n", hex(&Sha256::digest(content)));
        // Bytewise order: upper case before lower case.
        let lines = format!(
            "{}{}{}",
            line(b"", "CHANGELOG.md"),
            line(b"MPL", "docs/LICENSE"),
            line(b"binary", "terraform-provider-x_v1.0.0")
        );
        let expected = format!("h1:{}", STANDARD.encode(Sha256::digest(lines.as_bytes())));
        assert_eq!(package_hash(dir.path()).unwrap(), expected);

        // A lone binary hashes as a package holding only it.
        let single = format!(
            "h1:{}",
            STANDARD.encode(Sha256::digest(
                line(b"binary", "terraform-provider-x_v1.0.0").as_bytes()
            ))
        );
        assert_eq!(
            single_file_hash(&dir.path().join("terraform-provider-x_v1.0.0")).unwrap(),
            single
        );
    }

    #[test]
    fn one_changed_byte_changes_the_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("terraform-provider-x");
        fs::write(&binary, b"binary").unwrap();
        let before = package_hash(dir.path()).unwrap();
        fs::write(&binary, b"binarz").unwrap();
        assert_ne!(package_hash(dir.path()).unwrap(), before);
    }

    #[test]
    fn zip_checksums_meet_only_zips() {
        let dir = tempfile::tempdir().unwrap();
        let zip = dir
            .path()
            .join("terraform-provider-x_1.0.0_linux_amd64.zip");
        fs::write(&zip, b"PK not really").unwrap();
        let zh = zip_hash(&zip).unwrap();
        assert_eq!(zh, format!("zh:{}", hex(&Sha256::digest(b"PK not really"))));
        assert_eq!(
            matches_any(&Package::Zip(zip.clone()), std::slice::from_ref(&zh)).unwrap(),
            Some(true)
        );
        let unpacked = Package::Directory(dir.path().to_owned());
        assert_eq!(
            matches_any(&unpacked, std::slice::from_ref(&zh)).unwrap(),
            Some(false)
        );
        let h1 = package_hash(dir.path()).unwrap();
        assert_eq!(matches_any(&unpacked, &[zh, h1]).unwrap(), Some(true));
        assert_eq!(
            matches_any(&unpacked, &["h9:future".to_owned()]).unwrap(),
            None
        );
        assert_eq!(matches_any(&unpacked, &[]).unwrap(), None);
    }
}
