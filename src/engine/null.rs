//! `null`: an engine that does nothing, so the harness's own ceiling shows beside real engines.

use super::kv::{KvEngine, KvOptions, KvSession, KvStore, VisitRecord};
use crate::durability::Durability;
use anyhow::Result;

pub struct Null;

impl KvEngine for Null {
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").into()
    }
    fn mapping(&self, _level: Durability) -> std::result::Result<String, String> {
        Ok("nothing is stored: the harness's own ceiling".into())
    }
    fn keeps_data(&self) -> bool {
        false
    }
    fn open(&self, _options: &KvOptions) -> Result<Box<dyn KvStore>> {
        Ok(Box::new(NullStore))
    }
}

struct NullStore;

impl KvStore for NullStore {
    fn session(&self) -> Result<Box<dyn KvSession + '_>> {
        Ok(Box::new(NullSession))
    }
    fn settings(&self) -> Vec<(String, String)> {
        Vec::new()
    }
    fn close(self: Box<Self>) -> Result<()> {
        Ok(())
    }
}

struct NullSession;

// Each method keeps its argument opaque to the optimizer so the loop is not deleted.
impl KvSession for NullSession {
    fn begin(&mut self, write: bool) -> Result<()> {
        std::hint::black_box(write);
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        Ok(())
    }
    fn abort(&mut self) {}
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        std::hint::black_box((key, value));
        Ok(())
    }
    fn get(&mut self, key: &[u8], _out: &mut Vec<u8>) -> Result<bool> {
        std::hint::black_box(key);
        Ok(true)
    }
    fn delete(&mut self, key: &[u8]) -> Result<bool> {
        std::hint::black_box(key);
        Ok(true)
    }
    fn scan(&mut self, _visit: &mut VisitRecord) -> Result<u64> {
        Ok(0)
    }
    fn scan_from(&mut self, start: &[u8], count: u64, _visit: &mut VisitRecord) -> Result<u64> {
        std::hint::black_box(start);
        Ok(count)
    }
}
