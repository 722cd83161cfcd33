//! Power loss, simulated: a small FUSE filesystem that passes through to a backing directory but
//! keeps the data of every `write()` in memory until the file is fsync'd (or fdatasync'd).
//!
//! - Data: each file's unsynced writes are dirty 4 KiB pages plus a logical size. Reads merge the
//!   dirty pages over the backing file. `fsync`/`fdatasync` (and writes to files opened with
//!   `O_SYNC`/`O_DSYNC`) write that file's dirty pages to its backing file and fsync it.
//! - A power cut ([`PowerLossFs::cut`]) drops every file's unsynced data and unmounts; the
//!   database is then reopened from the backing directory directly, i.e. from exactly what was
//!   synced.
//! - Leniency: metadata operations (create, mkdir, unlink, rmdir, rename, truncate, fallocate,
//!   chmod) are applied to the backing directory at once, as if every directory were fsync'd
//!   after each change. A real file system may lose a newly created or renamed file that was not
//!   followed by an fsync of its directory; this layer never does, so it finds lost data, not lost
//!   names.
//! - The kernel page cache stays coherent: every write goes through this filesystem (no
//!   writeback cache, no `direct_io`), files are opened without `FOPEN_KEEP_CACHE`, and attributes
//!   have a short TTL, so shared `mmap` (SQLite's `-shm`, LMDB's lock file) works.

mod filesystem;
mod state;

use filesystem::PowerLossFilesystem;
use state::*;

use anyhow::{bail, Context, Result};
use fuser::{BackgroundSession, Config, INodeNo, MountOption};
use std::collections::HashMap;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What the crash test records for this kind of crash.
pub const CRASH_LABEL: &str = "power loss (FUSE, unsynced data dropped)";

/// Why FUSE cannot be used here, if it cannot (before trying to mount).
pub fn unavailable() -> Option<String> {
    if !Path::new("/dev/fuse").exists() {
        return Some("/dev/fuse does not exist (load the fuse module or pass --device /dev/fuse to the container)".into());
    }
    let is_root = unsafe { libc::geteuid() } == 0;
    let helper = [
        "/usr/bin/fusermount3",
        "/bin/fusermount3",
        "/usr/bin/fusermount",
    ]
    .iter()
    .any(|p| Path::new(p).exists());
    if !is_root && !helper {
        return Some("not root and no fusermount3 (install the fuse3 package)".into());
    }
    None
}

/// What a power cut threw away.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cut {
    pub files: u64,
    pub bytes: u64,
}

/// A mounted power-loss filesystem. Dropping it cuts the power.
pub struct PowerLossFs {
    mountpoint: PathBuf,
    state: Arc<Mutex<State>>,
    session: Option<BackgroundSession>,
}

impl PowerLossFs {
    /// Mounts the layer over `backing` at `mountpoint` (both directories must exist).
    pub fn mount(backing: &Path, mountpoint: &Path) -> Result<PowerLossFs> {
        if let Some(why) = unavailable() {
            bail!("{why}");
        }
        let root = backing
            .canonicalize()
            .with_context(|| format!("no backing directory {}", backing.display()))?;
        let mut nodes = HashMap::new();
        nodes.insert(
            INodeNo::ROOT.0,
            Node {
                path: Some(PathBuf::new()),
                dirty: None,
            },
        );
        let mut by_path = HashMap::new();
        by_path.insert(PathBuf::new(), INodeNo::ROOT.0);
        let state = Arc::new(Mutex::new(State {
            root,
            nodes,
            by_path,
            next_ino: 2,
            handles: HashMap::new(),
            next_fh: 1,
            cut: false,
        }));
        let mut config = Config::default();
        config.mount_options = vec![
            MountOption::FSName("hakari-powerloss".into()),
            MountOption::Subtype("hakari".into()),
            MountOption::DefaultPermissions,
            MountOption::NoAtime,
        ];
        let session = fuser::spawn_mount(
            PowerLossFilesystem {
                state: state.clone(),
            },
            mountpoint,
            &config,
        )
        .with_context(|| format!("cannot mount FUSE at {}", mountpoint.display()))?;
        Ok(PowerLossFs {
            mountpoint: mountpoint.to_path_buf(),
            state,
            session: Some(session),
        })
    }

    /// Unsynced bytes held in memory right now (whole dirty pages).
    pub fn unsynced_bytes(&self) -> u64 {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.nodes
            .values()
            .filter_map(|n| n.dirty.as_ref())
            .map(Dirty::bytes)
            .sum()
    }

    /// Cuts the power: every file's unsynced data is dropped, then the layer is unmounted.
    /// Whatever still uses the mount gets errors from then on.
    pub fn cut(mut self) -> Result<Cut> {
        self.cut_inner()
    }

    fn cut_inner(&mut self) -> Result<Cut> {
        let mut cut = Cut::default();
        {
            let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            st.cut = true;
            for n in st.nodes.values_mut() {
                if let Some(d) = n.dirty.take() {
                    cut.files += 1;
                    cut.bytes += d.bytes();
                }
            }
        }
        if let Some(session) = self.session.take() {
            if let Err(e) = session.umount_and_join() {
                // Still busy: detach it, so the mount point goes away as soon as it is unused.
                let c = CString::new(self.mountpoint.as_os_str().as_bytes())?;
                // SAFETY: a valid path.
                let detached = unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) } == 0;
                // EINVAL: no longer a mount point. The unmount went through and the error was
                // the session's own end (seen: ECONNABORTED from its read of /dev/fuse).
                let gone = std::io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL);
                if !detached && !gone {
                    bail!("cannot unmount {}: {e}", self.mountpoint.display());
                }
            }
        }
        Ok(cut)
    }
}

