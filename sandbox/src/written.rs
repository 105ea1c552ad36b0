//! The pages a run wrote: what lets one instance of an interpreter serve run after run.
//!
//! A run in a new instance pays for the instance as much as for the program: the pool's
//! reset of the slot after the run (a kernel scan of every page of the interpreter's
//! memory, some 24 MiB, and a copy back of every page any run in the slot ever wrote), the
//! instance's set-up, and the lazy start of every function-table entry it calls. Measured
//! (`perf`, a loop of runs of the search reference on `0 0`, prepared): CPython's own
//! instructions were a quarter of the time, the scan 29%, the copy back 22%, the table
//! entries 8%.
//!
//! So the interpreter's module is rewritten ([`track`]) so that every write of its code to
//! its memory also marks the written page in a second memory, a byte per 1 KiB page
//! ([`WRITTEN_EXPORT`]), which the program's own code cannot address: every store
//! instruction, `memory.fill`, `memory.copy` and `memory.init` of the module is followed by
//! its mark. After a run the host reads the marks ([`marked_pages`]), puts back exactly
//! those pages and keeps the instance for the next run (`engine.rs`, `Warm`). What the host
//! itself writes into the guest's memory (the input read, random bytes, a call's results)
//! it marks where it writes (`Stdio::wrote`). A run that called anything of WASI the
//! sandbox does not do itself (wasmtime-wasi writes where it likes) gives its instance up
//! instead, and the pool resets it as before.
//!
//! A run may grow the memory (a whole program's run does, as CPython's heap grows), and
//! no memory shrinks: so the size its code sees is a global of its own ([`pages_export`]),
//! which `memory.size` reads and `memory.grow` moves, growing the memory itself only past
//! what it already has. A kept instance's memory may thus be larger than the run's, with
//! zeros beyond (every byte written there was marked, and is put back as zero); the run
//! grows into them exactly as a new instance would grow, and is only given an instance no
//! larger than its own memory limit (see `warm.rs`), so that growing never succeeds where
//! a new instance's would have been refused. What differs is an access past the run's
//! size that a new instance would trap on: only the interpreter's own bug could make one,
//! and it then reads zeros.
//!
//! A module whose code could change what the marks cannot see (a table written or grown,
//! a data or element segment dropped, an atomic or any instruction of a proposal that
//! writes memory otherwise) is refused: its instances are never kept.
//!
//! The marks are instructions, and fuel counts them: a rewritten interpreter's runs take
//! more fuel than the same runs of the module as it was, about a third more (every run of
//! it alike, the reference's too, so budgets, which follow the reference's fuel, follow).

use wasm_encoder::{BlockType, ExportKind, Function, Instruction, MemArg, ValType};
use wasmparser::{BinaryReader, FunctionBody, Operator, SectionLimited, TypeRef};

use crate::snapshot::{CODE, EXPORT, FUNCTION, GLOBAL, IMPORT, MEMORY, TYPE, extended, leb, limited, sections};

/// The export of the byte map of written pages (the module's memory 1).
pub(crate) const WRITTEN_EXPORT: &str = "bugrank-written";

/// The bytes one mark stands for, put back together after a run: a quarter of a host page.
/// A run's writes are scattered (reference counts, the allocator's headers): a run of the
/// search reference on five calls wrote 84 host pages, some 340 KB put back, where the
/// bytes that differ lay in 87 pages of 1 KiB and 120 of 256 bytes. With 1 KiB the run took
/// 39.2 µs instead of 43.4; with 512 bytes 39.9 (the map, read after every run, is twice
/// as large). The same fuel to 60 units (a range marked spans more pages).
pub(crate) const PAGE_BYTES: usize = 1024;

/// `log2(PAGE_BYTES)`.
const PAGE_SHIFT: i32 = 10;

/// The most bytes one store instruction writes (`v128.store`): a store marks the page of
/// its first byte, so the bytes a mark stands for run this far into the next page.
pub(crate) const SPILL_BYTES: usize = 16;

