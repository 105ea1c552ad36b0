//! Exceptions as compilers still write them, made the exceptions wasmtime runs.
//!
//! A C++ program built with exceptions (`-fwasm-exceptions`: clang 14 to 19, the wasi-sdk,
//! Emscripten) uses the *legacy* exception-handling instructions: `try`, `catch`,
//! `catch_all`, `rethrow` and `delegate`. Wasmtime implements only the standard that
//! replaced them (`try_table`, `throw_ref` and the `exnref` type) and refuses the old ones
//! ("legacy exception handling proposal is not supported"). [`translate`] rewrites each
//! function's legacy instructions into the standard ones, as Binaryen's
//! `--translate-to-exnref` does; every other instruction is copied byte for byte, with its
//! branch depths moved by the blocks the rewriting adds.
//!
//! How each construct becomes the standard's (labels named, depths in the code):
//!
//! ```text
//! try bt                              block $l bt
//!   body                                block $h2 (result exnref)
//! catch $tag                              block $h1 (result <$tag's params> exnref)
//!   handler1                                try_table bt (catch_ref $tag $h1) (catch_all_ref $h2)
//! catch_all                                   body
//!   handler2                                end
//! end                                         br $l
//!                                           end
//!                                           local.set $caught    ;; for a `rethrow` in it
//!                                           handler1
//!                                           br $l
//!                                         end
//!                                         local.set $caught
//!                                         handler2
//!                                       end
//! ```
//!
//! `rethrow` becomes `local.get $caught; throw_ref`. A `try ... delegate l` becomes a
//! `try_table` whose `catch_all_ref` branches to a trampoline put inside the body of the
//! `try` that would handle what it delegates (`block $out bt; block $d (result exnref);
//! body; br $out; end; throw_ref; end`). A delegate to the caller passes every handler of
//! the function: its trampoline is around the whole body (`block $d (result exnref); body;
//! return; end; throw_ref`).
//!
//! Only what a compiler writes is taken: a `try` whose block type has parameters, or a
//! function that mixes the legacy instructions with the standard ones or with typed
//! references' branches, is refused with its reason.

use wasmparser::{BinaryReader, FunctionBody, Operator, SectionLimited, TypeRef};

use crate::snapshot::{CODE, FUNCTION, IMPORT, TYPE, extended, leb, limited, sections};

/// The tag section's id.
const TAG: u8 = 13;

