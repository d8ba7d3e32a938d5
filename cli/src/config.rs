//! The stored session: `<config dir>/shipmate/credentials.json` holding `{api_url, token}`,
//! readable by its owner only (file 0600, folder 0700).

use std::io::{ErrorKind, Write};
use std::path::PathBuf;

use anyhow::{anyhow, Context};
use serde::{Deserialize, Serialize};

const FILE: &str = "credentials.json";

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Credentials {
    pub api_url: String,
    pub token: String,
}

/// `SHIPMATE_CONFIG_DIR` if set (tests use a folder of their own), else `<config dir>/shipmate`.
pub fn dir() -> anyhow::Result<PathBuf> {
    if let Some(d) = std::env::var_os("SHIPMATE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    dirs::config_dir()
        .map(|d| d.join("shipmate"))
        .ok_or_else(|| anyhow!("this system has no configuration folder; set SHIPMATE_CONFIG_DIR"))
}

pub fn path() -> anyhow::Result<PathBuf> {
    Ok(dir()?.join(FILE))
}

/// The stored credentials, if any. An unreadable file is reported and treated as absent, so
/// `shipmate login` can always replace it.
pub fn load() -> Option<Credentials> {
    let path = path().ok()?;
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == ErrorKind::NotFound => return None,
        Err(e) => {
            eprintln!("warning: cannot read {}: {e}", path.display());
            return None;
        }
    };
    match serde_json::from_str(&text) {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!(
                "warning: ignoring {} ({e}); `shipmate login` rewrites it",
                path.display()
            );
            None
        }
    }
}

/// Writes the credentials atomically: a private temporary file renamed over the old one, so the
/// token is never readable by others, not even for a moment.
pub fn save(creds: &Credentials) -> anyhow::Result<PathBuf> {
    let dir = dir()?;
    create_private_dir(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(FILE);
    let tmp = dir.join(format!("{FILE}.tmp-{}", std::process::id()));
    let json = serde_json::to_vec_pretty(creds)?;
    let write = || -> std::io::Result<()> {
        let _ = std::fs::remove_file(&tmp);
        let mut file = private_file(&tmp)?;
        file.write_all(&json)?;
        file.write_all(b"\n")?;
        file.sync_all()?;
        std::fs::rename(&tmp, &path)
    };
    if let Err(e) = write() {
        let _ = std::fs::remove_file(&tmp);
        return Err(anyhow!("cannot write {}: {e}", path.display()));
    }
    Ok(path)
}

/// Deletes the stored credentials if they hold `token`; true if a file was deleted.
pub fn forget(token: &str) -> anyhow::Result<bool> {
    match load() {
        Some(c) if c.token == token => {}
        _ => return Ok(false),
    }
    let path = path()?;
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(anyhow!("cannot delete {}: {e}", path.display())),
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    // The folder may already exist with looser rights (made by hand or another tool): the token
    // inside must not be listable by others.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

#[cfg(not(unix))]
fn create_private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn private_file(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn private_file(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}