/// The name of the export of the global that holds the size of the memory the run's code
/// sees, in WebAssembly pages (see the module's documentation), in a module of `globals`
/// globals before: the last of the snapshot's exported globals, so that a reset sets it
/// as it sets them.
pub(crate) fn pages_export(globals: usize) -> String {
    crate::snapshot::global_export(globals)
}

/// The byte map's size in WebAssembly pages: a byte for every page of a 32-bit memory
/// (4 GiB / 1 KiB = 4 MiB), so that no mark can fall outside it.
const MAP_WASM_PAGES: u64 = 64;

/// The value types a store instruction can write, each with a local of its own.
const STORED: [ValType; 5] = [ValType::I32, ValType::I64, ValType::F32, ValType::F64, ValType::V128];

/// `module` with every write of its code to its memory marked in a byte map exported as
/// [`WRITTEN_EXPORT`], and its memory's size its own ([`pages_export`]); `Err` names what
/// cannot be marked (and the module is then run as it is, its instances never kept).
/// Function, type, global and memory indices are unchanged: what is added (two types, the
/// functions that mark a range and grow the memory, the size's global, the map) comes last.
pub(crate) fn track(module: &[u8]) -> Result<Vec<u8>, String> {
    let sections = sections(module)?;
    let (mut globals, mut initial_pages) = (0usize, None);
    let mut imported_functions = 0u32;
    let mut types: Vec<Option<u32>> = Vec::new(); // the parameter count of each function type
    let mut function_types: Vec<u32> = Vec::new();
    for &(id, contents) in &sections {
        match id {
            IMPORT => {
                for import in limited::<wasmparser::Import>(contents)? {
                    match import.ty {
                        TypeRef::Func(_) | TypeRef::FuncExact(_) => imported_functions += 1,
                        TypeRef::Memory(_) | TypeRef::Table(_) | TypeRef::Global(_) => {
                            return Err(format!("it imports `{}.{}`, not a function", import.module, import.name));
                        }
                        TypeRef::Tag(_) => {}
                    }
                }
            }
            TYPE => {
                for group in limited::<wasmparser::RecGroup>(contents)? {
                    for ty in group.into_types() {
                        types.push(match &ty.composite_type.inner {
                            wasmparser::CompositeInnerType::Func(func) => Some(func.params().len() as u32),
                            _ => None,
                        });
                    }
                }
            }
            FUNCTION => function_types = limited::<u32>(contents)?,
            MEMORY => match limited::<wasmparser::MemoryType>(contents)?.as_slice() {
                [memory] if !memory.memory64 && !memory.shared => initial_pages = Some(memory.initial as u32),
                [_] => return Err("a 64-bit or shared memory".to_owned()),
                _ => return Err("it defines more than one memory".to_owned()),
            },
            GLOBAL => globals = limited::<wasmparser::Global>(contents)?.len(),
            _ => {}
        }
    }
    for (section, what) in [(MEMORY, "it defines no memory"), (EXPORT, "it exports nothing")] {
        if !sections.iter().any(|&(id, _)| id == section) {
            return Err(what.to_owned());
        }
    }
    let initial_pages = initial_pages.ok_or("it defines no memory")?;
    let (mark_type, grow_type) = (types.len() as u32, types.len() as u32 + 1);
    let mark = imported_functions + function_types.len() as u32;
    let (grow, pages) = (mark + 1, globals as u32);
    // (mut i32), starting at the memory's initial size.
    let mut pages_global = vec![0x7f, 0x01, 0x41];
    wasm_encoder::Encode::encode(&(initial_pages as i32), &mut pages_global);
    pages_global.push(0x0b);

    let mut out = wasm_encoder::Module::new();
    for &(id, contents) in &sections {
        if id == EXPORT && !sections.iter().any(|&(id, _)| id == GLOBAL) {
            out.section(&wasm_encoder::RawSection { id: GLOBAL, data: &extended(&[0], &[&pages_global])? });
        }
        let section = match id {
            // (i32, i32) -> (): the function that marks a range; (i32) -> i32: `memory.grow`'s.
            TYPE => extended(contents, &[&[0x60, 2, 0x7f, 0x7f, 0], &[0x60, 1, 0x7f, 1, 0x7f]])?,
            FUNCTION => extended(contents, &[&leb(mark_type), &leb(grow_type)])?,
            GLOBAL => extended(contents, &[&pages_global])?,
            MEMORY => {
                let mut map = vec![0x01]; // a minimum and a maximum
                map.extend(leb(MAP_WASM_PAGES as u32));
                map.extend(leb(MAP_WASM_PAGES as u32));
                extended(contents, &[&map])?
            }
            EXPORT => {
                let export = |name: &str, kind: ExportKind, index: u32| {
                    let mut export = leb(name.len() as u32);
                    export.extend(name.as_bytes());
                    export.push(kind as u8);
                    export.extend(leb(index));
                    export
                };
                extended(contents, &[&export(WRITTEN_EXPORT, ExportKind::Memory, 1), &export(&pages_export(globals), ExportKind::Global, pages)])?
            }
            CODE => {
                let bodies = SectionLimited::<FunctionBody>::new(BinaryReader::new(contents, 0)).map_err(|e| e.to_string())?;
                let mut code = wasm_encoder::CodeSection::new();
                for (i, body) in bodies.into_iter().enumerate() {
                    let body = body.map_err(|e| e.to_string())?;
                    let ty = *function_types.get(i).ok_or("more function bodies than functions")?;
                    let params = types.get(ty as usize).copied().flatten().ok_or("a function whose type is not a function type")?;
                    code.function(
                        &marked(contents, &body, params, Added { mark, grow, pages })
                            .map_err(|e| format!("function {}: {e}", imported_functions as usize + i))?,
                    );
                }
                code.function(&mark_range());
                code.function(&grow_memory(pages));
                out.section(&code);
                continue;
            }
            _ => contents.to_vec(),
        };
        out.section(&wasm_encoder::RawSection { id, data: &section });
    }
    Ok(out.finish())
}