/// `module` with its legacy exception-handling instructions rewritten, or `None` when it has
/// none (then nothing was rewritten). Only a module that defines or imports a tag is read:
/// the legacy instructions that catch or throw name one.
pub(crate) fn translate(module: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let sections = sections(module)?;
    let mut tag_types = Vec::new(); // each tag's function type
    let mut types = Vec::new(); // each type's parameters, if a function type
    for &(id, contents) in &sections {
        match id {
            IMPORT => {
                for import in limited::<wasmparser::Import>(contents)? {
                    if let TypeRef::Tag(tag) = import.ty {
                        tag_types.push(tag.func_type_idx);
                    }
                }
            }
            TAG => tag_types.extend(limited::<wasmparser::TagType>(contents)?.into_iter().map(|tag| tag.func_type_idx)),
            TYPE => {
                for group in limited::<wasmparser::RecGroup>(contents)? {
                    for ty in group.into_types() {
                        types.push(match &ty.composite_type.inner {
                            wasmparser::CompositeInnerType::Func(func) => Some(func.params().to_vec()),
                            _ => None,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    if tag_types.is_empty() {
        return Ok(None);
    }
    // A handler's block of a tag with parameters returns them and the exception: a new
    // function type `[] -> [params, exnref]` for each such tag, after the module's types.
    let mut added_types = Vec::new();
    let mut handler_types = Vec::new(); // each tag's handler block type, as bytes
    for &ty in &tag_types {
        let params = types.get(ty as usize).cloned().flatten().ok_or("a tag whose type is not a function type")?;
        if params.is_empty() {
            handler_types.push(vec![EXNREF]);
            continue;
        }
        let mut func = vec![0x60, 0x00];
        func.extend(leb(params.len() as u32 + 1));
        for param in params {
            func.push(value_type(param)?);
        }
        func.push(EXNREF);
        let index = (types.len() + added_types.len()) as i64;
        added_types.push(func);
        let mut block_type = Vec::new();
        wasm_encoder::Encode::encode(&index, &mut block_type);
        handler_types.push(block_type);
    }
    let Some(&(_, code)) = sections.iter().find(|&&(id, _)| id == CODE) else { return Ok(None) };
    let function_types = sections.iter().find(|&&(id, _)| id == FUNCTION).map_or(Ok(Vec::new()), |&(_, contents)| limited::<u32>(contents))?;
    let bodies = SectionLimited::<FunctionBody>::new(BinaryReader::new(code, 0)).map_err(|e| e.to_string())?;
    let mut translated = wasm_encoder::CodeSection::new();
    let mut any = false;
    for (i, body) in bodies.into_iter().enumerate() {
        let body = body.map_err(|e| e.to_string())?;
        let ty = *function_types.get(i).ok_or("more function bodies than functions")?;
        let params = types.get(ty as usize).cloned().flatten().ok_or("a function whose type is not a function type")?.len() as u32;
        match function(code, &body, params, &types, &handler_types).map_err(|e| format!("function {i}: {e}"))? {
            Some(rewritten) => {
                any = true;
                translated.raw(&rewritten);
            }
            None => {
                translated.raw(&code[body.range()]);
            }
        }
    }
    if !any {
        return Ok(None);
    }
    let mut out = wasm_encoder::Module::new();
    let mut typed = false;
    for &(id, contents) in &sections {
        if id == CODE {
            out.section(&translated);
            continue;
        }
        let contents = match id {
            TYPE => {
                typed = true;
                extended(contents, &added_types.iter().map(Vec::as_slice).collect::<Vec<_>>())?
            }
            _ => contents.to_vec(),
        };
        out.section(&wasm_encoder::RawSection { id, data: &contents });
    }
    if !typed && !added_types.is_empty() {
        return Err("a tag with parameters but no type section".to_owned());
    }
    Ok(Some(out.finish()))
}

/// The `exnref` value type's byte.
const EXNREF: u8 = 0x69;

fn value_type(ty: wasmparser::ValType) -> Result<u8, String> {
    Ok(match ty {
        wasmparser::ValType::I32 => 0x7f,
        wasmparser::ValType::I64 => 0x7e,
        wasmparser::ValType::F32 => 0x7d,
        wasmparser::ValType::F64 => 0x7c,
        wasmparser::ValType::V128 => 0x7b,
        wasmparser::ValType::Ref(_) => return Err("a tag with a reference parameter".to_owned()),
    })
}

/// One legacy `try`, as the first pass finds it.
#[derive(Default)]
struct Try {
    /// Its catch clauses in order: the tag of each `catch`, `None` for `catch_all`.
    clauses: Vec<Option<u32>>,
    /// It ends with `delegate`: the tries that enclose its target, innermost first, each
    /// in its body (a throw there reaches the first of them that handles or delegates).
    delegates: Option<Vec<usize>>,
}

/// Where a delegated exception goes: the caller, or the trampoline in a `try`'s body.
#[derive(Clone, Copy, PartialEq)]
enum Handler {
    Caller,
    Try(usize),
}

/// The first pass's frame: a block of the function as written.
struct Seen {
    try_index: Option<usize>,
    in_catch: bool,
}

/// The tries of a function, in the order they open; `None` when it has no legacy
/// instruction.
fn tries(body: &FunctionBody<'_>) -> Result<Option<Vec<Try>>, String> {
    let mut tries: Vec<Try> = Vec::new();
    let mut legacy = false;
    let mut standard = false;
    let mut frames = vec![Seen { try_index: None, in_catch: false }];
    let mut operators = body.get_operators_reader().map_err(|e| e.to_string())?;
    while !operators.eof() {
        match operators.read().map_err(|e| e.to_string())? {
            Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } => frames.push(Seen { try_index: None, in_catch: false }),
            Operator::Try { .. } => {
                legacy = true;
                frames.push(Seen { try_index: Some(tries.len()), in_catch: false });
                tries.push(Try::default());
            }
            Operator::Catch { tag_index } => catch(&mut frames, &mut tries, Some(tag_index))?,
            Operator::CatchAll => catch(&mut frames, &mut tries, None)?,
            Operator::Delegate { relative_depth } => {
                let frame = frames.pop().ok_or("a `delegate` outside any block")?;
                let index = frame.try_index.ok_or("a `delegate` that ends no `try`")?;
                // Frame 0 is the function's: a delegate to it goes to the caller.
                let target = frames.len().checked_sub(1 + relative_depth as usize).ok_or("a `delegate` past the function")?;
                let enclosing = frames[1..=target].iter().rev().filter(|frame| !frame.in_catch).filter_map(|frame| frame.try_index).collect();
                tries[index].delegates = Some(enclosing);
            }
            Operator::End => {
                frames.pop();
            }
            Operator::Rethrow { .. } => legacy = true,
            Operator::TryTable { .. }
            | Operator::ThrowRef
            | Operator::BrOnNull { .. }
            | Operator::BrOnNonNull { .. }
            | Operator::BrOnCast { .. }
            | Operator::BrOnCastFail { .. } => standard = true,
            _ => {}
        }
    }
    match (legacy, standard) {
        (false, _) => Ok(None),
        (true, true) => Err("it mixes legacy exception handling with `try_table` or typed references' branches".to_owned()),
        (true, false) => Ok(Some(tries)),
    }
}

fn catch(frames: &mut [Seen], tries: &mut [Try], tag: Option<u32>) -> Result<(), String> {
    let frame = frames.last_mut().ok_or("a `catch` outside any block")?;
    let index = frame.try_index.ok_or("a `catch` that ends no `try`")?;
    frame.in_catch = true;
    tries[index].clauses.push(tag);
    Ok(())
}

/// Where what `tries[index]` delegates goes: the first try enclosing its target (in its
/// body) that catches, or where that one delegates; else the caller.
fn handler(tries: &[Try], index: usize) -> Handler {
    let Some(enclosing) = &tries[index].delegates else { return Handler::Caller };
    for &outer in enclosing {
        if !tries[outer].clauses.is_empty() {
            return Handler::Try(outer);
        }
        if tries[outer].delegates.is_some() {
            return handler(tries, outer);
        }
    }
    Handler::Caller
}

/// The second pass's frame: a block as written, and the blocks it became.
struct Frame {
    try_index: Option<usize>,
    /// Which catch clause the code is in (`None`: the body).
    clause: Option<usize>,
    /// How many blocks of the output enclose the code here.
    inner: u32,
    /// The depth, from the code here, of the block a branch to this one's label targets.
    label: u32,
    /// The local that holds the exception caught, in a catch clause.
    caught: Option<u32>,
}

/// The rewritten body (locals and code) of the function `body`, or `None` when it has no
/// legacy instruction.
fn function(
    contents: &[u8],
    body: &FunctionBody<'_>,
    params: u32,
    types: &[Option<Vec<wasmparser::ValType>>],
    handler_types: &[Vec<u8>],
) -> Result<Option<Vec<u8>>, String> {
    let Some(tries) = tries(body)? else { return Ok(None) };
    let handlers: Vec<Handler> = (0..tries.len()).map(|index| handler(&tries, index)).collect();
    let trampoline = |index: usize| handlers.contains(&Handler::Try(index));
    // A delegate to the caller passes every handler of the function: to a trampoline
    // around the whole body (`block $d (result exnref); body; return; end; throw_ref`).
    let leaves = tries.iter().zip(&handlers).any(|(info, handler)| info.delegates.is_some() && *handler == Handler::Caller);

    // The function's own declarations of locals are copied as they are, then one of the
    // locals that hold caught exceptions.
    let mut locals_reader = body.get_locals_reader().map_err(|e| e.to_string())?;
    let declarations = locals_reader.get_count();
    let declarations_start = locals_reader.original_position();
    let mut declared = 0u32;
    for _ in 0..declarations {
        let (count, _) = locals_reader.read().map_err(|e| e.to_string())?;
        declared = declared.checked_add(count).ok_or("too many locals")?;
    }
    let own_declarations = &contents[declarations_start..locals_reader.original_position()];
    let first_caught = params + declared;
    let mut most_caught = 0u32;

    let mut out: Vec<u8> = Vec::new();
    let mut frames = vec![Frame { try_index: None, clause: None, inner: 1, label: 0, caught: None }];
    if leaves {
        out.extend([0x02, EXNREF]);
        frames[0].inner = 2;
        frames[0].label = 1;
    }
    let mut next_try = 0usize;
    let mut operators = body.get_operators_reader().map_err(|e| e.to_string())?;
    let mut copied = operators.original_position();
    // The depth, from the code here, of the label of the frame `relative_depth` out.
    let depth = |frames: &[Frame], relative_depth: u32| -> Result<u32, String> {
        let target = frames.len().checked_sub(1 + relative_depth as usize).ok_or("a branch past the function")?;
        Ok(frames[target + 1..].iter().map(|frame| frame.inner).sum::<u32>() + frames[target].label)
    };
    while !operators.eof() {
        let start = operators.original_position();
        let operator = operators.read().map_err(|e| e.to_string())?;
        let end = operators.original_position();
        let instruction = &contents[start..end];
        // A block of the function as written is a block of the output (copied); every
        // other instruction is copied but those rewritten below.
        match operator {
            Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } => {
                frames.push(Frame { try_index: None, clause: None, inner: 1, label: 0, caught: None });
                continue;
            }
            Operator::Try { .. }
            | Operator::Catch { .. }
            | Operator::CatchAll
            | Operator::Delegate { .. }
            | Operator::Rethrow { .. }
            | Operator::Br { .. }
            | Operator::BrIf { .. }
            | Operator::BrTable { .. }
            | Operator::End => {}
            _ => continue,
        }
        out.extend(&contents[copied..start]);
        copied = end;
        match operator {
            Operator::Br { relative_depth } | Operator::BrIf { relative_depth } => {
                out.push(instruction[0]);
                out.extend(leb(depth(&frames, relative_depth)?));
            }
            Operator::BrTable { targets } => {
                out.push(0x0e);
                out.extend(leb(targets.len()));
                for target in targets.targets() {
                    out.extend(leb(depth(&frames, target.map_err(|e| e.to_string())?)?));
                }
                out.extend(leb(depth(&frames, targets.default())?));
            }
            Operator::End => {
                // A block's end, a `try`'s without clauses (a `block`) or its last handler's
                // (the end of `$l`).
                frames.pop().ok_or("an `end` outside any block")?;
                if frames.is_empty() && leaves {
                    out.extend([0x0f, 0x0b, 0x0a]); // return; end; throw_ref
                }
                out.push(0x0b);
            }
            Operator::Try { blockty } => {
                if let wasmparser::BlockType::FuncType(ty) = blockty
                    && types.get(ty as usize).is_none_or(|params| params.as_ref().is_none_or(|params| !params.is_empty()))
                {
                    return Err("a `try` whose block type has parameters".to_owned());
                }
                let index = next_try;
                next_try += 1;
                let block_type = &instruction[1..];
                let info = &tries[index];
                let mut frame = Frame { try_index: Some(index), clause: None, inner: 1, label: 0, caught: None };
                match (&info.delegates, info.clauses.len()) {
                    (Some(_), _) => {
                        let at = match handlers[index] {
                            Handler::Caller => 0,
                            Handler::Try(outer) => {
                                frames.iter().position(|frame| frame.try_index == Some(outer)).ok_or("a `delegate` to a `try` not around it")?
                            }
                        };
                        // (The trampoline is the innermost block of the frame `at`.)
                        let to = frames[at + 1..].iter().map(|frame| frame.inner).sum::<u32>();
                        out.push(0x1f);
                        out.extend(block_type);
                        out.extend(leb(1));
                        out.push(0x03); // catch_all_ref
                        out.extend(leb(to));
                    }
                    (None, 0) => block(&mut out, block_type),
                    (None, clauses) => {
                        block(&mut out, block_type);
                        for tag in info.clauses.iter().rev() {
                            out.push(0x02);
                            match tag {
                                Some(tag) => out.extend(handler_types.get(*tag as usize).ok_or("a `catch` of no tag")?),
                                None => out.push(EXNREF),
                            }
                        }
                        out.push(0x1f);
                        out.extend(block_type);
                        out.extend(leb(clauses as u32));
                        for (label, tag) in info.clauses.iter().enumerate() {
                            match tag {
                                Some(tag) => {
                                    out.push(0x01); // catch_ref
                                    out.extend(leb(*tag));
                                }
                                None => out.push(0x03), // catch_all_ref
                            }
                            out.extend(leb(label as u32));
                        }
                        frame.inner = clauses as u32 + 2;
                        if trampoline(index) {
                            block(&mut out, block_type);
                            out.extend([0x02, EXNREF]);
                            frame.inner += 2;
                        }
                        frame.label = frame.inner - 1;
                    }
                }
                frames.push(frame);
            }
            Operator::Catch { .. } | Operator::CatchAll => {
                let frame = frames.last_mut().ok_or("a `catch` outside any block")?;
                let index = frame.try_index.ok_or("a `catch` that ends no `try`")?;
                let clauses = tries[index].clauses.len() as u32;
                match frame.clause {
                    None => {
                        if trampoline(index) {
                            out.extend([0x0c, 1, 0x0b, 0x0a, 0x0b]); // br $out; end; throw_ref; end
                        }
                        out.push(0x0b); // the try_table's end
                        out.push(0x0c);
                        out.extend(leb(clauses));
                        out.push(0x0b);
                        frame.clause = Some(0);
                    }
                    Some(clause) => {
                        out.push(0x0c);
                        out.extend(leb(clauses - clause as u32 - 1));
                        out.push(0x0b);
                        frame.clause = Some(clause + 1);
                    }
                }
                let clause = frame.clause.expect("set above") as u32;
                frame.inner = clauses - clause;
                frame.label = frame.inner - 1;
                let level = frames.iter().filter(|frame| frame.clause.is_some()).count() as u32 - 1;
                most_caught = most_caught.max(level + 1);
                let caught = first_caught + level;
                out.push(0x21);
                out.extend(leb(caught));
                frames.last_mut().expect("the frame above").caught = Some(caught);
            }
            Operator::Delegate { .. } => {
                frames.pop().ok_or("a `delegate` outside any block")?;
                out.push(0x0b);
            }
            Operator::Rethrow { relative_depth } => {
                let target = frames.len().checked_sub(1 + relative_depth as usize).ok_or("a `rethrow` past the function")?;
                let caught = frames[target].caught.ok_or("a `rethrow` outside a catch clause")?;
                out.push(0x20);
                out.extend(leb(caught));
                out.push(0x0a);
            }
            _ => unreachable!("only the operators above are rewritten"),
        }
    }
    out.extend(&contents[copied..operators.original_position()]);

    let mut rewritten = leb(declarations + u32::from(most_caught > 0));
    rewritten.extend(own_declarations);
    if most_caught > 0 {
        rewritten.extend(leb(most_caught));
        rewritten.push(EXNREF);
    }
    rewritten.extend(out);
    Ok(Some(rewritten))
}

/// `block` with the block type `block_type` (its bytes as the `try` had them).
fn block(out: &mut Vec<u8>, block_type: &[u8]) {
    out.push(0x02);
    out.extend(block_type);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the export `run` of `wat`, translated, and checks it returns `expected`.
    fn check(wat: &str, expected: i32) {
        let legacy = wat::parse_str(wat).unwrap();
        let translated = translate(&legacy).unwrap().expect("the module has legacy instructions");
        let mut config = wasmtime::Config::new();
        config.wasm_exceptions(true);
        let engine = wasmtime::Engine::new(&config).unwrap();
        let module = wasmtime::Module::new(&engine, &translated).unwrap_or_else(|e| panic!("{e:?}"));
        let mut store = wasmtime::Store::new(&engine, ());
        let instance = wasmtime::Instance::new(&mut store, &module, &[]).unwrap();
        let run = instance.get_typed_func::<(), i32>(&mut store, "run").unwrap();
        assert_eq!(run.call(&mut store, ()).unwrap(), expected);
    }

    #[test]
    fn a_catch_gets_the_tags_values_and_a_catch_all_what_no_clause_names() {
        let module = |thrown: &str| {
            format!(
                r#"(module (tag $e (param i32)) (tag $f)
                (func (export "run") (result i32)
                  try (result i32)
                    {thrown}
                    i32.const 0
                  catch $e
                    i32.const 1
                    i32.add
                  catch_all
                    i32.const 100
                  end))"#
            )
        };
        check(&module("i32.const 41 throw $e"), 42);
        check(&module("throw $f"), 100);
        check(&module("nop"), 0);
    }

    #[test]
    fn a_rethrow_throws_the_exception_of_its_clause_even_from_a_nested_handler() {
        check(
            r#"(module (tag $e (param i32)) (tag $f)
            (func (export "run") (result i32)
              try (result i32)
                try (result i32)
                  i32.const 7
                  throw $e
                catch $e
                  drop
                  try (result i32)
                    throw $f
                  catch $f
                    rethrow 1
                  end
                end
              catch $e
              end))"#,
            7,
        );
    }

    #[test]
    fn a_delegate_hands_the_exception_to_the_try_it_names_past_the_ones_between() {
        // The inner try's delegate skips the middle try's catch_all and reaches the outer.
        check(
            r#"(module (tag $e (param i32))
            (func (export "run") (result i32)
              try (result i32)
                try (result i32)
                  try (result i32)
                    i32.const 5
                    throw $e
                  delegate 1
                catch_all
                  i32.const -1
                end
              catch $e
                i32.const 10
                i32.mul
              end))"#,
            50,
        );
    }

    #[test]
    fn a_delegate_to_the_caller_leaves_the_function_and_the_caller_catches() {
        check(
            r#"(module (tag $e (param i32))
            (func $inner (result i32)
              try (result i32)
                try (result i32)
                  i32.const 3
                  throw $e
                delegate 1
              catch_all
                i32.const -1
              end)
            (func (export "run") (result i32)
              try (result i32)
                call $inner
              catch $e
              end))"#,
            3,
        );
    }

    #[test]
    fn branches_out_of_a_body_and_a_handler_reach_the_blocks_they_named() {
        check(
            r#"(module (tag $e (param i32))
            (func (export "run") (result i32)
              (local $i i32)
              block $out (result i32)
                loop $again
                  try
                    local.get $i
                    i32.const 1
                    i32.add
                    local.tee $i
                    i32.const 3
                    i32.lt_s
                    br_if $again
                    local.get $i
                    throw $e
                  catch $e
                    i32.const 1000
                    i32.add
                    local.get $i
                    br_table $out $out
                  end
                end
                i32.const -1
              end))"#,
            1003,
        );
    }

    #[test]
    fn a_module_without_legacy_instructions_is_left_as_it_is() {
        let module = wat::parse_str(r#"(module (tag $e) (func (export "run") (result i32) i32.const 1))"#).unwrap();
        assert_eq!(translate(&module).unwrap(), None);
        let module = wat::parse_str(r#"(module (func (export "run") (result i32) block (result i32) i32.const 1 end))"#).unwrap();
        assert_eq!(translate(&module).unwrap(), None);
    }

    #[test]
    fn a_try_with_parameters_is_refused_with_its_reason() {
        let module = wat::parse_str(
            r#"(module (tag $e) (type $t (func (param i32) (result i32)))
            (func (export "run") (result i32) i32.const 1 try (type $t) catch_all i32.const 2 end))"#,
        )
        .unwrap();
        assert_eq!(translate(&module).unwrap_err(), "function 0: a `try` whose block type has parameters");
    }
}
