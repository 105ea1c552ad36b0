//! A module made from another and the state an instance of it reached: what lets an
//! interpreter start every run already initialised (see `interpreter.rs`).
//!
//! Two rewrites of a module's bytes, both pure: [`instrument`] exports every global the
//! module defines (so that the host can read their values after initialising an
//! instance), and [`snapshot`] makes the module whose instances start where that instance
//! stopped: its memory becomes the data segments (and the memory's initial size), its
//! globals' values their initial values. Every other section is kept byte for byte. This is
//! what the Bytecode Alliance's `wizer` does, for the modules bugrank's own toolchain
//! links (one defined memory, no imported globals or memories, active data segments, no
//! start function, tables as the module made them).

use wasm_encoder::{
    ConstExpr, DataCountSection, DataSection, ExportKind, ExportSection, GlobalSection, GlobalType, MemorySection, MemoryType, RawSection, ValType,
};
use wasmparser::{BinaryReader, ExternalKind, SectionLimited, TypeRef};

/// The name under which [`instrument`] exports the module's `i`-th defined global.
pub(crate) fn global_export(i: usize) -> String {
    format!("bugrank-snapshot-global-{i}")
}

/// A value a global had when the snapshot was taken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Value {
    I32(i32),
    I64(i64),
    F32(u32),
    F64(u64),
}

/// Zero bytes between two runs of data that still go in one data segment: fewer, longer
/// segments (a segment costs a few bytes of header and the engine's bookkeeping).
const SEGMENT_GAP_BYTES: usize = 64;

/// The sections of a module: id and contents, in order.
pub(crate) fn sections(module: &[u8]) -> Result<Vec<(u8, &[u8])>, String> {
    if module.len() < 8 || &module[..4] != b"\0asm" || module[4..8] != [1, 0, 0, 0] {
        return Err("not a WebAssembly module (version 1)".to_owned());
    }
    let mut reader = BinaryReader::new(&module[8..], 8);
    let mut found = Vec::new();
    while !reader.eof() {
        let id = reader.read_u8().map_err(|e| e.to_string())?;
        let size = reader.read_var_u32().map_err(|e| e.to_string())? as usize;
        let start = reader.original_position();
        let contents = module.get(start..start + size).ok_or("a section runs past the module's end")?;
        reader.read_bytes(size).map_err(|e| e.to_string())?;
        found.push((id, contents));
    }
    Ok(found)
}

// Section ids.
pub(crate) const TYPE: u8 = 1;
pub(crate) const IMPORT: u8 = 2;
pub(crate) const FUNCTION: u8 = 3;
pub(crate) const MEMORY: u8 = 5;
pub(crate) const GLOBAL: u8 = 6;
pub(crate) const EXPORT: u8 = 7;
const START: u8 = 8;
pub(crate) const CODE: u8 = 10;
const DATA: u8 = 11;
const DATA_COUNT: u8 = 12;

pub(crate) fn limited<'a, T: wasmparser::FromReader<'a>>(contents: &'a [u8]) -> Result<Vec<T>, String> {
    SectionLimited::<T>::new(BinaryReader::new(contents, 0)).and_then(|section| section.into_iter().collect::<Result<Vec<T>, _>>()).map_err(|e| e.to_string())
}

/// A vector section's `contents` with more entries, `entries`.
pub(crate) fn extended(contents: &[u8], entries: &[&[u8]]) -> Result<Vec<u8>, String> {
    let mut reader = BinaryReader::new(contents, 0);
    let count = reader.read_var_u32().map_err(|e| e.to_string())?;
    let mut out = leb(count + entries.len() as u32);
    out.extend(&contents[reader.original_position()..]);
    entries.iter().for_each(|entry| out.extend(*entry));
    Ok(out)
}

/// `value` as an unsigned LEB128.
pub(crate) fn leb(value: u32) -> Vec<u8> {
    let mut out = Vec::new();
    wasm_encoder::Encode::encode(&value, &mut out);
    out
}

/// How many globals the module defines (not imports); refuses what [`snapshot`] cannot
/// carry over (imported globals or memories, a start function).
fn defined_globals(sections: &[(u8, &[u8])]) -> Result<usize, String> {
    let mut count = 0;
    for (id, contents) in sections {
        match *id {
            IMPORT => {
                for import in limited::<wasmparser::Import>(contents)? {
                    if matches!(import.ty, TypeRef::Global(_) | TypeRef::Memory(_)) {
                        return Err(format!("it imports `{}.{}`, a global or memory", import.module, import.name));
                    }
                }
            }
            GLOBAL => count = limited::<wasmparser::Global>(contents)?.len(),
            START => return Err("it has a start function".to_owned()),
            _ => {}
        }
    }
    Ok(count)
}