/// What [`track`] adds that the rewritten code calls and reads: the function that marks a
/// range, `memory.grow`'s, and the size's global.
#[derive(Clone, Copy)]
struct Added {
    mark: u32,
    grow: u32,
    pages: u32,
}

/// The locals [`marked`] adds after a function's own: the address, a length, and a value
/// of each of [`STORED`]'s types.
struct Temporaries {
    address: u32,
    length: u32,
    first_value: u32,
}

impl Temporaries {
    fn value(&self, ty: ValType) -> u32 {
        self.first_value + STORED.iter().position(|&t| t == ty).expect("a stored type") as u32
    }
}

/// `body` (at its place in the code section `contents`) with every write marked: its
/// instructions copied byte for byte, each write followed by its mark.
fn marked(contents: &[u8], body: &FunctionBody<'_>, params: u32, added: Added) -> Result<Function, String> {
    let mut locals = Vec::new();
    let mut count = params;
    for local in body.get_locals_reader().map_err(|e| e.to_string())? {
        let (n, ty) = local.map_err(|e| e.to_string())?;
        let ty = match ty {
            wasmparser::ValType::I32 => ValType::I32,
            wasmparser::ValType::I64 => ValType::I64,
            wasmparser::ValType::F32 => ValType::F32,
            wasmparser::ValType::F64 => ValType::F64,
            wasmparser::ValType::V128 => ValType::V128,
            wasmparser::ValType::Ref(_) => return Err("a local of a reference type".to_owned()),
        };
        locals.push((n, ty));
        count += n;
    }
    let temporaries = Temporaries { address: count, length: count + 1, first_value: count + 2 };
    locals.push((2, ValType::I32));
    locals.extend(STORED.iter().map(|&ty| (1, ty)));
    let mut function = Function::new(locals);

    let mut operators = body.get_operators_reader().map_err(|e| e.to_string())?;
    let mut copied = operators.original_position();
    while !operators.eof() {
        let start = operators.original_position();
        let operator = operators.read().map_err(|e| e.to_string())?;
        let end = operators.original_position();
        let instruction = &contents[start..end];
        if instruction.first() == Some(&0xFE) {
            return Err("an atomic instruction".to_owned());
        }
        let write = match operator {
            Operator::I32Store { memarg } | Operator::I32Store8 { memarg } | Operator::I32Store16 { memarg } => Some((memarg, ValType::I32)),
            Operator::I64Store { memarg } | Operator::I64Store8 { memarg } | Operator::I64Store16 { memarg } | Operator::I64Store32 { memarg } => {
                Some((memarg, ValType::I64))
            }
            Operator::F32Store { memarg } => Some((memarg, ValType::F32)),
            Operator::F64Store { memarg } => Some((memarg, ValType::F64)),
            Operator::V128Store { memarg }
            | Operator::V128Store8Lane { memarg, .. }
            | Operator::V128Store16Lane { memarg, .. }
            | Operator::V128Store32Lane { memarg, .. }
            | Operator::V128Store64Lane { memarg, .. } => Some((memarg, ValType::V128)),
            Operator::MemoryFill { mem: 0 } | Operator::MemoryCopy { dst_mem: 0, src_mem: 0 } | Operator::MemoryInit { mem: 0, .. } => None,
            Operator::MemoryFill { .. } | Operator::MemoryCopy { .. } | Operator::MemoryInit { .. } => return Err("a bulk write to another memory".to_owned()),
            Operator::MemorySize { mem: 0 } | Operator::MemoryGrow { mem: 0 } => {
                function.raw(contents[copied..start].iter().copied());
                copied = end;
                function.instruction(&match operator {
                    Operator::MemorySize { .. } => Instruction::GlobalGet(added.pages),
                    _ => Instruction::Call(added.grow),
                });
                continue;
            }
            Operator::TableSet { .. }
            | Operator::TableGrow { .. }
            | Operator::TableFill { .. }
            | Operator::TableCopy { .. }
            | Operator::TableInit { .. }
            | Operator::ElemDrop { .. }
            | Operator::DataDrop { .. }
            | Operator::MemoryDiscard { .. } => return Err(format!("`{operator:?}`, which the marks do not see")),
            _ => continue,
        };
        function.raw(contents[copied..start].iter().copied());
        copied = end;
        let t = &temporaries;
        match write {
            // A store is marked after it: nothing between the two checks fuel or the clock
            // (no call, no loop), so no run stops between them.
            Some((memarg, ty)) => {
                if memarg.memory != 0 {
                    return Err("a store to another memory".to_owned());
                }
                let value = t.value(ty);
                function.instruction(&Instruction::LocalSet(value));
                function.instruction(&Instruction::LocalTee(t.address));
                function.instruction(&Instruction::LocalGet(value));
                function.raw(instruction.iter().copied());
                function.instruction(&Instruction::LocalGet(t.address));
                if memarg.offset != 0 {
                    // (No wrap: a store whose address and offset pass 4 GiB has trapped.)
                    function.instruction(&Instruction::I32Const(memarg.offset as u32 as i32));
                    function.instruction(&Instruction::I32Add);
                }
                mark_page(&mut function);
            }
            None => {
                // [destination, value or source, length]. Marked first: the call of
                // `mark`, and its loop, check fuel and the wall clock, and a run stopped
                // between a write and its mark would leave a page unmarked. (A write that
                // then traps has written nothing: its marks only put back pages as they are.)
                let other = t.value(ValType::I32);
                function.instruction(&Instruction::LocalSet(t.length));
                function.instruction(&Instruction::LocalSet(other));
                function.instruction(&Instruction::LocalTee(t.address));
                function.instruction(&Instruction::LocalGet(t.address));
                function.instruction(&Instruction::LocalGet(t.length));
                function.instruction(&Instruction::Call(added.mark));
                function.instruction(&Instruction::LocalGet(other));
                function.instruction(&Instruction::LocalGet(t.length));
                function.raw(instruction.iter().copied());
            }
        }
    }
    function.raw(contents[copied..operators.original_position()].iter().copied());
    Ok(function)
}

