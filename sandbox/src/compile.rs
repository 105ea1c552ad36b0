//! What bounds compiling: how much is compiled at once, and how much compiled code is kept.
//!
//! One compile is bounded by the module's shape, checked before compiling (see
//! `validate.rs`): the largest module of any shape that passes compiles in about 10 s and
//! under 700 MB on a 2-core machine (the adversarial corpus in `web/tests/adversarial`
//! keeps that true), and the caller's wait for one by [`MAX_COMPILE_WAIT`]. This file
//! bounds the total: [`CompileGate`] lets at most
//! [`COMPILE_BYTES_AT_ONCE`] bytes of modules compile at the same time, and [`ModuleCache`]
//! forgets the least recently loaded modules beyond [`MODULE_CACHE_BYTES`] of code.
//!
//! It also makes compiling a class cheaper: [`FunctionCache`] keeps Cranelift's compiled
//! functions, so a function that another module already had (the standard library's, which
//! is most of every Rust or C program) is not compiled again.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

use wasmtime::Module;

use crate::limits::MAX_MODULE_BYTES;

/// The most bytes of modules compiled at the same time, across all threads: two of the
/// largest modules, or many small ones at once. The compiler needs up to about 20 bytes of
/// memory per byte of module, so this bounds compile memory to about 1.5 GB however many
/// uploads arrive together (two million-function modules compiled in parallel once took
/// 10.8 GB).
pub const COMPILE_BYTES_AT_ONCE: usize = 2 * MAX_MODULE_BYTES;

/// The longest [`crate::Sandbox::load`] waits for one module to compile; a module still
/// compiling then is refused ("it takes longer than 120 s to compile"). A backstop behind
/// the shape limits of `validate.rs`, which keep every shape we know of far below it (the
/// slowest, 99,999 small functions, compiles in about 20 s here): it bounds the caller's
/// wait for a shape nobody has found yet. Cranelift cannot be stopped midway, so such a
/// compile runs on in the background to its end, still counted by [`CompileGate`], and
/// its result is dropped (never cached: the refusal depends on the machine's speed).
pub const MAX_COMPILE_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

/// The most compiled code the cache keeps for modules no program holds any more. A cached
/// module spares a recompile when the same bytes are loaded again (a re-run, a late
/// upload); beyond this the least recently loaded are forgotten (the service's memory once
/// stayed at 5.2 GB after one upload).
pub const MODULE_CACHE_BYTES: usize = 512 << 20;

/// The most compiled functions [`FunctionCache`] keeps (keys and compiled code). Students'
/// modules of one problem share about two thirds of their functions (the fixture cohorts,
/// compiled one after another: 11,633 functions found compiled, 6,004 compiled), and each
/// kept function takes about 2 KB: this keeps the functions of some 300 distinct modules
/// while the shared ones, used by every module, stay.
pub const FUNCTION_CACHE_BYTES: usize = 128 << 20;

/// Cranelift's incremental compilation cache: compiled functions by a key that covers the
/// function's code and every compiler setting, so a hit is exactly what compiling would
/// have made. Bounded by [`FUNCTION_CACHE_BYTES`] in two generations: entries are added
/// to the current one, which, full at half the budget, becomes the previous one (the one
/// before that is forgotten); a hit in the previous generation moves back to the current.
/// So what every module uses stays, and what one module alone had is forgotten.
#[derive(Debug)]
pub(crate) struct FunctionCache {
    generations: Mutex<Generations>,
}

#[derive(Debug)]
struct Generations {
    budget: usize,
    current: HashMap<Vec<u8>, Vec<u8>>,
    current_bytes: usize,
    previous: HashMap<Vec<u8>, Vec<u8>>,
}

impl FunctionCache {
    /// An empty cache of at most about `budget` bytes.
    pub(crate) fn new(budget: usize) -> FunctionCache {
        let generations = Generations { budget, current: HashMap::new(), current_bytes: 0, previous: HashMap::new() };
        FunctionCache { generations: Mutex::new(generations) }
    }

    /// Forgets every function kept.
    pub(crate) fn clear(&self) {
        let mut generations = self.generations.lock().expect("function cache poisoned");
        let budget = generations.budget;
        *generations = Generations { budget, current: HashMap::new(), current_bytes: 0, previous: HashMap::new() };
    }
}