/// The module with each global it defines also exported, as [`global_export`] names it:
/// what the host reads the globals' values through. Returns the count of such globals.
pub(crate) fn instrument(module: &[u8]) -> Result<(Vec<u8>, usize), String> {
    let sections = sections(module)?;
    let globals = defined_globals(&sections)?;
    let mut exports = ExportSection::new();
    let mut has_exports = false;
    let mut out = wasm_encoder::Module::new();
    for &(id, contents) in &sections {
        if id == EXPORT {
            has_exports = true;
            copy_exports(&mut exports, contents)?;
            for i in 0..globals {
                exports.export(&global_export(i), ExportKind::Global, i as u32);
            }
            out.section(&exports);
        } else {
            out.section(&RawSection { id, data: contents });
        }
    }
    if !has_exports {
        return Err("it exports nothing".to_owned());
    }
    Ok((out.finish(), globals))
}

fn copy_exports(exports: &mut ExportSection, contents: &[u8]) -> Result<(), String> {
    for export in limited::<wasmparser::Export>(contents)? {
        let kind = match export.kind {
            ExternalKind::Func | ExternalKind::FuncExact => ExportKind::Func,
            ExternalKind::Table => ExportKind::Table,
            ExternalKind::Memory => ExportKind::Memory,
            ExternalKind::Global => ExportKind::Global,
            ExternalKind::Tag => ExportKind::Tag,
        };
        exports.export(export.name, kind, export.index);
    }
    Ok(())
}

/// The module whose instances start as an instance of `module` was when its memory was
/// `memory` and its defined globals had `globals`: the memory's bytes become the data
/// segments (runs of non-zero bytes) and its initial size, the globals' values their
/// initial values. The exports are `module`'s own (not [`instrument`]'s).
pub(crate) fn snapshot(module: &[u8], memory: &[u8], globals: &[Value]) -> Result<Vec<u8>, String> {
    const PAGE: usize = 64 << 10;
    let sections = sections(module)?;
    if defined_globals(&sections)? != globals.len() {
        return Err(format!("{} global values for another count of globals", globals.len()));
    }
    let segments = segments(memory);
    let mut out = wasm_encoder::Module::new();
    for &(id, contents) in &sections {
        match id {
            MEMORY => {
                let memories = limited::<wasmparser::MemoryType>(contents)?;
                let [defined] = memories[..] else { return Err(format!("it defines {} memories, not one", memories.len())) };
                if defined.memory64 || defined.shared {
                    return Err("its memory is 64-bit or shared".to_owned());
                }
                let mut section = MemorySection::new();
                section.memory(MemoryType {
                    minimum: memory.len().div_ceil(PAGE) as u64,
                    maximum: defined.maximum,
                    memory64: false,
                    shared: false,
                    page_size_log2: defined.page_size_log2,
                });
                out.section(&section);
            }
            GLOBAL => {
                let mut section = GlobalSection::new();
                for (global, value) in limited::<wasmparser::Global>(contents)?.iter().zip(globals) {
                    let (val_type, init) = match *value {
                        Value::I32(v) => (ValType::I32, ConstExpr::i32_const(v)),
                        Value::I64(v) => (ValType::I64, ConstExpr::i64_const(v)),
                        Value::F32(bits) => (ValType::F32, ConstExpr::f32_const(f32::from_bits(bits).into())),
                        Value::F64(bits) => (ValType::F64, ConstExpr::f64_const(f64::from_bits(bits).into())),
                    };
                    let ty = GlobalType { val_type, mutable: global.ty.mutable, shared: false };
                    section.global(ty, &init);
                }
                out.section(&section);
            }
            DATA => {
                for data in limited::<wasmparser::Data>(contents)? {
                    if matches!(data.kind, wasmparser::DataKind::Passive) {
                        return Err("it has a passive data segment".to_owned());
                    }
                }
                let mut section = DataSection::new();
                for &(offset, bytes) in &segments {
                    section.active(0, &ConstExpr::i32_const(offset as i32), bytes.iter().copied());
                }
                out.section(&section);
            }
            DATA_COUNT => {
                out.section(&DataCountSection { count: segments.len() as u32 });
            }
            _ => {
                out.section(&RawSection { id, data: contents });
            }
        }
    }
    Ok(out.finish())
}

