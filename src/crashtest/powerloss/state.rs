//! The state behind the filesystem: nodes, open handles, and each file's unsynced pages.

use anyhow::Result;
use fuser::{Errno, FileAttr, FileHandle, FileType, INodeNo};
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::fs::{File, Metadata, OpenOptions};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub(super) const PAGE: u64 = 4096;
pub(super) const TTL: Duration = Duration::from_millis(100);

/// Unsynced writes of one file.
#[derive(Default)]
pub(super) struct Dirty {
    /// The logical size (what `stat` shows), which may exceed the backing file's.
    pub(super) size: u64,
    pub(super) pages: BTreeMap<u64, Box<[u8]>>,
}

pub(super) fn read_full_at(file: &File, buf: &mut [u8], mut off: u64) -> std::io::Result<usize> {
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
    pub(super) fn new(file: &File) -> std::io::Result<Dirty> {
        Ok(Dirty {
            size: file.metadata()?.len(),
            pages: BTreeMap::new(),
        })
    }

    pub(super) fn bytes(&self) -> u64 {
        self.pages.len() as u64 * PAGE
    }

    pub(super) fn write(&mut self, file: &File, off: u64, data: &[u8]) -> std::io::Result<()> {
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

    pub(super) fn read(&self, file: &File, off: u64, len: u64) -> std::io::Result<Vec<u8>> {
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
    pub(super) fn zero(&mut self, start: u64, end: u64) {
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
    pub(super) fn truncate(&mut self, size: u64) {
        self.pages.retain(|&p, _| p * PAGE < size);
        self.zero(size, size.div_ceil(PAGE) * PAGE);
        self.size = size;
    }

    /// Writes the dirty pages and the logical size to the backing file.
    pub(super) fn flush(&mut self, file: &File) -> std::io::Result<()> {
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

pub(super) struct Node {
    /// Relative to the backing root; `None` once unlinked.
    pub(super) path: Option<PathBuf>,
    pub(super) dirty: Option<Dirty>,
}

pub(super) struct Handle {
    pub(super) ino: u64,
    pub(super) file: File,
    pub(super) sync_writes: bool,
}

pub(super) struct State {
    pub(super) root: PathBuf,
    pub(super) nodes: HashMap<u64, Node>,
    pub(super) by_path: HashMap<PathBuf, u64>,
    pub(super) next_ino: u64,
    pub(super) handles: HashMap<u64, Handle>,
    pub(super) next_fh: u64,
    /// Set by the power cut: from then on nothing reaches the backing files.
    pub(super) cut: bool,
}

pub(super) fn errno(e: std::io::Error) -> Errno {
    Errno::from(e)
}

pub(super) fn kind(meta: &Metadata) -> FileType {
    FileType::from_std(meta.file_type()).unwrap_or(FileType::RegularFile)
}

pub(super) fn time(secs: i64, nsecs: i64) -> SystemTime {
    if secs >= 0 {
        UNIX_EPOCH + Duration::new(secs as u64, nsecs as u32)
    } else {
        UNIX_EPOCH
    }
}

impl State {
    pub(super) fn full(&self, rel: &Path) -> PathBuf {
        self.root.join(rel)
    }

    pub(super) fn node_path(&self, ino: u64) -> Result<PathBuf, Errno> {
        match self.nodes.get(&ino).and_then(|n| n.path.as_ref()) {
            Some(p) => Ok(p.clone()),
            None => Err(Errno::ENOENT),
        }
    }

    pub(super) fn ino_for(&mut self, rel: &Path) -> u64 {
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
    pub(super) fn forget_path(&mut self, rel: &Path) {
        if let Some(ino) = self.by_path.remove(rel) {
            if let Some(n) = self.nodes.get_mut(&ino) {
                n.path = None;
            }
            self.drop_if_unused(ino);
        }
    }

    pub(super) fn drop_if_unused(&mut self, ino: u64) {
        let unused = self.nodes.get(&ino).is_some_and(|n| n.path.is_none())
            && !self.handles.values().any(|h| h.ino == ino);
        if unused {
            self.nodes.remove(&ino);
        }
    }

    pub(super) fn attr(&self, ino: u64, meta: &Metadata) -> FileAttr {
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

    pub(super) fn stat(&self, ino: u64, fh: Option<FileHandle>) -> Result<FileAttr, Errno> {
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

    pub(super) fn child(&self, parent: INodeNo, name: &OsStr) -> Result<PathBuf, Errno> {
        Ok(self.node_path(parent.0)?.join(name))
    }

    /// A backing file for `ino`: the handle's, or any open one, or a fresh one by path.
    pub(super) fn file_for(&self, ino: u64, fh: Option<FileHandle>) -> Result<File, Errno> {
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

    pub(super) fn sync(
        &mut self,
        ino: u64,
        fh: Option<FileHandle>,
        datasync: bool,
    ) -> Result<(), Errno> {
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

    pub(super) fn add_handle(&mut self, ino: u64, file: File, flags: i32) -> u64 {
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

pub(super) fn open_backing(path: &Path, flags: i32, create: Option<u32>) -> std::io::Result<File> {
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