impl Generations {
    fn add(&mut self, key: Vec<u8>, value: Vec<u8>) {
        self.current_bytes += key.len() + value.len();
        self.current.insert(key, value);
        if self.current_bytes > self.budget / 2 {
            self.previous = std::mem::take(&mut self.current);
            self.current_bytes = 0;
        }
    }
}

impl wasmtime::CacheStore for FunctionCache {
    fn get(&self, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        let mut generations = self.generations.lock().expect("function cache poisoned");
        let value = match generations.current.get(key) {
            Some(value) => value.clone(),
            None => {
                let (key, value) = generations.previous.remove_entry(key)?;
                generations.add(key, value.clone());
                value
            }
        };
        Some(Cow::Owned(value))
    }

    fn insert(&self, key: &[u8], value: Vec<u8>) -> bool {
        self.generations.lock().expect("function cache poisoned").add(key.to_vec(), value);
        true
    }
}

/// Admits compiles while the bytes being compiled stay within [`COMPILE_BYTES_AT_ONCE`].
#[derive(Default)]
pub(crate) struct CompileGate {
    in_flight: Mutex<usize>,
    freed: Condvar,
}

/// A compile's admission: its bytes count against the gate until this is dropped (by the
/// thread that compiles, which may outlive the caller's wait: see [`MAX_COMPILE_WAIT`]).
pub(crate) struct Admitted {
    gate: Arc<CompileGate>,
    bytes: usize,
}

impl CompileGate {
    /// Waits until `bytes` more may be compiled. A module alone is always admitted
    /// (none is larger than [`MAX_MODULE_BYTES`]), so no compile waits for ever.
    pub(crate) fn admit(self: &Arc<Self>, bytes: usize) -> Admitted {
        let mut in_flight = self.in_flight.lock().expect("compile gate poisoned");
        while *in_flight > 0 && *in_flight + bytes > COMPILE_BYTES_AT_ONCE {
            in_flight = self.freed.wait(in_flight).expect("compile gate poisoned");
        }
        *in_flight += bytes;
        Admitted { gate: self.clone(), bytes }
    }
}

impl Drop for Admitted {
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
    fn functions_used_again_stay_and_the_others_are_forgotten_two_generations_later() {
        use wasmtime::CacheStore;
        let cache = FunctionCache::new(2 * 16);
        let entry = |n: u8| (vec![n; 4], vec![n; 4]);
        let add = |n: u8| assert!(cache.insert(&entry(n).0, entry(n).1));
        add(1);
        add(2);
        add(3); // 24 bytes > 16: the first generation is full
        add(4);
        assert_eq!(cache.get(&[1; 4]).as_deref(), Some(&[1u8; 4][..]), "used again: back in the current generation");
        add(5);
        add(6); // full again: 2 and 3 are forgotten, 1 was used
        assert!(cache.get(&[2; 4]).is_none() && cache.get(&[3; 4]).is_none());
        assert!(cache.get(&[1; 4]).is_some() && cache.get(&[5; 4]).is_some());
    }

    #[test]
    fn a_module_compiled_again_under_other_bytes_reuses_every_compiled_function() {
        let cache = std::sync::Arc::new(FunctionCache::new(FUNCTION_CACHE_BYTES));
        let mut config = wasmtime::Config::new();
        config.enable_incremental_compilation(cache.clone()).unwrap();
        let engine = wasmtime::Engine::new(&config).unwrap();
        let entries = || cache.generations.lock().unwrap().current.len();
        let code = "(func (param i32) (result i32) local.get 0 i32.const 7 i32.mul) (func (result i64) i64.const 1)";
        Module::new(&engine, format!("(module {code})")).unwrap();
        let compiled = entries();
        assert!(compiled >= 2, "both functions are kept (and their trampolines)");
        let other_bytes = format!("(module {code} (@custom \"student\" \"a02\"))");
        Module::new(&engine, other_bytes).unwrap();
        assert_eq!(entries(), compiled, "nothing new was compiled");
        Module::new(&engine, "(module (func (result i64) i64.const 2))").unwrap();
        assert!(entries() > compiled, "a new function is compiled and kept");
    }

    #[test]
    fn compiles_beyond_the_gate_wait_until_earlier_ones_end() {
        let gate = Arc::new(CompileGate::default());
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