/// The non-zero runs of `memory`, runs closer than [`SEGMENT_GAP_BYTES`] joined: offset
/// and bytes.
fn segments(memory: &[u8]) -> Vec<(usize, &[u8])> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while let Some(start) = memory[at..].iter().position(|&b| b != 0).map(|i| at + i) {
        let end = memory[start..].iter().position(|&b| b == 0).map_or(memory.len(), |i| start + i);
        match found.last_mut() {
            Some((_, last_end)) if start - *last_end < SEGMENT_GAP_BYTES => *last_end = end,
            _ => found.push((start, end)),
        }
        at = end;
    }
    found.into_iter().map(|(start, end)| (start, &memory[start..end])).collect()
}

/// The state every run of an interpreter starts from: its memory's bytes and its globals.
pub(crate) struct SnapshotState {
    pub(crate) memory: Vec<u8>,
    pub(crate) globals: Vec<Value>,
}

/// A global's value as wasmtime sets it.
pub(crate) fn value_of(value: Value) -> wasmtime::Val {
    match value {
        Value::I32(v) => wasmtime::Val::I32(v),
        Value::I64(v) => wasmtime::Val::I64(v),
        Value::F32(v) => wasmtime::Val::F32(v),
        Value::F64(v) => wasmtime::Val::F64(v),
    }
}

/// A global's value as a snapshot keeps it, if it can.
pub(crate) fn snapshot_value(value: wasmtime::Val) -> Option<Value> {
    match value {
        wasmtime::Val::I32(v) => Some(Value::I32(v)),
        wasmtime::Val::I64(v) => Some(Value::I64(v)),
        wasmtime::Val::F32(v) => Some(Value::F32(v)),
        wasmtime::Val::F64(v) => Some(Value::F64(v)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_data_become_segments_and_short_gaps_join_them() {
        let mut memory = vec![0u8; 1000];
        memory[10..13].copy_from_slice(b"abc");
        memory[20..22].copy_from_slice(b"de");
        memory[500] = 7;
        let segments = segments(&memory);
        assert_eq!(segments.len(), 2);
        assert_eq!(segments[0].0, 10);
        assert_eq!(segments[0].1, b"abc\0\0\0\0\0\0\0de");
        assert_eq!(segments[1], (500, &[7u8][..]));
        assert!(super::segments(&[0; 100]).is_empty());
    }

    #[test]
    fn a_snapshot_starts_where_the_instance_stopped() {
        let module = wat::parse_str(
            r#"(module
                (memory (export "memory") 1)
                (global $g (mut i32) (i32.const 5))
                (data (i32.const 0) "old")
                (func (export "get") (result i32) (global.get $g)))"#,
        )
        .unwrap();
        let (instrumented, globals) = instrument(&module).unwrap();
        assert_eq!(globals, 1);
        let exports: Vec<String> = sections(&instrumented)
            .unwrap()
            .into_iter()
            .filter(|(id, _)| *id == EXPORT)
            .flat_map(|(_, c)| limited::<wasmparser::Export>(c).unwrap().into_iter().map(|e| e.name.to_owned()))
            .collect();
        assert_eq!(exports, ["memory", "get", "bugrank-snapshot-global-0"]);

        let mut memory = vec![0u8; 2 << 16];
        memory[100..103].copy_from_slice(b"new");
        let taken = snapshot(&module, &memory, &[Value::I32(42)]).unwrap();
        let engine = wasmtime::Engine::default();
        let mut store = wasmtime::Store::new(&engine, ());
        let instance = wasmtime::Instance::new(&mut store, &wasmtime::Module::new(&engine, &taken).unwrap(), &[]).unwrap();
        let get = instance.get_typed_func::<(), i32>(&mut store, "get").unwrap();
        assert_eq!(get.call(&mut store, ()).unwrap(), 42);
        let memory = instance.get_memory(&mut store, "memory").unwrap();
        assert_eq!(memory.data_size(&store), 2 << 16);
        assert_eq!(&memory.data(&store)[100..103], b"new");
        assert_eq!(&memory.data(&store)[0..3], b"\0\0\0", "the old data is the snapshot's, not the module's");
    }

    #[test]
    fn what_a_snapshot_cannot_carry_is_refused() {
        let started = wat::parse_str(r#"(module (memory 1) (func $f) (start $f) (export "f" (func $f)))"#).unwrap();
        assert_eq!(instrument(&started).unwrap_err(), "it has a start function");
        let imported = wat::parse_str(r#"(module (import "a" "g" (global i32)) (memory (export "m") 1))"#).unwrap();
        assert_eq!(instrument(&imported).unwrap_err(), "it imports `a.g`, a global or memory");
    }
}