/// Marks the page of the address on the stack.
fn mark_page(function: &mut Function) {
    function.instruction(&Instruction::I32Const(PAGE_SHIFT));
    function.instruction(&Instruction::I32ShrU);
    function.instruction(&Instruction::I32Const(1));
    function.instruction(&Instruction::I32Store8(MemArg { offset: 0, align: 0, memory_index: 1 }));
}

/// `mark(at, len)`: marks every page of `at..at + len` (nothing when `len` is 0), before
/// the write. A range past 4 GiB (a write that will trap) wraps, and marks pages the write
/// never reaches, which the reset puts back as they are.
fn mark_range() -> Function {
    let (at, len, page, last) = (0, 1, 2, 3);
    let mut function = Function::new([(2, ValType::I32)]);
    for instruction in [
        Instruction::LocalGet(len),
        Instruction::I32Eqz,
        Instruction::If(BlockType::Empty),
        Instruction::Return,
        Instruction::End,
        Instruction::LocalGet(at),
        Instruction::I32Const(PAGE_SHIFT),
        Instruction::I32ShrU,
        Instruction::LocalSet(page),
        Instruction::LocalGet(at),
        Instruction::LocalGet(len),
        Instruction::I32Add,
        Instruction::I32Const(1),
        Instruction::I32Sub,
        Instruction::I32Const(PAGE_SHIFT),
        Instruction::I32ShrU,
        Instruction::LocalSet(last),
        Instruction::Loop(BlockType::Empty),
        Instruction::LocalGet(page),
    ] {
        function.instruction(&instruction);
    }
    function.instruction(&Instruction::I32Const(1));
    function.instruction(&Instruction::I32Store8(MemArg { offset: 0, align: 0, memory_index: 1 }));
    for instruction in [
        Instruction::LocalGet(page),
        Instruction::I32Const(1),
        Instruction::I32Add,
        Instruction::LocalTee(page),
        Instruction::LocalGet(last),
        Instruction::I32LeU,
        Instruction::BrIf(0),
        Instruction::End,
        Instruction::End,
    ] {
        function.instruction(&instruction);
    }
    function
}

