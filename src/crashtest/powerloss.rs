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

use anyhow::{bail, Context, Result};
use fuser::{
    AccessFlags, BackgroundSession, Config, Errno, FileAttr, FileHandle, FileType, FopenFlags,
    Generation, INodeNo, LockOwner, MountOption, OpenFlags, RenameFlags, ReplyAttr, ReplyCreate,
    ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request,
    TimeOrNow, WriteFlags,
};
use std::collections::{BTreeMap, HashMap};
use std::ffi::{CString, OsStr};
use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const PAGE: u64 = 4096;
const TTL: Duration = Duration::from_millis(100);

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

/// Unsynced writes of one file.
#[derive(Default)]
struct Dirty {
    /// The logical size (what `stat` shows), which may exceed the backing file's.
    size: u64,
    pages: BTreeMap<u64, Box<[u8]>>,
}

fn read_full_at(file: &File, buf: &mut [u8], mut off: u64) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], off) {
            Ok(0) => break,
            Ok(n) => {
                done += n;
                off += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

impl Dirty {
    fn new(file: &File) -> std::io::Result<Dirty> {
        Ok(Dirty {
            size: file.metadata()?.len(),
            pages: BTreeMap::new(),
        })
    }

    fn bytes(&self) -> u64 {
        self.pages.len() as u64 * PAGE
    }

    fn write(&mut self, file: &File, off: u64, data: &[u8]) -> std::io::Result<()> {
        let (mut pos, mut rest) = (off, data);
        while !rest.is_empty() {
            let p = pos / PAGE;
            let at = (pos % PAGE) as usize;
            let n = rest.len().min(PAGE as usize - at);
            if !self.pages.contains_key(&p) {
                // A new dirty page starts as the synced bytes below the logical size.
                let mut page = vec![0u8; PAGE as usize].into_boxed_slice();
                let valid = self.size.saturating_sub(p * PAGE).min(PAGE) as usize;
                read_full_at(file, &mut page[..valid], p * PAGE)?;
                self.pages.insert(p, page);
            }
            self.pages.get_mut(&p).unwrap()[at..at + n].copy_from_slice(&rest[..n]);
            pos += n as u64;
            rest = &rest[n..];
        }
        self.size = self.size.max(off + data.len() as u64);
        Ok(())
    }

    fn read(&self, file: &File, off: u64, len: u64) -> std::io::Result<Vec<u8>> {
        if off >= self.size || len == 0 {
            return Ok(Vec::new());
        }
        let end = self.size.min(off + len);
        let mut buf = vec![0u8; (end - off) as usize];
        read_full_at(file, &mut buf, off)?;
        for (&p, page) in self.pages.range(off / PAGE..=(end - 1) / PAGE) {
            let (ps, pe) = (p * PAGE, p * PAGE + PAGE);
            let (s, e) = (ps.max(off), pe.min(end));
            buf[(s - off) as usize..(e - off) as usize]
                .copy_from_slice(&page[(s - ps) as usize..(e - ps) as usize]);
        }
        Ok(buf)
    }

    /// Zeroes `[start, end)` in the dirty pages (the backing file was changed the same way).
    fn zero(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        for (&p, page) in self.pages.range_mut(start / PAGE..=(end - 1) / PAGE) {
            let (ps, pe) = (p * PAGE, p * PAGE + PAGE);
            let (s, e) = (ps.max(start), pe.min(end));
            page[(s - ps) as usize..(e - ps) as usize].fill(0);
        }
    }

    /// The file was truncated (the backing file already was).
    fn truncate(&mut self, size: u64) {
        self.pages.retain(|&p, _| p * PAGE < size);
        self.zero(size, size.div_ceil(PAGE) * PAGE);
        self.size = size;
    }

    /// Writes the dirty pages and the logical size to the backing file.
    fn flush(&mut self, file: &File) -> std::io::Result<()> {
        for (&p, page) in &self.pages {
            let start = p * PAGE;
            if start >= self.size {
                continue;
            }
            let n = (self.size - start).min(PAGE) as usize;
            file.write_all_at(&page[..n], start)?;
        }
        if file.metadata()?.len() != self.size {
            file.set_len(self.size)?;
        }
        self.pages.clear();
        Ok(())
    }
}

struct Node {
    /// Relative to the backing root; `None` once unlinked.
    path: Option<PathBuf>,
    dirty: Option<Dirty>,
}

struct Handle {
    ino: u64,
    file: File,
    sync_writes: bool,
}

struct State {
    root: PathBuf,
    nodes: HashMap<u64, Node>,
    by_path: HashMap<PathBuf, u64>,
    next_ino: u64,
    handles: HashMap<u64, Handle>,
    next_fh: u64,
    /// Set by the power cut: from then on nothing reaches the backing files.
    cut: bool,
}

fn errno(e: std::io::Error) -> Errno {
    Errno::from(e)
}

fn kind(meta: &Metadata) -> FileType {
    FileType::from_std(meta.file_type()).unwrap_or(FileType::RegularFile)
}

fn time(secs: i64, nsecs: i64) -> SystemTime {
    if secs >= 0 {
        UNIX_EPOCH + Duration::new(secs as u64, nsecs as u32)
    } else {
        UNIX_EPOCH
    }
}

impl State {
    fn full(&self, rel: &Path) -> PathBuf {
        self.root.join(rel)
    }

    fn node_path(&self, ino: u64) -> Result<PathBuf, Errno> {
        match self.nodes.get(&ino).and_then(|n| n.path.as_ref()) {
            Some(p) => Ok(p.clone()),
            None => Err(Errno::ENOENT),
        }
    }

    fn ino_for(&mut self, rel: &Path) -> u64 {
        if let Some(&ino) = self.by_path.get(rel) {
            return ino;
        }
        let ino = self.next_ino;
        self.next_ino += 1;
        self.nodes.insert(
            ino,
            Node {
                path: Some(rel.to_path_buf()),
                dirty: None,
            },
        );
        self.by_path.insert(rel.to_path_buf(), ino);
        ino
    }

    /// The name `rel` no longer refers to its node (unlinked, or replaced by a rename).
    fn forget_path(&mut self, rel: &Path) {
        if let Some(ino) = self.by_path.remove(rel) {
            if let Some(n) = self.nodes.get_mut(&ino) {
                n.path = None;
            }
            self.drop_if_unused(ino);
        }
    }

    fn drop_if_unused(&mut self, ino: u64) {
        let unused = self.nodes.get(&ino).is_some_and(|n| n.path.is_none())
            && !self.handles.values().any(|h| h.ino == ino);
        if unused {
            self.nodes.remove(&ino);
        }
    }

    fn attr(&self, ino: u64, meta: &Metadata) -> FileAttr {
        let size = self
            .nodes
            .get(&ino)
            .and_then(|n| n.dirty.as_ref())
            .map_or(meta.len(), |d| d.size);
        FileAttr {
            ino: INodeNo(ino),
            size,
            blocks: meta.blocks().max(size.div_ceil(512)),
            atime: time(meta.atime(), meta.atime_nsec()),
            mtime: time(meta.mtime(), meta.mtime_nsec()),
            ctime: time(meta.ctime(), meta.ctime_nsec()),
            crtime: UNIX_EPOCH,
            kind: kind(meta),
            perm: (meta.mode() & 0o7777) as u16,
            nlink: meta.nlink() as u32,
            uid: meta.uid(),
            gid: meta.gid(),
            rdev: meta.rdev() as u32,
            blksize: PAGE as u32,
            flags: 0,
        }
    }

    fn stat(&self, ino: u64, fh: Option<FileHandle>) -> Result<FileAttr, Errno> {
        let meta = if let Some(h) = fh.and_then(|fh| self.handles.get(&fh.0)) {
            h.file.metadata()
        } else if let Ok(p) = self.node_path(ino) {
            std::fs::symlink_metadata(self.full(&p))
        } else if let Some(h) = self.handles.values().find(|h| h.ino == ino) {
            h.file.metadata()
        } else {
            return Err(Errno::ENOENT);
        };
        meta.map(|m| self.attr(ino, &m)).map_err(errno)
    }

    fn child(&self, parent: INodeNo, name: &OsStr) -> Result<PathBuf, Errno> {
        Ok(self.node_path(parent.0)?.join(name))
    }

    /// A backing file for `ino`: the handle's, or any open one, or a fresh one by path.
    fn file_for(&self, ino: u64, fh: Option<FileHandle>) -> Result<File, Errno> {
        if let Some(h) = fh.and_then(|fh| self.handles.get(&fh.0)) {
            return h.file.try_clone().map_err(errno);
        }
        if let Some(h) = self.handles.values().find(|h| h.ino == ino) {
            return h.file.try_clone().map_err(errno);
        }
        let p = self.node_path(ino)?;
        OpenOptions::new()
            .read(true)
            .write(true)
            .open(self.full(&p))
            .map_err(errno)
    }

    fn sync(&mut self, ino: u64, fh: Option<FileHandle>, datasync: bool) -> Result<(), Errno> {
        if self.cut {
            return Err(Errno::EIO);
        }
        let file = self.file_for(ino, fh)?;
        if let Some(d) = self.nodes.get_mut(&ino).and_then(|n| n.dirty.as_mut()) {
            d.flush(&file).map_err(errno)?;
        }
        if let Some(n) = self.nodes.get_mut(&ino) {
            n.dirty = None;
        }
        if datasync {
            file.sync_data().map_err(errno)
        } else {
            file.sync_all().map_err(errno)
        }
    }

    fn add_handle(&mut self, ino: u64, file: File, flags: i32) -> u64 {
        let fh = self.next_fh;
        self.next_fh += 1;
        self.handles.insert(
            fh,
            Handle {
                ino,
                file,
                sync_writes: flags & (libc::O_SYNC | libc::O_DSYNC) != 0,
            },
        );
        fh
    }
}

fn open_backing(path: &Path, flags: i32, create: Option<u32>) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(true);
    if let Some(mode) = create {
        o.create(true).mode(mode);
        if flags & libc::O_EXCL != 0 {
            o.create_new(true);
        }
    }
    match o.open(path) {
        Ok(f) => Ok(f),
        // A read-only file or a directory: open it for reading only.
        Err(e)
            if create.is_none()
                && matches!(
                    e.raw_os_error(),
                    Some(libc::EACCES | libc::EISDIR | libc::EROFS | libc::EPERM)
                ) =>
        {
            OpenOptions::new().read(true).open(path)
        }
        Err(e) => Err(e),
    }
}

struct PowerLossFilesystem {
    state: Arc<Mutex<State>>,
}

impl PowerLossFilesystem {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl fuser::Filesystem for PowerLossFilesystem {
    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let mut st = self.lock();
        let rel = match st.child(parent, name) {
            Ok(r) => r,
            Err(e) => return reply.error(e),
        };
        match std::fs::symlink_metadata(st.full(&rel)) {
            Ok(meta) => {
                let ino = st.ino_for(&rel);
                reply.entry(&TTL, &st.attr(ino, &meta), Generation(0));
            }
            Err(e) => reply.error(errno(e)),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.lock().stat(ino.0, fh) {
            Ok(a) => reply.attr(&TTL, &a),
            Err(e) => reply.error(e),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<TimeOrNow>,
        _mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        // Times are not changed (no engine here relies on them).
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<(), Errno> {
            if let Some(mode) = mode {
                let p = st.full(&st.node_path(ino.0)?);
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode & 0o7777))
                    .map_err(errno)?;
            }
            if uid.is_some() || gid.is_some() {
                let p = st.full(&st.node_path(ino.0)?);
                std::os::unix::fs::chown(p, uid, gid).map_err(errno)?;
            }
            if let Some(size) = size {
                // Truncation is metadata here: applied to the backing file at once.
                let file = st.file_for(ino.0, fh)?;
                file.set_len(size).map_err(errno)?;
                if let Some(d) = st.nodes.get_mut(&ino.0).and_then(|n| n.dirty.as_mut()) {
                    d.truncate(size);
                }
            }
            Ok(())
        };
        match run(&mut st).and_then(|_| st.stat(ino.0, fh)) {
            Ok(a) => reply.attr(&TTL, &a),
            Err(e) => reply.error(e),
        }
    }

    fn mkdir(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        reply: ReplyEntry,
    ) {
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<FileAttr, Errno> {
            let rel = st.child(parent, name)?;
            let full = st.full(&rel);
            std::fs::DirBuilder::new()
                .mode(mode & !umask & 0o7777)
                .create(&full)
                .map_err(errno)?;
            let meta = std::fs::symlink_metadata(&full).map_err(errno)?;
            st.forget_path(&rel);
            let ino = st.ino_for(&rel);
            Ok(st.attr(ino, &meta))
        };
        match run(&mut st) {
            Ok(a) => reply.entry(&TTL, &a, Generation(0)),
            Err(e) => reply.error(e),
        }
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<(), Errno> {
            let rel = st.child(parent, name)?;
            std::fs::remove_file(st.full(&rel)).map_err(errno)?;
            st.forget_path(&rel);
            Ok(())
        };
        match run(&mut st) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<(), Errno> {
            let rel = st.child(parent, name)?;
            std::fs::remove_dir(st.full(&rel)).map_err(errno)?;
            st.forget_path(&rel);
            Ok(())
        };
        match run(&mut st) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<(), Errno> {
            let from = st.child(parent, name)?;
            let to = st.child(newparent, newname)?;
            let (a, b) = (st.full(&from), st.full(&to));
            let cstr = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(|_| Errno::EINVAL);
            let (ca, cb) = (cstr(&a)?, cstr(&b)?);
            // SAFETY: two valid NUL-terminated paths.
            let rc = unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    ca.as_ptr(),
                    libc::AT_FDCWD,
                    cb.as_ptr(),
                    flags.bits(),
                )
            };
            if rc != 0 {
                return Err(errno(std::io::Error::last_os_error()));
            }
            let exchange = flags.bits() & libc::RENAME_EXCHANGE != 0;
            let moved = |p: &Path, from: &Path, to: &Path| -> Option<PathBuf> {
                p.strip_prefix(from).ok().map(|rest| {
                    if rest.as_os_str().is_empty() {
                        to.to_path_buf()
                    } else {
                        to.join(rest)
                    }
                })
            };
            if !exchange {
                st.forget_path(&to);
                let old: Vec<(PathBuf, u64)> = st
                    .by_path
                    .iter()
                    .filter(|(p, _)| p.starts_with(&from))
                    .map(|(p, &i)| (p.clone(), i))
                    .collect();
                for (p, ino) in old {
                    st.by_path.remove(&p);
                    let np = moved(&p, &from, &to).unwrap();
                    st.by_path.insert(np.clone(), ino);
                    if let Some(n) = st.nodes.get_mut(&ino) {
                        n.path = Some(np);
                    }
                }
            } else {
                let old: Vec<(PathBuf, u64)> = st
                    .by_path
                    .iter()
                    .filter(|(p, _)| p.starts_with(&from) || p.starts_with(&to))
                    .map(|(p, &i)| (p.clone(), i))
                    .collect();
                for (p, _) in &old {
                    st.by_path.remove(p);
                }
                for (p, ino) in old {
                    let np = moved(&p, &from, &to)
                        .or_else(|| moved(&p, &to, &from))
                        .unwrap();
                    st.by_path.insert(np.clone(), ino);
                    if let Some(n) = st.nodes.get_mut(&ino) {
                        n.path = Some(np);
                    }
                }
            }
            Ok(())
        };
        match run(&mut st) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<u64, Errno> {
            let p = st.full(&st.node_path(ino.0)?);
            let file = open_backing(&p, flags.0, None).map_err(errno)?;
            Ok(st.add_handle(ino.0, file, flags.0))
        };
        match run(&mut st) {
            // No FOPEN_KEEP_CACHE: the kernel drops its cached pages of the file on open.
            Ok(fh) => reply.opened(FileHandle(fh), FopenFlags::empty()),
            Err(e) => reply.error(e),
        }
    }

    fn create(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<(FileAttr, u64), Errno> {
            let rel = st.child(parent, name)?;
            let full = st.full(&rel);
            let existed = full.exists();
            let file = open_backing(&full, flags, Some(mode & !umask & 0o7777)).map_err(errno)?;
            if !existed {
                st.forget_path(&rel);
            }
            let ino = st.ino_for(&rel);
            let meta = file.metadata().map_err(errno)?;
            let attr = st.attr(ino, &meta);
            Ok((attr, st.add_handle(ino, file, flags)))
        };
        match run(&mut st) {
            Ok((a, fh)) => {
                reply.created(&TTL, &a, Generation(0), FileHandle(fh), FopenFlags::empty())
            }
            Err(e) => reply.error(e),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let st = self.lock();
        let run = || -> Result<Vec<u8>, Errno> {
            let file = st.file_for(ino.0, Some(fh))?;
            match st.nodes.get(&ino.0).and_then(|n| n.dirty.as_ref()) {
                Some(d) => d.read(&file, offset, size as u64).map_err(errno),
                None => {
                    let mut buf = vec![0u8; size as usize];
                    let n = read_full_at(&file, &mut buf, offset).map_err(errno)?;
                    buf.truncate(n);
                    Ok(buf)
                }
            }
        };
        match run() {
            Ok(data) => reply.data(&data),
            Err(e) => reply.error(e),
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<(), Errno> {
            if st.cut {
                return Err(Errno::EIO);
            }
            let file = st.file_for(ino.0, Some(fh))?;
            let sync = flags.0 & (libc::O_SYNC | libc::O_DSYNC) != 0
                || st.handles.get(&fh.0).is_some_and(|h| h.sync_writes);
            let node = st.nodes.get_mut(&ino.0).ok_or(Errno::ENOENT)?;
            if node.dirty.is_none() {
                node.dirty = Some(Dirty::new(&file).map_err(errno)?);
            }
            node.dirty
                .as_mut()
                .unwrap()
                .write(&file, offset, data)
                .map_err(errno)?;
            if sync {
                st.sync(ino.0, Some(fh), true)?;
            }
            Ok(())
        };
        match run(&mut st) {
            Ok(()) => reply.written(data.len() as u32),
            Err(e) => reply.error(e),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        // close() does not make data durable.
        reply.ok();
    }

    fn release(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        let mut st = self.lock();
        st.handles.remove(&fh.0);
        st.drop_if_unused(ino.0);
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        datasync: bool,
        reply: ReplyEmpty,
    ) {
        match self.lock().sync(ino.0, Some(fh), datasync) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<Vec<(u64, FileType, std::ffi::OsString)>, Errno> {
            let rel = st.node_path(ino.0)?;
            let mut names: Vec<(std::ffi::OsString, FileType)> = Vec::new();
            for e in std::fs::read_dir(st.full(&rel)).map_err(errno)? {
                let e = e.map_err(errno)?;
                let t = e
                    .file_type()
                    .ok()
                    .and_then(FileType::from_std)
                    .unwrap_or(FileType::RegularFile);
                names.push((e.file_name(), t));
            }
            names.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out = vec![
                (ino.0, FileType::Directory, ".".into()),
                (ino.0, FileType::Directory, "..".into()),
            ];
            for (name, t) in names {
                let child = st.ino_for(&rel.join(&name));
                out.push((child, t, name));
            }
            Ok(out)
        };
        match run(&mut st) {
            Ok(entries) => {
                for (i, (child, t, name)) in entries.into_iter().enumerate().skip(offset as usize) {
                    if reply.add(INodeNo(child), i as u64 + 1, t, name) {
                        break;
                    }
                }
                reply.ok()
            }
            Err(e) => reply.error(e),
        }
    }

    fn fsyncdir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        // Metadata is applied at once (see the module comment): nothing to do.
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        let root = self.lock().root.clone();
        let c = CString::new(root.as_os_str().as_bytes()).unwrap_or_default();
        // SAFETY: a valid path and a zeroed out-struct.
        let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
            return reply.error(errno(std::io::Error::last_os_error()));
        }
        reply.statfs(
            s.f_blocks,
            s.f_bfree,
            s.f_bavail,
            s.f_files,
            s.f_ffree,
            s.f_bsize as u32,
            s.f_namemax as u32,
            s.f_frsize as u32,
        );
    }

    fn access(&self, _req: &Request, _ino: INodeNo, _mask: AccessFlags, reply: ReplyEmpty) {
        reply.ok();
    }

    fn fallocate(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        // Space allocation is metadata here: applied to the backing file at once.
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<(), Errno> {
            let file = st.file_for(ino.0, Some(fh))?;
            // SAFETY: a valid descriptor.
            let rc =
                unsafe { libc::fallocate(file.as_raw_fd(), mode, offset as i64, length as i64) };
            if rc != 0 {
                return Err(errno(std::io::Error::last_os_error()));
            }
            if let Some(d) = st.nodes.get_mut(&ino.0).and_then(|n| n.dirty.as_mut()) {
                if mode & (libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_ZERO_RANGE) != 0 {
                    d.zero(offset, offset + length);
                }
                if mode & libc::FALLOC_FL_KEEP_SIZE == 0 {
                    d.size = d.size.max(offset + length);
                }
            }
            Ok(())
        };
        match run(&mut st) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }
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
                if unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) } != 0 {
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
    use std::io::{Read, Seek, SeekFrom, Write};

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
