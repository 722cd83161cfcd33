//! The FUSE operations: pass-through to the backing directory, with writes held as dirty pages
//! until a sync.

use super::state::*;

use anyhow::Result;
use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, FileType, FopenFlags, Generation, INodeNo, LockOwner,
    OpenFlags, RenameFlags, ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory, ReplyEmpty,
    ReplyEntry, ReplyOpen, ReplyStatfs, ReplyWrite, Request, TimeOrNow, WriteFlags,
};
use std::ffi::{CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

pub(super) struct PowerLossFilesystem {
    pub(super) state: Arc<Mutex<State>>,
}

impl PowerLossFilesystem {
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Removes a file or directory (`remove_with` says which) and forgets its inode.
    fn remove(
        &self,
        parent: INodeNo,
        name: &OsStr,
        reply: ReplyEmpty,
        remove_with: fn(&Path) -> std::io::Result<()>,
    ) {
        let mut st = self.lock();
        let run = |st: &mut State| -> Result<(), Errno> {
            let rel = st.child(parent, name)?;
            remove_with(&st.full(&rel)).map_err(errno)?;
            st.forget_path(&rel);
            Ok(())
        };
        match run(&mut st) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(e),
        }
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
        self.remove(parent, name, reply, |path| std::fs::remove_file(path));
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        self.remove(parent, name, reply, |path| std::fs::remove_dir(path));
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