/// `grow(delta)`, `memory.grow` of the size in the global `pages`: that size plus `delta`
/// (unsigned), the memory itself grown first by what it lacks, if anything (refused as a
/// new instance's growth to that size would be: the limiter is asked for the same size);
/// the old size, or -1 if refused. The same instructions whether the memory grows or not
/// (`select`, and a growth by 0), so that a run's fuel is the same in a new instance and
/// a kept one.
fn grow_memory(pages: u32) -> Function {
    let (delta, new) = (0, 1);
    let mut function = Function::new([(1, ValType::I64)]);
    for instruction in [
        Instruction::LocalGet(delta),
        Instruction::I64ExtendI32U,
        Instruction::GlobalGet(pages),
        Instruction::I64ExtendI32U,
        Instruction::I64Add,
        Instruction::LocalTee(new),
        // What the memory lacks (at most `delta`: it is never smaller than the size), or 0.
        Instruction::MemorySize(0),
        Instruction::I64ExtendI32U,
        Instruction::I64Sub,
        Instruction::I64Const(0),
        Instruction::LocalGet(new),
        Instruction::MemorySize(0),
        Instruction::I64ExtendI32U,
        Instruction::I64GtU,
        Instruction::Select,
        Instruction::I32WrapI64,
        Instruction::MemoryGrow(0),
        Instruction::I32Const(-1),
        Instruction::I32Eq,
        Instruction::If(BlockType::Empty),
        Instruction::I32Const(-1),
        Instruction::Return,
        Instruction::End,
        Instruction::GlobalGet(pages),
        Instruction::LocalGet(new),
        Instruction::I32WrapI64,
        Instruction::GlobalSet(pages),
        Instruction::End,
    ] {
        function.instruction(&instruction);
    }
    function
}