impl Drop for PowerLossFs {
    fn drop(&mut self) {
        if self.session.is_some() {
            let _ = self.cut_inner();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::os::unix::fs::FileExt;

    fn mounted() -> Option<(tempfile::TempDir, PathBuf, PathBuf, PowerLossFs)> {
        if !Path::new("/dev/fuse").exists() {
            println!("skipped: /dev/fuse does not exist, the power-loss layer cannot be tested");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let (backing, mnt) = (dir.path().join("backing"), dir.path().join("mnt"));
        std::fs::create_dir_all(&backing).unwrap();
        std::fs::create_dir_all(&mnt).unwrap();
        let fs = PowerLossFs::mount(&backing, &mnt).expect("FUSE is there but mounting failed");
        Some((dir, backing, mnt, fs))
    }

    #[test]
    fn powerloss_drops_unsynced_and_keeps_synced_data() {
        let Some((_dir, backing, mnt, fs)) = mounted() else {
            return;
        };
        let mut synced = File::create(mnt.join("synced")).unwrap();
        synced.write_all(b"hello, durable world").unwrap();
        synced.sync_data().unwrap();
        synced.write_all(b" and then some").unwrap();
        let mut lost = File::create(mnt.join("lost")).unwrap();
        lost.write_all(&[5u8; 10_000]).unwrap();
        // Reads through the mount see everything written, synced or not.
        let mut back = String::new();
        File::open(mnt.join("synced"))
            .unwrap()
            .read_to_string(&mut back)
            .unwrap();
        assert_eq!(back, "hello, durable world and then some");
        assert_eq!(std::fs::metadata(mnt.join("lost")).unwrap().len(), 10_000);
        assert_eq!(std::fs::read(mnt.join("lost")).unwrap(), vec![5u8; 10_000]);
        // Not yet in the backing files.
        assert_eq!(std::fs::read(backing.join("lost")).unwrap().len(), 0);
        assert!(fs.unsynced_bytes() > 0);
        // Overwrite in the middle of a synced file, partially, then sync: merged correctly.
        synced.seek(SeekFrom::Start(7)).unwrap();
        synced.write_all(b"DURABLE").unwrap();
        synced.sync_all().unwrap();
        drop((synced, lost));
        let cut = fs.cut().unwrap();
        assert_eq!(cut.files, 1, "only the unsynced file had dirty data");
        assert_eq!(
            std::fs::read_to_string(backing.join("synced")).unwrap(),
            "hello, DURABLE world and then some"
        );
        assert!(
            backing.join("lost").exists(),
            "names are kept (metadata is immediate)"
        );
        assert_eq!(std::fs::metadata(backing.join("lost")).unwrap().len(), 0);
    }

    #[test]
    fn powerloss_truncate_rename_and_directories() {
        let Some((_dir, backing, mnt, fs)) = mounted() else {
            return;
        };
        std::fs::create_dir(mnt.join("d")).unwrap();
        let mut f = File::create(mnt.join("d/a.tmp")).unwrap();
        f.write_all(&[1u8; 9000]).unwrap();
        f.sync_all().unwrap();
        // Truncate is applied at once; unsynced data past and before it behaves.
        f.write_all(&[2u8; 100]).unwrap();
        f.set_len(5000).unwrap();
        assert_eq!(std::fs::metadata(mnt.join("d/a.tmp")).unwrap().len(), 5000);
        f.set_len(6000).unwrap();
        let data = std::fs::read(mnt.join("d/a.tmp")).unwrap();
        assert_eq!(data.len(), 6000);
        assert!(data[..5000].iter().all(|&b| b == 1));
        assert!(data[5000..].iter().all(|&b| b == 0));
        // Rename keeps the unsynced data with the file.
        f.write_all_at(b"xyz", 0).unwrap();
        std::fs::rename(mnt.join("d/a.tmp"), mnt.join("d/a")).unwrap();
        assert_eq!(&std::fs::read(mnt.join("d/a")).unwrap()[..3], b"xyz");
        let names: Vec<_> = std::fs::read_dir(mnt.join("d"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["a".to_string()]);
        // A second file that is synced after the rename.
        let mut g = File::create(mnt.join("d/b")).unwrap();
        g.write_all(b"bee").unwrap();
        g.sync_data().unwrap();
        std::fs::remove_file(mnt.join("d/b")).unwrap();
        drop((f, g));
        fs.cut().unwrap();
        let a = std::fs::read(backing.join("d/a")).unwrap();
        assert_eq!(a.len(), 6000, "the truncations reached the backing file");
        assert_eq!(a[0], 1, "the unsynced write after them did not");
        assert!(!backing.join("d/a.tmp").exists());
        assert!(!backing.join("d/b").exists());
        assert!(!mnt.join("d").exists(), "unmounted");
    }
}
