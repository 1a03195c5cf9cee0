//! Writing derived lengths and counts: from the value, from whole elements, measured aside,
//! or patched after the value (the lowering's `SizeWrite`).

use super::*;

impl<'p> Encoder<'p> {
    /// A derived length or count.
    pub(super) fn write_size(&self, sid: StructId, fi: usize) -> Result<TokenStream, Internal> {
        let p = self.c.p;
        let s = &p.structs[sid];
        let f = &s.fields[fi];
        let nm = f.name.as_str();
        let local = ident(&f.name);
        let plan = &self.c.l.field(sid, fi).write;
        let (_, at_local) = self.field_start(sid, fi);
        let max_of = |it: IntTy| size_max(f, it);
        Ok(match &f.role {
            Role::Derived(Derive::CountOf(ti, l) | Derive::LengthOf(ti, l))
                if matches!(f.ty, Ty::VarInt(_)) =>
            {
                // (A varint length of encoded data is a limit: validate/checks/limits.rs.)
                let tn = ident(&s.fields[*ti].name);
                let max = lit_u64(f.max.unwrap_or(varint_max(&f.ty)));
                let put = self.write_ty(sid, fi, &f.ty, Place::Value(quote! { #local }), nm)?;
                let rt = self.c.types().rust_ty(sid, fi, &f.ty)?;
                let size = size_value(present_len(&s.fields[*ti], quote! { self.#tn }), *l, nm);
                quote! {
                    #at_local
                    let #local = fit(#size, #max, #nm)? as #rt;
                    #put
                }
            }
            Role::Derived(Derive::CountOf(ti, l) | Derive::LengthOf(ti, l)) => {
                let target = &s.fields[*ti];
                let tn = ident(&target.name);
                let Some(it) = self.int_repr(&f.ty) else {
                    return Err(Internal(format!("derived field '{nm}' is not an integer")));
                };
                let max = max_of(it);
                let rt = int_rust(&it);
                let put = write_int(&it, quote! { #local }, nm, self.c.bits_at(sid, fi));
                match plan.size {
                    Some(SizeWrite::WholeElements(eb)) => {
                        let eb = lit_usize(eb);
                        let count = present_len(target, quote! { self.#tn });
                        let size = size_value(quote! { (#count * #eb) }, *l, nm);
                        quote! {
                            #at_local
                            let #local = fit(#size, #max, #nm)? as #rt;
                            #put
                        }
                    }
                    Some(SizeWrite::MeasuredAside) => {
                        // Packed in a bit group, the length is written with the group's
                        // integer, before the value: the value is encoded once aside.
                        let write_target = self.write_field(sid, *ti)?;
                        let size = size_value(quote! { scratch.len() }, *l, nm);
                        // `w` is the group's writer here; the enclosing fields and direction
                        // are the byte writer's around it.
                        let outer = ident(&self.c.l.field(sid, fi).locals.outer);
                        quote! {
                            let #local = {
                                let mut scratch = Vec::new();
                                {
                                    let w = &mut #outer.nested(&mut scratch);
                                    #write_target
                                }
                                fit(#size, #max, #nm)? as #rt
                            };
                            #put
                        }
                    }
                    Some(SizeWrite::Patched) if self.c.bits(sid) => {
                        return Err(Internal(format!(
                            "'{nm}': the length of encoded data in a bit stream"
                        )))
                    }
                    Some(SizeWrite::Patched) => {
                        // Known only once the target is written: reserved now, patched after
                        // the target (see its write).
                        let n = lit_usize(it.bytes());
                        quote! { #at_local w.put(&[0u8; #n]); }
                    }
                    Some(SizeWrite::FromValue) | None => {
                        let size = size_value(present_len(target, quote! { self.#tn }), *l, nm);
                        quote! {
                            #at_local
                            let #local = fit(#size, #max, #nm)? as #rt;
                            #put
                        }
                    }
                }
            }
            _ => return Err(Internal(format!("'{nm}': not written by write_size"))),
        })
    }
}