/// The marks read at once by [`marked_pages`]: most of a map is unmarked, and a block of
/// 64 is tested in a few vector instructions.
const MARKS_AT_ONCE: usize = 64;

/// The pages marked in `map` among the first `pages`, each mark cleared: in order.
pub(crate) fn marked_pages(map: &mut [u8], pages: usize, found: &mut Vec<usize>) {
    let end = pages.min(map.len());
    for (block, marks) in map[..end].chunks_mut(MARKS_AT_ONCE).enumerate() {
        if marks.iter().fold(0, |any, &mark| any | mark) == 0 {
            continue;
        }
        for (i, mark) in marks.iter_mut().enumerate() {
            if *mark != 0 {
                found.push(block * MARKS_AT_ONCE + i);
                *mark = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The memory of `check`'s module: 4 WebAssembly pages.
    const MEMORY_BYTES: usize = 4 << 16;

    /// Runs `body` (a function `(param i32 i32)` of a module of `MEMORY_BYTES`, called with
    /// 5000 and 70000) in the tracked module: the pages it marked.
    fn check(body: &str, expected: &[usize]) {
        let module = wat::parse_str(format!(
            r#"(module
                (memory (export "memory") 4)
                (data (i32.const 0) "abcdefgh")
                (func (export "f") (param i32 i32) {body}))"#
        ))
        .unwrap();
        let tracked = track(&module).unwrap();
        let engine = wasmtime::Engine::default();
        let mut store = wasmtime::Store::new(&engine, ());
        let instance = wasmtime::Instance::new(&mut store, &wasmtime::Module::new(&engine, &tracked).unwrap(), &[]).unwrap();
        let f = instance.get_typed_func::<(i32, i32), ()>(&mut store, "f").unwrap();
        let _ = f.call(&mut store, (5000, 70_000));
        let map = instance.get_memory(&mut store, WRITTEN_EXPORT).unwrap();
        let mut found = Vec::new();
        marked_pages(map.data_mut(&mut store), MEMORY_BYTES / PAGE_BYTES, &mut found);
        assert_eq!(found, expected, "{body}");
        assert!(map.data(&store)[..MEMORY_BYTES / PAGE_BYTES].iter().all(|&b| b == 0), "the marks are cleared as they are read");
    }

    /// The pages of the bytes `first..=last`.
    fn span(first: usize, last: usize) -> Vec<usize> {
        (first / PAGE_BYTES..=last / PAGE_BYTES).collect()
    }

    #[test]
    fn every_store_marks_the_page_of_its_first_byte() {
        check("(i32.store (local.get 0) (i32.const 1))", &span(5000, 5000));
        check("(i64.store offset=4096 (local.get 0) (i64.const 1))", &span(9096, 9096));
        check("(f64.store (local.get 1) (f64.const 1))", &span(70_000, 70_000));
        check("(i32.store8 (i32.const 100) (i32.const 1)) (i64.store32 offset=70000 (i32.const 0) (i64.const 1))", &[100 / PAGE_BYTES, 70_000 / PAGE_BYTES]);
        check("(v128.store (local.get 0) (v128.const i64x2 1 2))", &span(5000, 5000));
        check("(v128.store64_lane 1 (i32.const 9000) (v128.const i64x2 1 2))", &span(9000, 9000));
    }

    #[test]
    fn a_bulk_write_marks_every_page_it_touches_and_an_empty_one_none() {
        check("(memory.fill (local.get 0) (i32.const 7) (i32.const 10000))", &span(5000, 14_999));
        check("(memory.copy (i32.const 1023) (i32.const 0) (i32.const 2))", &span(1023, 1024));
        check("(memory.fill (i32.const 8192) (i32.const 7) (i32.const 0))", &[]);
        // Marked before it writes: one that traps (here past the memory's 256 KiB) has
        // marked pages it never wrote, which a reset puts back as they are.
        check("(memory.fill (i32.const 250000) (i32.const 7) (i32.const 20000))", &span(250_000, MEMORY_BYTES - 1));
    }

    #[test]
    fn a_store_that_traps_marks_nothing_and_reads_mark_nothing() {
        check("(i32.store (i32.const 300000) (i32.const 1))", &[]);
        check("(drop (i32.load (local.get 1)))", &[]);
    }

    #[test]
    fn what_the_marks_cannot_see_is_refused() {
        let refused = |text: &str| track(&wat::parse_str(text).unwrap()).unwrap_err();
        assert!(refused(r#"(module (memory (export "m") 1) (table 1 funcref) (func (table.set (i32.const 0) (ref.null func))))"#).contains("TableSet"));
        assert!(refused(r#"(module (memory (export "m") 1) (func (drop (i32.atomic.load (i32.const 0)))))"#).contains("atomic"));
        assert_eq!(refused(r#"(module (import "a" "m" (memory 1)))"#), "it imports `a.m`, not a function");
    }

    #[test]
    fn the_code_sees_its_own_size_and_grows_into_memory_the_instance_already_has_as_a_new_one_would() {
        let module = wat::parse_str(
            r#"(module
                (memory (export "memory") 1 4)
                (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
                (func (export "size") (result i32) (memory.size)))"#,
        )
        .unwrap();
        let tracked = track(&module).unwrap();
        let engine = wasmtime::Engine::default();
        let mut store = wasmtime::Store::new(&engine, ());
        let instance = wasmtime::Instance::new(&mut store, &wasmtime::Module::new(&engine, &tracked).unwrap(), &[]).unwrap();
        let grow = instance.get_typed_func::<i32, i32>(&mut store, "grow").unwrap();
        let size = instance.get_typed_func::<(), i32>(&mut store, "size").unwrap();
        let (memory, pages) = (instance.get_memory(&mut store, "memory").unwrap(), instance.get_global(&mut store, &pages_export(0)).unwrap());
        let check = |store: &mut wasmtime::Store<()>, delta: i32, expected: (i32, i32, u64)| {
            let old = grow.call(&mut *store, delta).unwrap();
            assert_eq!((old, size.call(&mut *store, ()).unwrap(), memory.size(&*store)), expected, "grow by {delta}");
        };
        check(&mut store, 2, (1, 3, 3));
        check(&mut store, 5, (-1, 3, 3)); // past the maximum, refused
        // A kept instance: the size put back to 1, its memory still 3 pages.
        pages.set(&mut store, wasmtime::Val::I32(1)).unwrap();
        check(&mut store, 0, (1, 1, 3));
        check(&mut store, 1, (1, 2, 3));
        check(&mut store, 2, (2, 4, 4)); // grows the memory by the page it lacks
        check(&mut store, 1, (-1, 4, 4));
    }

    #[test]
    fn marks_are_found_in_order_across_blocks() {
        let mut map = vec![0u8; 3 * MARKS_AT_ONCE + 8];
        let marked = [0, 7, 8, MARKS_AT_ONCE - 1, MARKS_AT_ONCE, 2 * MARKS_AT_ONCE + 2, 3 * MARKS_AT_ONCE + 1, 3 * MARKS_AT_ONCE + 7];
        for page in marked {
            map[page] = 1;
        }
        let mut found = Vec::new();
        marked_pages(&mut map, 3 * MARKS_AT_ONCE + 2, &mut found);
        assert_eq!(found, marked[..7]);
        assert!(map[..3 * MARKS_AT_ONCE + 2].iter().all(|&mark| mark == 0), "the marks read are cleared");
        assert_eq!(map[3 * MARKS_AT_ONCE + 7], 1, "past `pages` the map is not read");
    }
}
