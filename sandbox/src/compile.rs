//! What bounds compiling: how much is compiled at once, and how much compiled code is kept.
//!
//! One compile is bounded by the module's shape, checked before compiling (see
//! `validate.rs`): the largest module of any shape that passes compiles in about 10 s and
//! under 700 MB on a 2-core machine (the adversarial corpus in `web/tests/adversarial`
//! keeps that true). This file bounds the total: [`CompileGate`] lets at most
//! [`COMPILE_BYTES_AT_ONCE`] bytes of modules compile at the same time, and [`ModuleCache`]
//! forgets the least recently loaded modules beyond [`MODULE_CACHE_BYTES`] of code.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex};

use wasmtime::Module;

use crate::limits::MAX_MODULE_BYTES;

/// The most bytes of modules compiled at the same time, across all threads: two of the
/// largest modules, or many small ones at once. The compiler needs up to about 20 bytes of
/// memory per byte of module, so this bounds compile memory to about 1.5 GB however many
/// uploads arrive together (two million-function modules compiled in parallel once took
/// 10.8 GB).
pub const COMPILE_BYTES_AT_ONCE: usize = 2 * MAX_MODULE_BYTES;

/// The most compiled code the cache keeps for modules no program holds any more. A cached
/// module spares a recompile when the same bytes are loaded again (a re-run, a late
/// upload); beyond this the least recently loaded are forgotten (the service's memory once
/// stayed at 5.2 GB after one upload).
pub const MODULE_CACHE_BYTES: usize = 512 << 20;

/// Admits compiles while the bytes being compiled stay within [`COMPILE_BYTES_AT_ONCE`].
#[derive(Default)]
pub(crate) struct CompileGate {
    in_flight: Mutex<usize>,
    freed: Condvar,
}

/// A compile's admission: its bytes count against the gate until this is dropped.
pub(crate) struct Admitted<'a> {
    gate: &'a CompileGate,
    bytes: usize,
}

impl CompileGate {
    /// Waits until `bytes` more may be compiled. A module alone is always admitted
    /// (none is larger than [`MAX_MODULE_BYTES`]), so no compile waits for ever.
    pub(crate) fn admit(&self, bytes: usize) -> Admitted<'_> {
        let mut in_flight = self.in_flight.lock().expect("compile gate poisoned");
        while *in_flight > 0 && *in_flight + bytes > COMPILE_BYTES_AT_ONCE {
            in_flight = self.freed.wait(in_flight).expect("compile gate poisoned");
        }
        *in_flight += bytes;
        Admitted { gate: self, bytes }
    }
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        let mut in_flight = self.gate.in_flight.lock().expect("compile gate poisoned");
        *in_flight -= self.bytes;
        let idle = *in_flight == 0;
        drop(in_flight);
        self.gate.freed.notify_all();
        if idle {
            give_back_free_memory();
        }
    }
}

/// Returns the compiler's freed memory to the system once no compile is running. The
/// compiler allocates hundreds of MB for a large module and frees them at the end, but
/// glibc keeps freed memory for reuse: one upload of the largest module left the service
/// 622 MB resident for good.
fn give_back_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases free heap pages; memory in use is not touched.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Compiled modules by the SHA-256 of their bytes, the least recently loaded forgotten
/// first once their code passes [`MODULE_CACHE_BYTES`].
pub(crate) struct ModuleCache {
    budget: usize,
    modules: HashMap<[u8; 32], Cached>,
    code_bytes: usize,
    clock: u64,
}

struct Cached {
    module: Module,
    code_bytes: usize,
    last_loaded: u64,
}

impl ModuleCache {
    /// An empty cache that keeps at most `budget` bytes of compiled code (and always the
    /// module loaded last).
    pub(crate) fn new(budget: usize) -> ModuleCache {
        ModuleCache { budget, modules: HashMap::new(), code_bytes: 0, clock: 0 }
    }

    pub(crate) fn get(&mut self, hash: &[u8; 32]) -> Option<Module> {
        self.clock += 1;
        let cached = self.modules.get_mut(hash)?;
        cached.last_loaded = self.clock;
        Some(cached.module.clone())
    }

    pub(crate) fn insert(&mut self, hash: [u8; 32], module: Module) {
        let image = module.image_range();
        let code_bytes = image.end as usize - image.start as usize;
        self.clock += 1;
        let cached = Cached { module, code_bytes, last_loaded: self.clock };
        if let Some(previous) = self.modules.insert(hash, cached) {
            self.code_bytes -= previous.code_bytes;
        }
        self.code_bytes += code_bytes;
        while self.code_bytes > self.budget && self.modules.len() > 1 {
            let oldest = *self.modules.iter().min_by_key(|(_, cached)| cached.last_loaded).expect("not empty").0;
            let forgotten = self.modules.remove(&oldest).expect("present");
            self.code_bytes -= forgotten.code_bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(engine: &wasmtime::Engine, functions: usize) -> Module {
        Module::new(engine, format!("(module {})", "(func)".repeat(functions))).unwrap()
    }

    fn code_bytes(module: &Module) -> usize {
        module.image_range().end as usize - module.image_range().start as usize
    }

    #[test]
    fn the_cache_forgets_the_least_recently_loaded_module_beyond_its_budget() {
        let engine = wasmtime::Engine::default();
        let (a, b, c) = (module(&engine, 1), module(&engine, 2), module(&engine, 3));
        let mut cache = ModuleCache::new(code_bytes(&a) + code_bytes(&b) + code_bytes(&c) - 1);
        cache.insert([1; 32], a);
        cache.insert([2; 32], b);
        assert!(cache.get(&[1; 32]).is_some(), "loading a again makes b the least recent");
        cache.insert([3; 32], c);
        assert!(cache.get(&[2; 32]).is_none(), "b is forgotten");
        assert!(cache.get(&[1; 32]).is_some() && cache.get(&[3; 32]).is_some());
    }

    #[test]
    fn the_module_loaded_last_is_kept_even_over_budget() {
        let engine = wasmtime::Engine::default();
        let mut cache = ModuleCache::new(0);
        cache.insert([1; 32], module(&engine, 1));
        cache.insert([2; 32], module(&engine, 1));
        assert!(cache.get(&[1; 32]).is_none());
        assert!(cache.get(&[2; 32]).is_some());
    }

    #[test]
    fn compiles_beyond_the_gate_wait_until_earlier_ones_end() {
        let gate = std::sync::Arc::new(CompileGate::default());
        let first = gate.admit(MAX_MODULE_BYTES);
        let second = gate.admit(MAX_MODULE_BYTES);
        let (sender, admitted) = std::sync::mpsc::channel();
        let waiting = gate.clone();
        let third = std::thread::spawn(move || {
            let _admitted = waiting.admit(1);
            sender.send(()).unwrap();
        });
        assert!(admitted.recv_timeout(std::time::Duration::from_millis(200)).is_err(), "the gate is full");
        drop(first);
        admitted.recv_timeout(std::time::Duration::from_secs(10)).expect("admitted once a compile ends");
        third.join().unwrap();
        drop(second);
    }
}
